package list

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queuetest"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// execute runs "queue ARGS...", queue holding list only, as the root mounts it.
func execute(f *cmdutil.Factory, args ...string) error {
	return queuetest.Execute(f, NewCmdList(f, nil), args...)
}

func TestQueueList(t *testing.T) {
	f, stdout, _ := cmdutiltest.Factory(t, true, queuetest.Cluster(t), nil)
	if err := execute(f, "list"); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME       STATE   WEIGHT   GPUS   CPU       MEMORY            RUNNING   PENDING\n" +
		"default    Open    1        0/-    0/-       0 B/-             0         0\n" +
		"research   Open    4        2/16   4.5/200   8.0 GiB/1.0 TiB   1         2\n"
	if stdout.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "list", "-o", "name"); err != nil || stdout.String() != "default\nresearch\n" {
		t.Errorf("-o name: %v %q", err, stdout)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "list", "-o", "json"); err != nil || !strings.Contains(stdout.String(), `"kind": "QueueList"`) || !strings.Contains(stdout.String(), `"nvidia.com/gpu": "16"`) {
		t.Errorf("-o json: %v\n%s", err, stdout)
	}
	f, _, _ = cmdutiltest.Factory(t, false, queuetest.Cluster(t), nil)
	if err := execute(f, "list", "x"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("list x: %v, want exit 2 with %q", err, "takes no arguments")
	}
}
