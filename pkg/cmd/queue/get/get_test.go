package get

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queuetest"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// execute runs "queue ARGS...", queue holding get only, as the root mounts it.
func execute(f *cmdutil.Factory, args ...string) error {
	return queuetest.Execute(f, NewCmdGet(f, nil), args...)
}

func TestQueueGet(t *testing.T) {
	f, stdout, stderr := cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "get", "research"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Name:     research\n", "Weight:   4\n", "Jobs:     1 running, 1 pending, 1 admitted and being placed\n",
		"  nvidia.com/gpu   2           16           -          -\n",
		"Jobs in namespace team-a:\n",
		"  Job/mnist   mnist-pg   Running   2     2         -\n",
		"  -           big-pg     Pending   4     0         NotEnoughResources: queue resource quota insufficient [31mred\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("get lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout.String(), "\x1b") || stderr.Len() != 0 {
		t.Errorf("an escape from the cluster reached the terminal, or stderr %q", stderr)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "get", "default", "-A", "-o", "json"); err != nil || !strings.Contains(stdout.String(), `"kind": "Queue"`) || !strings.Contains(stdout.String(), `"podGroups": []`) {
		t.Errorf("-o json: %v\n%s", err, stdout)
	}
	for args, want := range map[string]string{"get": "a queue name", "get a b": "a queue name", "get research -o wide": `-o "wide"`} {
		f, _, _ := cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
		if err := execute(f, strings.Fields(args)...); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want exit 2 with %q", args, err, want)
		}
	}
	f, _, _ = cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "get", "nope"); exit.Code(err) != exit.NotFound {
		t.Errorf("get nope: %v", err)
	}
}
