package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
)

const gib = 1 << 30

// fakePlatform answers Resources; top node calls nothing else (any other
// method panics).
type fakePlatform struct {
	platform.Platform
	res   *platform.Resources
	err   error
	asked []platform.ResourceRequest
}

func (p *fakePlatform) Resources(_ context.Context, opts platform.ResourceRequest) (*platform.Resources, error) {
	p.asked = append(p.asked, opts)
	return p.res, p.err
}

// nodes are a node with GPUs of a known model and one without GPUs whose
// pods are not known.
func nodes() *platform.Resources {
	gpu := platform.ResourceRow{Name: "gpu-a", GPUType: "A100", Pods: 2,
		GPUs:   platform.Amount{Capacity: 8, Allocated: 6},
		CPU:    platform.Amount{Capacity: 64, Allocated: 12.5},
		Memory: platform.Amount{Capacity: 512 * gib, Allocated: 97 * gib},
		Jobs:   []string{"team-a/pytorch/bert", "team-a/tf/mnist", "team-b/x", "team-c/tf/y"},
		Usage:  &platform.Usage{CPU: 3.25, Memory: 40 * gib}}
	cpu := platform.ResourceRow{Name: "cpu-a", Pods: -1,
		CPU:    platform.Amount{Capacity: 32, Allocated: 0.3334},
		Memory: platform.Amount{Capacity: 128 * gib}}
	total := platform.ResourceRow{Name: "total", Pods: 2,
		GPUs:   gpu.GPUs,
		CPU:    platform.Amount{Capacity: 96, Allocated: 12.8334},
		Memory: platform.Amount{Capacity: 640 * gib, Allocated: 97 * gib}}
	return &platform.Resources{What: "NODE", Rows: []platform.ResourceRow{gpu, cpu}, Total: total,
		LargestFree: &platform.FreeBlock{Name: "gpu-a", GPUs: 2},
		Waiting:     []platform.WaitingJob{{Job: "team-d/tf/big", Pods: 4, GPUsPerPod: 4}, {Job: "team-d/tf/small", Pods: 1, GPUsPerPod: 1}}}
}

// pools are a timaker cluster's two pools, fractions of GPUs in them.
func pools() *platform.Resources {
	train := platform.ResourceRow{Name: "train", GPUType: "V100", Pods: -1,
		GPUs: platform.Amount{Capacity: 8, Allocated: 2.5}, CPU: platform.Amount{Capacity: 64, Allocated: 8},
		Memory: platform.Amount{Capacity: 256 * gib, Allocated: 2 * gib}}
	elastic := platform.ResourceRow{Name: "elastic", Pods: -1}
	total := train
	total.Name, total.GPUType = "total", ""
	return &platform.Resources{What: "POOL", Rows: []platform.ResourceRow{train, elastic}, Total: total}
}

func newFactory(t *testing.T, tty bool, p *fakePlatform) (f *cmdutil.Factory, stdout, stderr *bytes.Buffer) {
	t.Helper()
	f, stdout, stderr = cmdutiltest.Factory(t, tty, nil, nil)
	f.Platform = func() (platform.Platform, error) { return p, nil }
	return f, stdout, stderr
}

// execute runs "top ARGS...", top holding node only, as the root mounts it.
func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := &cobra.Command{Use: "top"}
	cmd.AddCommand(NewCmdNode(f, runF))
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdTopNode(t *testing.T) {
	tests := []struct {
		args     string
		selector string
		output   string
	}{
		{args: "node"},
		{args: "nodes"},
		{args: "node -l pool=gpu", selector: "pool=gpu"},
		{args: "node --selector nvidia.com/gpu.product=A100 -o json", selector: "nvidia.com/gpu.product=A100", output: "json"},
		{args: "node -o yaml", output: "yaml"},
		{args: "node -o jsonpath={.total.gpus}", output: "jsonpath={.total.gpus}"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := newFactory(t, false, &fakePlatform{})
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if got.Selector != tt.selector || got.Print.Output != tt.output {
				t.Errorf("selector %q output %q, want %q %q", got.Selector, got.Print.Output, tt.selector, tt.output)
			}
		})
	}
}

func TestNewCmdTopNodeBadInput(t *testing.T) {
	tests := []struct{ args, err string }{
		{"node -o wide", `-o "wide": must be one of json, yaml`},
		{"node -o name", `-o "name": must be one of json, yaml`},
		{"node gpu-a", `"top node" takes no arguments, got ["gpu-a"]`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			p := &fakePlatform{res: nodes()}
			f, stdout, _ := newFactory(t, false, p)
			err := execute(f, nil, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
			if len(p.asked) != 0 || stdout.Len() != 0 {
				t.Errorf("the platform was asked (%v), stdout %q", p.asked, stdout)
			}
		})
	}
}

func TestTopNodeRun(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		res    *platform.Resources
		args   string
		stdout string
		stderr string
	}{
		{name: "table", tty: true, res: nodes(), stdout: "" +
			"NODE    GPU TYPE   GPUS   GPUS FREE   CPU         MEMORY               PODS   CPU USE   MEMORY USE   JOBS\n" +
			"gpu-a   A100       6/8    2           12.5/64     97.0 GiB/512.0 GiB   2      3.25      40.0 GiB     team-a/pytorch/bert,team-a/tf/mnist,team-b/x,+1\n" +
			"cpu-a   -          0/0    0           0.333/32    0 B/128.0 GiB        -      -         -            -\n" +
			"total   -          6/8    2           12.833/96   97.0 GiB/640.0 GiB   2      -         -            -\n",
			stderr: "Largest free block: 2 GPUs on gpu-a.\nteam-d/tf/big: 4 pods waiting for a node, asking 4 GPUs each; no node has that many free.\n"},
		{name: "tab-separated", tty: false, res: nodes(), stdout: "" +
			"gpu-a\tA100\t6/8\t2\t12.5/64\t97.0 GiB/512.0 GiB\t2\t3.25\t40.0 GiB\tteam-a/pytorch/bert,team-a/tf/mnist,team-b/x,+1\n" +
			"cpu-a\t-\t0/0\t0\t0.333/32\t0 B/128.0 GiB\t-\t-\t-\t-\n" +
			"total\t-\t6/8\t2\t12.833/96\t97.0 GiB/640.0 GiB\t2\t-\t-\t-\n",
			stderr: "Largest free block: 2 GPUs on gpu-a.\nteam-d/tf/big: 4 pods waiting for a node, asking 4 GPUs each; no node has that many free.\n"},
		{name: "pools", tty: true, res: pools(), stdout: "" +
			"POOL      GPU TYPE   GPUS    GPUS FREE   CPU    MEMORY              PODS   CPU USE   MEMORY USE   JOBS\n" +
			"train     V100       2.5/8   5.5         8/64   2.0 GiB/256.0 GiB   -      -         -            -\n" +
			"elastic   -          0/0     0           0/0    0 B/0 B             -      -         -            -\n" +
			"total     -          2.5/8   5.5         8/64   2.0 GiB/256.0 GiB   -      -         -            -\n"},
		{name: "no nodes", tty: true, res: &platform.Resources{What: "NODE", Total: platform.ResourceRow{Name: "total"}},
			stderr: "No nodes found.\n"},
		{name: "no nodes, tab-separated", tty: false, res: &platform.Resources{What: "NODE", Total: platform.ResourceRow{Name: "total"}},
			args: "-l pool=none", stderr: "No nodes found.\n"},
		{name: "a template", tty: false, res: nodes(), args: "-o jsonpath={.total.gpus.allocated}", stdout: "6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakePlatform{res: tt.res}
			f, stdout, stderr := newFactory(t, tt.tty, p)
			if err := execute(f, nil, append([]string{"node"}, strings.Fields(tt.args)...)...); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", stdout, tt.stdout)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr, tt.stderr)
			}
		})
	}
}

func TestTopNodeAsksForTheSelectedNodes(t *testing.T) {
	p := &fakePlatform{res: nodes()}
	f, _, _ := newFactory(t, false, p)
	if err := execute(f, nil, "node", "-l", "pool=gpu"); err != nil {
		t.Fatal(err)
	}
	if want := []platform.ResourceRequest{{Selector: "pool=gpu"}}; !reflect.DeepEqual(p.asked, want) {
		t.Errorf("asked %+v, want %+v", p.asked, want)
	}
}

func TestTopNodeJSON(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f, stdout, stderr := newFactory(t, tty, &fakePlatform{res: nodes()})
		if err := execute(f, nil, "node", "-o", "json"); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("stdout is no JSON: %v\n%s", err, stdout)
		}
		amount := func(capacity, allocated float64) map[string]any {
			return map[string]any{"capacity": capacity, "allocated": allocated}
		}
		want := map[string]any{
			"apiVersion": "easyai.io/v1",
			"kind":       "Resources",
			"rows":       "NODE",
			"items": []any{
				map[string]any{"name": "gpu-a", "gpuType": "A100", "gpus": amount(8, 6), "cpu": amount(64, 12.5),
					"memory": amount(512*gib, 97*gib), "pods": 2.0,
					"jobs":  []any{"team-a/pytorch/bert", "team-a/tf/mnist", "team-b/x", "team-c/tf/y"},
					"usage": map[string]any{"cpu": 3.25, "memory": 40.0 * gib}},
				map[string]any{"name": "cpu-a", "gpus": amount(0, 0), "cpu": amount(32, 0.3334),
					"memory": amount(128*gib, 0), "pods": -1.0},
			},
			"total": map[string]any{"name": "total", "gpus": amount(8, 6), "cpu": amount(96, 12.8334),
				"memory": amount(640*gib, 97*gib), "pods": 2.0},
			"largestFree": map[string]any{"name": "gpu-a", "gpus": 2.0},
			"waiting": []any{map[string]any{"job": "team-d/tf/big", "pods": 4.0, "gpusPerPod": 4.0},
				map[string]any{"job": "team-d/tf/small", "pods": 1.0, "gpusPerPod": 1.0}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("document\n%s\nwant\n%v", stdout, want)
		}
		if stderr.Len() != 0 {
			t.Errorf("stderr %q", stderr)
		}
	}

	// No nodes: an empty list, not null, and nothing on stderr.
	f, stdout, stderr := newFactory(t, false, &fakePlatform{res: &platform.Resources{What: "NODE", Total: platform.ResourceRow{Name: "total"}}})
	if err := execute(f, nil, "node", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"apiVersion\": \"easyai.io/v1\",\n  \"kind\": \"Resources\",\n  \"rows\": \"NODE\",\n  \"items\": [],\n" +
		"  \"total\": {\n    \"name\": \"total\",\n    \"gpus\": {\n      \"capacity\": 0,\n      \"allocated\": 0\n    },\n" +
		"    \"cpu\": {\n      \"capacity\": 0,\n      \"allocated\": 0\n    },\n    \"memory\": {\n      \"capacity\": 0,\n      \"allocated\": 0\n    },\n" +
		"    \"pods\": 0\n  },\n  \"waiting\": []\n}\n"
	if stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", stdout, want, stderr)
	}
}

func TestTopNodeYAML(t *testing.T) {
	f, stdout, _ := newFactory(t, false, &fakePlatform{res: pools()})
	if err := execute(f, nil, "node", "-o", "yaml"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"apiVersion: easyai.io/v1\n", "kind: Resources\n", "rows: POOL\n", "- cpu:\n", "  name: train\n", "  gpuType: V100\n", "  pods: -1\n", "total:\n"} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("YAML lacks %q:\n%s", line, stdout)
		}
	}
}

func TestTopNodeErrors(t *testing.T) {
	refused := exit.WithHint(errors.New("cannot list nodes: forbidden"), "ask your cluster admin")
	f, stdout, stderr := newFactory(t, false, &fakePlatform{err: refused})
	err := execute(f, nil, "node")
	if err != refused || stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("error %v, stdout %q, stderr %q: want the platform's error as it is", err, stdout, stderr)
	}

	f, _, _ = cmdutiltest.Factory(t, false, nil, nil)
	f.Platform = func() (platform.Platform, error) { return nil, exit.UsageErrorf("no cluster named prod") }
	if err := execute(f, nil, "node"); exit.Code(err) != exit.Usage || err.Error() != "no cluster named prod" {
		t.Errorf("no platform: %v", err)
	}
}
