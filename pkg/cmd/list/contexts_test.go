package list

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/platform/kubeplatform"
)

// fakeContext is a context of the fake kubeconfig: its namespace and its
// cluster's jobs, or the error its platform fails with.
type fakeContext struct {
	namespace string
	dyn       dynamic.Interface
	err       error
}

// slowCluster serves the fixtures, each LIST after delay.
func slowCluster(delay time.Duration) dynamic.Interface {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	dyn.PrependReactor("list", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		time.Sleep(delay)
		return false, nil, nil
	})
	return dyn
}

// contextsFactory is a factory whose kubeconfig has the contexts, run with
// --context and -n as given ("": not given).
func contextsFactory(t *testing.T, tty bool, contextFlag, namespaceFlag string, contexts map[string]fakeContext) (f *cmdutil.Factory, stdout, stderr *bytes.Buffer) {
	t.Helper()
	f, stdout, stderr = cmdutiltest.Factory(t, tty, jobclienttest.Dynamic(), nil)
	f.ConfigFlags = genericclioptions.NewConfigFlags(false)
	*f.ConfigFlags.Context, *f.ConfigFlags.Namespace = contextFlag, namespaceFlag
	f.Platform = func() (platform.Platform, error) {
		return nil, errors.New("the platform of the current context was asked for")
	}
	f.Contexts = func() ([]string, error) {
		var names []string
		for name := range contexts {
			names = append(names, name)
		}
		slices.Sort(names)
		return names, nil
	}
	f.PlatformFor = func(name string, notes io.Writer) (platform.Platform, error) {
		c, ok := contexts[name]
		if !ok {
			return nil, fmt.Errorf("context %q does not exist", name)
		}
		if c.err != nil {
			return nil, c.err
		}
		ns := c.namespace
		if namespaceFlag != "" {
			ns = namespaceFlag
		}
		kube := kubernetes.Interface(kubefake.NewClientset())
		return &kubeplatform.Platform{
			Kinds:     f.Kinds,
			Namespace: func() (string, bool, error) { return ns, namespaceFlag != "", nil },
			Jobs: func() (*jobclient.Client, error) {
				return &jobclient.Client{Dynamic: c.dyn, Kube: kube, Kinds: f.Kinds, GPUResource: config.DefaultGPUResource}, nil
			},
			Kube:    func() (kubernetes.Interface, error) { return kube, nil },
			Dynamic: func() (dynamic.Interface, error) { return c.dyn, nil },
			Notes:   notes, Now: f.Now,
		}, nil
	}
	return f, stdout, stderr
}

var refused = errors.New("dial tcp 127.0.0.1:1: connect:\nconnection refused")

// eastWestDead: east (team-a) answers last, west (team-b) first, dead not at all.
func eastWestDead() map[string]fakeContext {
	return map[string]fakeContext{
		"east": {namespace: "team-a", dyn: slowCluster(20 * time.Millisecond)},
		"west": {namespace: "team-b", dyn: jobclienttest.Dynamic(jobclienttest.Fixtures()...)},
		"dead": {err: refused},
	}
}

func TestNewCmdListContexts(t *testing.T) {
	tests := []struct {
		args, context string
		many          bool
		asked         []string
	}{
		{args: "--all-contexts", many: true},
		{context: "west,east,west", many: true, asked: []string{"west", "east"}},
		{context: " east , ", many: true, asked: []string{"east"}},
		{context: "east"},
		{args: "-A"},
	}
	for _, tt := range tests {
		t.Run(tt.args+" --context "+tt.context, func(t *testing.T) {
			f, _, _ := contextsFactory(t, false, tt.context, "", nil)
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if got.ManyContexts != tt.many || !reflect.DeepEqual(got.ContextsAsked, tt.asked) {
				t.Errorf("many %v asked %q, want %v %q", got.ManyContexts, got.ContextsAsked, tt.many, tt.asked)
			}
		})
	}
}

// Flags that name one place, with several contexts: exit 2 naming both.
func TestListContextsRefusesFlags(t *testing.T) {
	tests := []struct {
		args, context, cluster, server, err string
	}{
		{args: "--all-contexts", context: "east", err: `--all-contexts and --context "east": give one of them`},
		{args: "--all-contexts", cluster: "prod", err: `--all-contexts and --cluster "prod": --cluster names one cluster`},
		{context: "east,west", cluster: "prod", err: `--context "east,west" and --cluster "prod": `},
		{args: "--all-contexts --id train-42", err: `--all-contexts and --id: --id adopts jobs of one timaker cluster`},
		{args: "--id train-42", context: "east,west", err: `--context "east,west" and --id: `},
		{args: "--all-contexts", server: "https://10.0.0.1", err: `--all-contexts and --server "https://10.0.0.1": `},
		{context: ",", err: `--context "," names no context`},
	}
	for _, tt := range tests {
		t.Run(tt.args+" "+tt.context+" "+tt.cluster+" "+tt.server, func(t *testing.T) {
			f, _, _ := contextsFactory(t, false, tt.context, "", nil)
			f.Cluster = tt.cluster
			*f.ConfigFlags.APIServer = tt.server
			err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
		})
	}
}

// Every context at once: by context (not as they answered), then newest
// first; the dead one is one line on stderr and the others print (exit 0).
func TestListAllContexts(t *testing.T) {
	tests := []struct {
		name, args, context, namespace string
		tty                            bool
		stdout, stderr                 string
	}{
		{name: "table", tty: true, args: "--all-contexts", stdout: "" +
			"CONTEXT   NAMESPACE   NAME     KIND      STATUS      WORKERS   GPUS   AGE   DURATION   USER\n" +
			"east      team-a      resnet   pytorch   Queued      0/4       32     50m   -          (external)\n" +
			"east      team-a      mnist    tf        Running     3/3       2      60m   59m        alice@corp\n" +
			"east      team-a      old      tf        Succeeded   0/1       0      25h   60m        bob\n" +
			"west      team-b      bert     tf        Failed      0/4       4      30m   9m         alice@corp\n",
			stderr: "Warning: context \"dead\": dial tcp 127.0.0.1:1: connect: connection refused\n" +
				"To see one of them: easyai get pytorch/resnet -n team-a --context east\n"},
		{name: "lines", args: "--all-contexts --status running,failed", stdout: "" +
			"east\tteam-a\tmnist\ttf\tRunning\t3/3\t2\t60m\t59m\talice@corp\n" +
			"west\tteam-b\tbert\ttf\tFailed\t0/4\t4\t30m\t9m\talice@corp\n",
			stderr: "Warning: context \"dead\": dial tcp 127.0.0.1:1: connect: connection refused\n"},
		{name: "named, one namespace, wide", tty: true, context: "west,east", namespace: "team-b", args: "-o wide", stdout: "" +
			"CONTEXT   NAME   KIND   STATUS   WORKERS   GPUS   AGE   DURATION   USER         EXPERIMENT   REASON        MANAGED-BY\n" +
			"east      bert   tf     Failed   0/4       4      30m   9m         alice@corp   -            TFJobFailed   easyai\n" +
			"west      bert   tf     Failed   0/4       4      30m   9m         alice@corp   -            TFJobFailed   easyai\n",
			stderr: "To see one of them: easyai get tf/bert -n team-b --context east\n"},
		{name: "every namespace", context: "west,east", args: "-A --kind tf --user bob", stdout: "" +
			"east\tteam-a\told\ttf\tSucceeded\t0/1\t0\t25h\t60m\tbob\n" +
			"west\tteam-a\told\ttf\tSucceeded\t0/1\t0\t25h\t60m\tbob\n"},
		{name: "names", args: "--all-contexts -o name", stdout: "east/pytorch/resnet\neast/tf/mnist\neast/tf/old\nwest/tf/bert\n",
			stderr: "Warning: context \"dead\": dial tcp 127.0.0.1:1: connect: connection refused\n"},
		{name: "nothing found", tty: true, context: "east,west", args: "--status suspended", stderr: "No jobs found in contexts east, west.\n"},
		{name: "nothing found in the one alive", context: "east,dead", args: "--status suspended",
			stderr: "Warning: context \"dead\": dial tcp 127.0.0.1:1: connect: connection refused\nNo jobs found in context east.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := contextsFactory(t, tt.tty, tt.context, tt.namespace, eastWestDead())
			if err := execute(f, nil, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", stdout, tt.stdout)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr\n%s\nwant\n%s", stderr, tt.stderr)
			}
		})
	}
}

func TestListAllContextsJSON(t *testing.T) {
	f, stdout, _ := contextsFactory(t, false, "", "", eastWestDead())
	if err := execute(f, nil, "--all-contexts", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		APIVersion, Kind string
		Items            []map[string]any
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var got []string
	for _, it := range doc.Items {
		got = append(got, fmt.Sprintf("%v %v/%v %v", it["context"], it["namespace"], it["jobKind"], it["name"]))
	}
	want := []string{"east team-a/pytorch resnet", "east team-a/tf mnist", "east team-a/tf old", "west team-b/tf bert"}
	if doc.APIVersion != "easyai.io/v1" || doc.Kind != "JobList" || !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s %q, want %q", doc.APIVersion, doc.Kind, got, want)
	}
	if !strings.HasPrefix(stdout.String(), "{\n  \"apiVersion\": \"easyai.io/v1\",\n  \"kind\": \"JobList\",\n  \"items\": [\n    {\n      \"context\": \"east\",\n      \"name\": \"resnet\",") {
		t.Errorf("context is not the first field of an item:\n%s", stdout)
	}

	f, stdout, _ = contextsFactory(t, false, "east,west", "", eastWestDead())
	if err := execute(f, nil, "--status", "suspended", "-o", "yaml"); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "apiVersion: easyai.io/v1\nitems: []\nkind: JobList\n" {
		t.Errorf("nothing found, as YAML: %q", stdout)
	}
}

// Every context failed: each is one line, and list exits 1.
func TestListAllContextsFail(t *testing.T) {
	contexts := map[string]fakeContext{
		"dead": {err: refused},
		"gone": {namespace: "team-a", dyn: func() dynamic.Interface {
			dyn := jobclienttest.Dynamic()
			jobclienttest.Refuse(dyn, "list", "*")
			return dyn
		}()},
	}
	f, stdout, stderr := contextsFactory(t, false, "", "", contexts)
	err := execute(f, nil, "--all-contexts")
	if exit.Code(err) != exit.Error || err.Error() != "no context could be listed (dead, gone)" || !strings.Contains(exit.Hint(err), "easyai list --context NAME") {
		t.Errorf("error %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if stdout.Len() != 0 || len(lines) != 2 || lines[0] != `Warning: context "dead": dial tcp 127.0.0.1:1: connect: connection refused` ||
		!strings.HasPrefix(lines[1], `Warning: context "gone": you may not list jobs in namespace team-a: `) {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
}

// A context's warnings say which context they are about, in the order of
// the contexts.
func TestListContextsWarnings(t *testing.T) {
	contexts := eastWestDead()
	west := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.Refuse(west, "list", "colossalaijobs")
	contexts["west"] = fakeContext{namespace: "team-b", dyn: west}
	east := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.NotInstalled(east, "pytorchjobs")
	contexts["east"] = fakeContext{namespace: "team-a", dyn: east}
	f, stdout, stderr := contextsFactory(t, false, "west,east", "", contexts)
	if err := execute(f, nil, "-o", "name", "--kind", "tf,pytorch,colossalai"); err != nil {
		t.Fatal(err)
	}
	want := "Warning: context \"east\": PyTorchJob (kubeflow.org/v1) is not installed on this cluster, skipped (install the Kubeflow training-operator (v1), which serves it)\n" +
		"Warning: context \"west\": cannot list colossalaijobs in team-b: forbidden\n"
	if stdout.String() != "east/tf/mnist\neast/tf/old\nwest/tf/bert\n" || stderr.String() != want {
		t.Errorf("stdout %q\nstderr %q\nwant   %q", stdout, stderr, want)
	}
}

// A context --context names must be one of the kubeconfig's (exit 2); the
// name of one context that holds a comma is that context.
func TestListContextsNamed(t *testing.T) {
	f, _, _ := contextsFactory(t, false, "east,nowhere", "", eastWestDead())
	err := execute(f, nil)
	if want := `--context "nowhere": the kubeconfig has no such context (contexts: dead, east, west)`; exit.Code(err) != exit.Usage || err == nil || err.Error() != want {
		t.Errorf("error %v (exit %d), want %q", err, exit.Code(err), want)
	}

	contexts := map[string]fakeContext{"a,b": {}}
	f, _, _ = contextsFactory(t, false, "a,b", "", contexts)
	var asked bool
	f.Platform = func() (platform.Platform, error) { asked = true; return nil, errors.New("the current context") }
	if err := execute(f, nil); err == nil || err.Error() != "the current context" || !asked {
		t.Errorf("a context named a,b: %v", err)
	}
}

// At most maxContextsAtOnce contexts are listed at once.
func TestListContextsBounded(t *testing.T) {
	contexts := map[string]fakeContext{}
	for i := range 3 * maxContextsAtOnce {
		contexts[fmt.Sprintf("c%02d", i)] = fakeContext{namespace: "team-a", dyn: jobclienttest.Dynamic(jobclienttest.Fixtures()...)}
	}
	f, stdout, _ := contextsFactory(t, false, "", "", contexts)
	var mu sync.Mutex
	var running, most int
	platformFor := f.PlatformFor
	f.PlatformFor = func(name string, notes io.Writer) (platform.Platform, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return platformFor(name, notes)
	}
	if err := execute(f, nil, "--all-contexts", "-o", "name", "--kind", "pytorch"); err != nil {
		t.Fatal(err)
	}
	if most > maxContextsAtOnce || most < 2 {
		t.Errorf("%d contexts listed at once, want 2 to %d", most, maxContextsAtOnce)
	}
	if lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"); len(lines) != len(contexts) || lines[0] != "c00/pytorch/resnet" || lines[len(lines)-1] != "c23/pytorch/resnet" {
		t.Errorf("stdout %q", stdout)
	}
}
