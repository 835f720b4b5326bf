package remote_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// FuzzParsePortSpec: a port-forward argument never panics; a bad one is a
// usage error quoting it, a good one has a remote port and reads back the
// same from its String.
func FuzzParsePortSpec(f *testing.F) {
	for _, seed := range []string{"6006", ":6006", "0:6006", "8080:80", "65535:1", "", ":", "0", "8080:0", "x", "1:y",
		"70000", "1:2:3", "-1", "8080:", "+80", "0x50", " 80", "80\n", "\xff:80", "٨٠"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		p, err := remote.ParsePortSpec(arg)
		if err != nil {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), strconv.Quote(arg)) {
				t.Fatalf("ParsePortSpec(%q): exit %d, %v; want a usage error quoting it", arg, exit.Code(err), err)
			}
			return
		}
		if p.Remote == 0 {
			t.Fatalf("ParsePortSpec(%q) = %+v: no remote port", arg, p)
		}
		if again, err := remote.ParsePortSpec(p.String()); err != nil || again != p {
			t.Fatalf("ParsePortSpec(%q) = %+v, which reads back as %+v, %v", arg, p, again, err)
		}
	})
}

// FuzzTarget looks up any endpoint name and --task in a job whose endpoints
// annotation is anything: it never panics; a bad annotation is a usage
// error naming it, a name or task the job lacks a not-found error; what is
// found is a port of a replica the job has.
func FuzzTarget(f *testing.F) {
	const endpoints = `{"jupyter":{"task":"worker-0","port":8888,"path":"/lab","tokenSecret":"mnist-jupyter"},"tensorboard":{"port":6006}}`
	for _, seed := range []struct{ annotation, name, task string }{
		{endpoints, "jupyter", ""}, {endpoints, "jupyter", "worker-1"}, {endpoints, "tensorboard", ""},
		{endpoints, "metrics", ""}, {endpoints, "master", ""}, {endpoints, "8080", "worker-1"},
		{`{"tensorboard":{"port":6006}}`, "jupyter", ""}, {`{"tensorboard":{"port":6006}}`, "metrics", "worker-0"},
		{`{"tensorboard":{"port":6006}}`, "tensorboard", "worker-7"}, {`{"tb":"6006"}`, "tb", ""},
		{`{"x":{"task":"worker-9","port":1}}`, "x", ""}, {"", "0", ""}, {"", "65536", ""}, {"null", "", ""},
	} {
		f.Add(seed.annotation, seed.name, seed.task)
	}
	f.Fuzz(func(t *testing.T, annotation, name, task string) {
		j := jobWithEndpoints(annotation)
		got, err := j.Target(name, task)
		if err != nil {
			switch exit.Code(err) {
			case exit.Usage:
				if !strings.Contains(err.Error(), jobmodel.EndpointsAnnotation) {
					t.Fatalf("%q, %q --task %q: %v; want the annotation named", annotation, name, task, err)
				}
			case exit.NotFound:
			default:
				t.Fatalf("%q, %q --task %q: exit %d, %v; want a usage or not-found error", annotation, name, task, exit.Code(err), err)
			}
			return
		}
		if got.Port < 1 || got.Port > 65535 {
			t.Fatalf("%q, %q --task %q: port %d", annotation, name, task, got.Port)
		}
		if _, err := remote.FindReplica(j.Replicas, got.Task); err != nil {
			t.Fatalf("%q, %q --task %q: task %q the job does not have", annotation, name, task, got.Task)
		}
	})
}

// FuzzFindReplica: a --task the job lacks is a not-found error naming it.
func FuzzFindReplica(f *testing.F) {
	for _, seed := range []string{"master-0", "worker-1", "worker-7", "", "worker", "worker-01", "\x1b[2J"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, task string) {
		r, err := remote.FindReplica(replicas("master-0", "worker-0", "worker-1"), task)
		if err != nil {
			if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), task) {
				t.Fatalf("FindReplica(%q): exit %d, %v; want not found naming it", task, exit.Code(err), err)
			}
			return
		}
		if r.Task != task {
			t.Fatalf("FindReplica(%q) = %q", task, r.Task)
		}
	})
}
