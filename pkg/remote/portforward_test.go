package remote_test

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func TestParsePortSpec(t *testing.T) {
	good := map[string]remote.PortSpec{
		"6006":    {Local: 6006, Remote: 6006},
		":6006":   {Local: 0, Remote: 6006},
		"0:6006":  {Local: 0, Remote: 6006},
		"8080:80": {Local: 8080, Remote: 80},
		"65535:1": {Local: 65535, Remote: 1},
	}
	for arg, want := range good {
		got, err := remote.ParsePortSpec(arg)
		if err != nil || got != want {
			t.Errorf("ParsePortSpec(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, arg := range []string{"", ":", "0", "8080:0", "x", "1:y", "70000", "1:2:3", "-1", "8080:"} {
		_, err := remote.ParsePortSpec(arg)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `"`+arg+`"`) {
			t.Errorf("ParsePortSpec(%q) = %v; want a usage error naming it", arg, err)
		}
	}
	if _, err := remote.ParsePortSpecs(nil); exit.Code(err) != exit.Usage {
		t.Errorf("no ports: %v, want a usage error", err)
	}
}

func TestParseAddresses(t *testing.T) {
	got, err := remote.ParseAddresses([]string{"127.0.0.1,::1", "localhost"})
	if err != nil || strings.Join(got, " ") != "127.0.0.1 ::1 localhost" {
		t.Errorf("ParseAddresses = %v, %v", got, err)
	}
	if got, _ := remote.ParseAddresses(nil); strings.Join(got, " ") != "127.0.0.1" {
		t.Errorf("default addresses = %v", got)
	}
	if _, err := remote.ParseAddresses([]string{"nope.example"}); exit.Code(err) != exit.Usage {
		t.Errorf("bad address: %v, want a usage error", err)
	}
}

func TestPortForwardReplicaChoice(t *testing.T) {
	rs := replicas("ps-0", "worker-0", "worker-1")
	if r, err := remote.DefaultReplica(rs); err != nil || r.Task != "worker-0" {
		t.Errorf("default = %s, %v; want worker-0", r.Task, err)
	}
	if r, err := remote.FindReplica(rs, "worker-1"); err != nil || r.Pod != "mnist-worker-1" {
		t.Errorf("--task worker-1 = %+v, %v", r, err)
	}
	if _, err := remote.FindReplica(rs, "worker-9"); exit.Code(err) != exit.NotFound {
		t.Errorf("--task worker-9: %v, want exit 3", err)
	}
}
