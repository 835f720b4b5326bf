package get

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdGet(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdGet(t *testing.T) {
	tests := []struct {
		args   string
		ref    string
		output string
		raw    bool
	}{
		{args: "mnist", ref: "mnist"},
		{args: "tf/mnist", ref: "tf/mnist"},
		{args: "tfjob/mnist -o json", ref: "tf/mnist", output: "json"},
		{args: "mnist --kind torch -o yaml", ref: "pytorch/mnist", output: "yaml"},
		{args: "mnist --raw", ref: "mnist", raw: true},
		{args: "mnist --raw -o json", ref: "mnist", output: "json", raw: true},
		{args: "mnist -o name", ref: "mnist", output: "name"},
		{args: "mnist -o values", ref: "mnist", output: "values"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if got.Ref.String() != tt.ref || got.Print.Output != tt.output || got.Raw != tt.raw {
				t.Errorf("ref %s output %q raw %v, want %s %q %v", got.Ref, got.Print.Output, got.Raw, tt.ref, tt.output, tt.raw)
			}
		})
	}
}

func TestNewCmdGetBadInput(t *testing.T) {
	tests := []struct{ args, err string }{
		{"", `"get" needs a job: NAME or KIND/NAME (got 0 arguments)`},
		{"a b", `"get" needs a job: NAME or KIND/NAME (got 2 arguments)`},
		{"nosuchkind/mnist", `"nosuchkind/mnist": unknown kind "nosuchkind" (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{"mnist --kind nosuchkind", `--kind "nosuchkind": unknown kind (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{"tf/mnist --kind pytorch", `"tf/mnist" is a tf job but --kind says pytorch`},
		{"mnist -o wide", `-o "wide": must be one of json, yaml, name, values, jsonpath=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE, go-template-file=FILE`},
		{"mnist --raw -o name", `--raw prints YAML or JSON, not -o name`},
		{"mnist --raw -o values", `--raw prints YAML or JSON, not -o values`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || err.Error() != tt.err {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
		})
	}
}

// cluster is the fixtures with mnist's pods and warnings.
func cluster(t *testing.T, tty bool, extra ...runtime.Object) (*cmdutil.Factory, func() (stdout, stderr string)) {
	t.Helper()
	t0 := jobclienttest.T0
	ps := jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, t0)
	w0 := jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, t0)
	w1 := jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodFailed, t0.Add(30*time.Minute))
	w1.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow", RestartCount: 1, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}
	kube := kubefake.NewClientset(ps, w0, w1,
		jobclienttest.Warning("team-a", "e1", "Pod", "mnist-worker-1", "BackOff", "Back-off restarting failed container", 4, t0.Add(50*time.Minute)),
		jobclienttest.Warning("team-a", "e2", "PodGroup", "mnist", "Unschedulable", "0/3 tasks in gang unschedulable", 1, t0.Add(2*time.Minute)),
		jobclienttest.Warning("team-a", "e3", "TFJob", "old", "Other", "another job", 1, t0),
	)
	dyn := jobclienttest.Dynamic(append(jobclienttest.Fixtures(), extra...)...)
	f, stdout, stderr := cmdutiltest.Factory(t, tty, dyn, kube)
	return f, func() (string, string) { return stdout.String(), stderr.String() }
}

const mnistHuman = `Name:       mnist
Namespace:  team-a
Kind:       tf (TFJob.kubeflow.org/v1)
Status:     Running (TFJobRunning): TFJob mnist is Running.
User:       alice@corp
Experiment: lr-sweep
Created:    2025-03-01 12:00:00 UTC (60m ago)
Started:    2025-03-01 12:01:00 UTC (59m ago)
Finished:   -
Duration:   59m
Image:      example.com/train:2
Command:    python train.py --lr 0.1
Workers:    3/3 running
GPUs:       2

Replicas:
TASK       STATUS    NODE     RESTARTS   EXIT CODE   REASON      AGE
ps-0       Running   node-0   0          -           -           60m
worker-0   Running   node-0   0          -           -           60m
worker-1   Failed    node-1   1          137         OOMKilled   30m

Last lines of worker-1 (container tensorflow, its run, exit code 137):
  fake logs

Warning events:
AGE        OBJECT     REASON          MESSAGE
58m        podgroup   Unschedulable   0/3 tasks in gang unschedulable
10m (x4)   worker-1   BackOff         Back-off restarting failed container
`

func TestGetRun(t *testing.T) {
	// The human view is for reading: the same with a terminal or without.
	for _, tty := range []bool{true, false} {
		for _, arg := range []string{"mnist", "tf/mnist", "tfjob/mnist"} {
			f, output := cluster(t, tty)
			if err := execute(f, nil, arg); err != nil {
				t.Fatal(err)
			}
			stdout, stderr := output()
			if stdout != mnistHuman || stderr != "" {
				t.Errorf("get %s (tty %v): stdout\n%s\nwant\n%s\nstderr %q", arg, tty, stdout, mnistHuman, stderr)
			}
		}
	}
}

func TestGetExternalJob(t *testing.T) {
	f, output := cluster(t, false)
	if err := execute(f, nil, "resnet"); err != nil {
		t.Fatal(err)
	}
	stdout, _ := output()
	want := `Name:       resnet
Namespace:  team-a
Kind:       pytorch (PyTorchJob.kubeflow.org/v1)
Status:     Queued (PyTorchJobCreated): waiting for its gang of pods to be scheduled together
User:       (external)
Managed-By: (external)
Experiment: -
Created:    2025-03-01 12:10:00 UTC (50m ago)
Started:    -
Finished:   -
Duration:   -
Image:      example.com/train:1
Command:    -
Workers:    0/4 running
GPUs:       32

Replicas:
TASK       STATUS    NODE   RESTARTS   EXIT CODE   REASON   AGE
master-0   Pending   -      0          -           NoPod    -
worker-0   Pending   -      0          -           NoPod    -
worker-1   Pending   -      0          -           NoPod    -
worker-2   Pending   -      0          -           NoPod    -

Warning events: none
`
	if stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
}

// TestGetWarnsOfAnUnreadableRequest: a request annotation someone broke is
// said on stderr; get still shows the job, with what its pod templates run.
func TestGetWarnsOfAnUnreadableRequest(t *testing.T) {
	edited := jobclienttest.Job{Name: "edited", Created: jobclienttest.T0, Request: `{"image": "example.com/train:2"`,
		Roles: []jobclienttest.Role{{Type: "Worker", Replicas: 1, Image: "example.com/train:1", Command: []string{"python", "train.py"}}}}.Object()
	f, output := cluster(t, false, edited)
	if err := execute(f, nil, "edited"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := output()
	want := "Warning: tf/edited: annotation " + jobmodel.RequestAnnotation + ": unexpected end of JSON input: its image and command are read from its pod templates\n"
	if stderr != want || !strings.Contains(stdout, "Image:      example.com/train:1\nCommand:    python train.py\n") {
		t.Errorf("stderr %q, want %q; stdout\n%s", stderr, want, stdout)
	}
}

// TestGetValues: -o values is the request as a job file, kind first and
// without the name; a job easyai did not submit has none (exit 3), one
// whose annotation is not JSON is exit 2 naming it. Nothing on stderr.
func TestGetValues(t *testing.T) {
	edited := jobclienttest.Job{Name: "edited", Created: jobclienttest.T0, Request: `{"image": "example.com/train:2"`,
		Roles: []jobclienttest.Role{{Type: "Worker", Replicas: 1}}}.Object()
	f, output := cluster(t, false, edited)
	if err := execute(f, nil, "mnist", "-o", "values"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := output()
	want := "kind: tf\ncommand:\n- python\n- train.py\n- --lr\n- \"0.1\"\nimage: example.com/train:2\n"
	if stdout != want || stderr != "" {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", stdout, want, stderr)
	}

	err := execute(f, nil, "resnet", "-o", "values")
	if exit.Code(err) != exit.NotFound || err.Error() != "pytorch/resnet was not submitted by easyai: it has no easyai.io/request annotation, the values to submit it from" {
		t.Errorf("a job easyai did not submit: %v (exit %d)", err, exit.Code(err))
	}
	err = execute(f, nil, "edited", "-o", "values")
	if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), "tf/edited: annotation easyai.io/request: ") {
		t.Errorf("an edited annotation: %v (exit %d)", err, exit.Code(err))
	}
}

func TestGetJSON(t *testing.T) {
	f, output := cluster(t, false)
	if err := execute(f, nil, "mnist", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := output()
	var doc jobmodel.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.APIVersion != "easyai.io/v1" || doc.DocumentKind != "Job" || doc.Name != "mnist" || doc.KindName != "tf" || doc.Status.State != jobmodel.Running ||
		len(doc.Replicas) != 3 || doc.Replicas[2].Task != "worker-1" || *doc.Replicas[2].ExitCode != 137 ||
		len(doc.Events) != 2 || doc.Events[1].Object != "worker-1" || doc.Events[1].Count != 4 ||
		doc.Image != "example.com/train:2" || strings.Join(doc.Command, " ") != "python train.py --lr 0.1" || doc.Request["image"] != "example.com/train:2" || stderr != "" {
		t.Errorf("document %+v\nstderr %q", doc, stderr)
	}
	for _, key := range []string{`"apiVersion": "easyai.io/v1",`, `"kind": "Job",`, `"objectKind": "TFJob",`, `"request": {`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("document lacks %s:\n%s", key, stdout)
		}
	}
}

func TestGetYAMLAndRaw(t *testing.T) {
	f, output := cluster(t, false)
	if err := execute(f, nil, "mnist", "-o", "yaml"); err != nil {
		t.Fatal(err)
	}
	stdout, _ := output()
	var doc jobmodel.Document
	if err := yaml.Unmarshal([]byte(stdout), &doc); err != nil || doc.DocumentKind != "Job" || len(doc.Replicas) != 3 {
		t.Errorf("YAML document %v %+v\n%s", err, doc, stdout)
	}

	f, output = cluster(t, false)
	if err := execute(f, nil, "mnist", "--raw"); err != nil {
		t.Fatal(err)
	}
	stdout, _ = output()
	for _, line := range []string{"apiVersion: kubeflow.org/v1\n", "kind: TFJob\n", "  tfReplicaSpecs:\n"} {
		if !strings.Contains(stdout, line) {
			t.Errorf("raw YAML lacks %q:\n%s", line, stdout)
		}
	}
	if strings.Contains(stdout, "managedFields") {
		t.Errorf("raw YAML has managedFields")
	}

	f, output = cluster(t, false)
	if err := execute(f, nil, "mnist", "--raw", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	stdout, _ = output()
	var raw map[string]any
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil || raw["kind"] != "TFJob" {
		t.Errorf("raw JSON %v %v", err, raw["kind"])
	}

	f, output = cluster(t, true)
	if err := execute(f, nil, "resnet", "-o", "name"); err != nil {
		t.Fatal(err)
	}
	if stdout, _ = output(); stdout != "pytorch/resnet\n" {
		t.Errorf("-o name %q", stdout)
	}
}

func TestGetErrors(t *testing.T) {
	twin := jobclienttest.Job{APIKind: "PyTorchJob", Name: "mnist", Created: jobclienttest.T0}.Object()
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"ghost"}, exit.NotFound, "job ghost not found in namespace team-a"},
		{[]string{"pytorch/ghost"}, exit.NotFound, "job pytorch/ghost not found in namespace team-a"},
		{[]string{"bert"}, exit.NotFound, "job bert not found in namespace team-a"},
		{[]string{"mnist"}, exit.Usage, "there are 2 jobs named mnist in namespace team-a (pytorch/mnist, tf/mnist): name one as KIND/NAME or with --kind"},
	}
	for _, tt := range tests {
		f, output := cluster(t, false, twin)
		err := execute(f, nil, tt.args...)
		if exit.Code(err) != tt.code || err.Error() != tt.err {
			t.Errorf("get %v: %v (exit %d), want exit %d %q", tt.args, err, exit.Code(err), tt.code, tt.err)
		}
		if stdout, _ := output(); stdout != "" {
			t.Errorf("get %v printed %q", tt.args, stdout)
		}
	}
	f, _ := cluster(t, false, twin)
	if err := execute(f, nil, "mnist", "--kind", "pytorch"); err != nil {
		t.Errorf("get mnist --kind pytorch: %v", err)
	}
}

func TestGetKindNotInstalled(t *testing.T) {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.NotInstalled(dyn, "pytorchjobs")
	f, _, _ := cmdutiltest.Factory(t, false, dyn, nil)
	if err := execute(f, nil, "mnist", "-o", "name"); err != nil {
		t.Errorf("get mnist with PyTorchJob not installed: %v", err)
	}
	err := execute(f, nil, "pytorch/resnet")
	if err == nil || err.Error() != "PyTorchJob (kubeflow.org/v1) is not installed on this cluster" || exit.Hint(err) == "" {
		t.Errorf("get pytorch/resnet: %v", err)
	}
}

func TestGetShowsTheLatestWarningsOnly(t *testing.T) {
	var events []runtime.Object
	for i := range MaxEvents + 2 {
		events = append(events, jobclienttest.Warning("team-a", fmt.Sprintf("e%02d", i), "TFJob", "old", fmt.Sprintf("Reason%02d", i), "m", 1,
			jobclienttest.T0.Add(time.Duration(i)*time.Minute)))
	}
	f, stdout, stderr := cmdutiltest.Factory(t, true, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kubefake.NewClientset(events...))
	if err := execute(f, nil, "old"); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if strings.Contains(out, "Reason00") || strings.Contains(out, "Reason01") || !strings.Contains(out, "Reason02") || !strings.Contains(out, "Reason11") {
		t.Errorf("want the %d latest warnings:\n%s", MaxEvents, out)
	}
	if stderr.String() != "2 older warning events not shown: -o json has them all\n" {
		t.Errorf("stderr %q", stderr)
	}
	f, stdout, _ = cmdutiltest.Factory(t, true, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kubefake.NewClientset(events...))
	if err := execute(f, nil, "old", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var doc jobmodel.Document
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || len(doc.Events) != MaxEvents+2 {
		t.Errorf("-o json has %d events (%v), want all %d", len(doc.Events), err, MaxEvents+2)
	}
}

func TestGetTemplates(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mnist", "-o", "jsonpath={.status.state}"}, "Running"},
		{[]string{"mnist", "-o", `jsonpath={range .replicas[*]}{.task}={.phase} {end}`}, "ps-0=Running worker-0=Running worker-1=Failed "},
		{[]string{"mnist", "-o", "go-template={{.jobKind}}/{{.name}}"}, "tf/mnist"},
		{[]string{"mnist", "--raw", "-o", "jsonpath={.kind} {.metadata.name}"}, "TFJob mnist"},
	} {
		f, output := cluster(t, false)
		if err := execute(f, nil, tt.args...); err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if stdout, _ := output(); stdout != tt.want {
			t.Errorf("%v printed %q, want %q", tt.args, stdout, tt.want)
		}
	}
}

// A job in a namespace the user may not read: one line saying so (exit 1),
// not a "forbidden" line per kind and not "not found".
func TestGetInANamespaceRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.Refuse(dyn, "get", "*")
	f, stdout, _ := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil, "a1")
	if exit.Code(err) != exit.Error || strings.Count(err.Error(), "\n") != 0 ||
		!strings.HasPrefix(err.Error(), "you may not read jobs in namespace team-a: get is forbidden on ") ||
		!strings.Contains(exit.Hint(err), "easyai doctor -n team-a") {
		t.Errorf("get a1: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q", stdout)
	}
}
