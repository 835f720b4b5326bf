package list

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
)

func TestMain(m *testing.M) {
	time.Local = time.UTC
	os.Exit(m.Run())
}

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdList(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdList(t *testing.T) {
	tests := []struct {
		args   string
		want   Options
		kinds  []string
		states []jobmodel.State
	}{
		{args: "", want: Options{}},
		{args: "-A -o wide", want: Options{AllNamespaces: true, Print: printers.NewPrintFlags("").WithOutput("wide")}},
		{args: "--kind tf --kind pytorchjob", kinds: []string{"tf", "pytorch"}},
		{args: "--kind tfjob,TFJob,torch", kinds: []string{"tf", "pytorch"}},
		{args: "--status running,QUEUED --status Failed", states: []jobmodel.State{jobmodel.Running, jobmodel.Queued, jobmodel.Failed}},
		{args: "--experiment lr-sweep -l team=vision,tier!=dev --user alice@corp -o json",
			want: Options{Experiment: "lr-sweep", Selector: "team=vision,tier!=dev", User: "alice@corp", Print: printers.NewPrintFlags("").WithOutput("json")}},
		{args: "--mine -o name", want: Options{Mine: true, Print: printers.NewPrintFlags("").WithOutput("name")}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			var got *Options
			err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, k := range got.Kinds {
				kinds = append(kinds, k.Name())
			}
			if !reflect.DeepEqual(kinds, tt.kinds) || !reflect.DeepEqual(got.States, tt.states) {
				t.Errorf("kinds %v states %v, want %v %v", kinds, got.States, tt.kinds, tt.states)
			}
			tt.want.KindNames, tt.want.StatusNames = got.KindNames, got.StatusNames
			if got.AllNamespaces != tt.want.AllNamespaces || got.Print.Output != outputOf(tt.want) || got.Experiment != tt.want.Experiment ||
				got.Selector != tt.want.Selector || got.User != tt.want.User || got.Mine != tt.want.Mine {
				t.Errorf("options %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewCmdListBadInput(t *testing.T) {
	tests := []struct{ args, err string }{
		{"--status bogus", `--status "bogus": not a state (states: queued, pending, running, succeeded, failed, suspended, stopping, stopped, unknown)`},
		{"--status running,nope", `--status "nope": not a state (states: queued, pending, running, succeeded, failed, suspended, stopping, stopped, unknown)`},
		{"--kind nosuchkind", `--kind "nosuchkind": unknown kind (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{"-o table", `-o "table": must be one of wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=FILE`},
		{"--mine --user bob", `--mine and --user "bob": give one of them`},
		{"-l team==a=b", `--selector "team==a=b"`},
		{"--experiment a/b", `--experiment "a/b": `},
		{"mnist", `"list" takes no arguments, got ["mnist"]`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
		})
	}
}

func TestListRun(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		args   string
		stdout string
		stderr string
	}{
		{name: "table", tty: true, stdout: "" +
			"NAME     KIND      STATUS      WORKERS   GPUS   AGE   DURATION   USER\n" +
			"resnet   pytorch   Queued      0/4       32     50m   -          (external)\n" +
			"mnist    tf        Running     3/3       2      60m   59m        alice@corp\n" +
			"old      tf        Succeeded   0/1       0      25h   60m        bob\n"},
		{name: "tab-separated", tty: false, stdout: "" +
			"resnet\tpytorch\tQueued\t0/4\t32\t50m\t-\t(external)\n" +
			"mnist\ttf\tRunning\t3/3\t2\t60m\t59m\talice@corp\n" +
			"old\ttf\tSucceeded\t0/1\t0\t25h\t60m\tbob\n"},
		{name: "wide", tty: true, args: "-o wide", stdout: "" +
			"NAME     KIND      STATUS      WORKERS   GPUS   AGE   DURATION   USER         EXPERIMENT   REASON              MANAGED-BY\n" +
			"resnet   pytorch   Queued      0/4       32     50m   -          (external)   -            PyTorchJobCreated   -\n" +
			"mnist    tf        Running     3/3       2      60m   59m        alice@corp   lr-sweep     TFJobRunning        easyai\n" +
			"old      tf        Succeeded   0/1       0      25h   60m        bob          -            TFJobSucceeded      easyai\n"},
		{name: "all namespaces", tty: true, args: "-A --status failed,succeeded", stdout: "" +
			"NAMESPACE   NAME   KIND   STATUS      WORKERS   GPUS   AGE   DURATION   USER\n" +
			"team-a      old    tf     Succeeded   0/1       0      25h   60m        bob\n" +
			"team-b      bert   tf     Failed      0/4       4      30m   9m         alice@corp\n"},
		{name: "all namespaces, tab-separated", tty: false, args: "-A --user alice@corp", stdout: "" +
			"team-a\tmnist\ttf\tRunning\t3/3\t2\t60m\t59m\talice@corp\n" +
			"team-b\tbert\ttf\tFailed\t0/4\t4\t30m\t9m\talice@corp\n"},
		{name: "kind and experiment", tty: false, args: "--kind tf --experiment lr-sweep", stdout: "mnist\ttf\tRunning\t3/3\t2\t60m\t59m\talice@corp\n"},
		{name: "names", tty: true, args: "-o name", stdout: "pytorch/resnet\ntf/mnist\ntf/old\n"},
		{name: "nothing found", tty: true, args: "--status suspended", stderr: "No jobs found in namespace team-a.\n"},
		{name: "nothing found anywhere", tty: false, args: "-A -l team=none", stderr: "No jobs found.\n"},
		{name: "nothing found, as JSON", tty: false, args: "--status suspended -o json",
			stdout: "{\n  \"apiVersion\": \"easyai.io/v1\",\n  \"kind\": \"JobList\",\n  \"items\": []\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := cmdutiltest.Factory(t, tt.tty, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
			if err := execute(f, nil, strings.Fields(tt.args)...); err != nil {
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

func TestListJSONAndYAML(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f, stdout, stderr := cmdutiltest.Factory(t, tty, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
		if err := execute(f, nil, "-o", "json"); err != nil {
			t.Fatal(err)
		}
		var l jobmodel.List
		if err := json.Unmarshal(stdout.Bytes(), &l); err != nil {
			t.Fatalf("stdout is no JSON: %v\n%s", err, stdout)
		}
		if l.APIVersion != "easyai.io/v1" || l.Kind != "JobList" || len(l.Items) != 3 || stderr.Len() != 0 {
			t.Fatalf("document %+v, stderr %q", l, stderr)
		}
		mnist := l.Items[1]
		if mnist.Name != "mnist" || mnist.KindName != "tf" || mnist.ObjectKind != "TFJob" || mnist.Status.State != jobmodel.Running ||
			mnist.Workers != (jobmodel.ReplicaCount{Ready: 3, Total: 3}) || mnist.GPUs != 2 || mnist.User != "alice@corp" || mnist.DurationSeconds != 59*60 {
			t.Errorf("mnist %+v", mnist)
		}
		if resnet := l.Items[0]; resnet.ManagedBy != "" || resnet.User != "" || resnet.Status.State != jobmodel.Queued {
			t.Errorf("resnet %+v", resnet)
		}
	}
	f, stdout, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	if err := execute(f, nil, "-o", "yaml", "--kind", "pytorch"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"apiVersion: easyai.io/v1\n", "kind: JobList\n", "- created: \"2025-03-01T12:10:00Z\"\n", "  jobKind: pytorch\n", "    state: Queued\n"} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("YAML lacks %q:\n%s", line, stdout)
		}
	}
}

func TestListWarnsOfKindsNotInstalled(t *testing.T) {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.NotInstalled(dyn, "pytorchjobs")
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	// Without --kind, a kind the cluster does not serve is skipped quietly.
	if err := execute(f, nil, "-o", "name"); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "tf/mnist\ntf/old\n" || stderr.String() != "" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	// Asked for, it is a warning.
	stdout.Reset()
	if err := execute(f, nil, "-o", "name", "--kind", "tf,pytorch"); err != nil {
		t.Fatal(err)
	}
	want := "Warning: PyTorchJob (kubeflow.org/v1) is not installed on this cluster, skipped (install the Kubeflow training-operator (v1), which serves it)\n"
	if stdout.String() != "tf/mnist\ntf/old\n" || stderr.String() != want {
		t.Errorf("stdout %q\nstderr %q\nwant   %q", stdout, stderr, want)
	}
}

func TestListWhenNoKindIsInstalled(t *testing.T) {
	dyn := jobclienttest.Dynamic()
	for _, k := range jobclienttest.Registry().All() {
		jobclienttest.NotInstalled(dyn, k.Resource().Resource)
	}
	f, _, _ := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil)
	if err == nil || !strings.Contains(err.Error(), "serves none of the job kinds") {
		t.Errorf("err %v", err)
	}
}

func TestListMine(t *testing.T) {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "selfsubjectreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{
			UserInfo: authenticationv1.UserInfo{Username: "alice@corp"}}}, nil
	})
	f, stdout, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kubernetes.Interface(kube))
	if err := execute(f, nil, "--mine", "-A", "-o", "name"); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "tf/mnist\ntf/bert\n" {
		t.Errorf("stdout %q", stdout)
	}
}

func TestListTemplates(t *testing.T) {
	f, stdout, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	if err := execute(f, nil, "-A", "-o", `jsonpath={range .items[*]}{.jobKind}/{.name} {.status.state}{"\n"}{end}`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "tf/mnist Running\n") || !strings.Contains(stdout.String(), "pytorch/resnet Queued\n") {
		t.Errorf("stdout %q", stdout)
	}
	if err := execute(f, nil, "-o", "jsonpath={.items[0"); exit.Code(err) != exit.Usage {
		t.Errorf("a bad template: %v", err)
	}
}

// A namespace-scoped user: the kinds she may read are listed (exit 0), each
// refused kind is one line on stderr.
func TestListSkipsKindsRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.Refuse(dyn, "list", "colossalaijobs")
	jobclienttest.Refuse(dyn, "list", "jobs")
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	if err := execute(f, nil, "-o", "name"); err != nil {
		t.Fatal(err)
	}
	want := "Warning: cannot list colossalaijobs in team-a: forbidden\nWarning: cannot list jobs in team-a: forbidden\n"
	if stdout.String() != "pytorch/resnet\ntf/mnist\ntf/old\n" || stderr.String() != want {
		t.Errorf("stdout %q\nstderr %q\nwant   %q", stdout, stderr, want)
	}
}

// Refused everything: exit 1 naming the namespace and what is missing; -A
// without cluster-wide rights says so, with the hint to use -n.
func TestListWhenEveryKindIsRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
	jobclienttest.Refuse(dyn, "list", "*")
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil)
	if exit.Code(err) != exit.Error || !strings.HasPrefix(err.Error(), "you may not list jobs in namespace team-a: list is forbidden on colossalaijobs.batch.tensorstack.dev, ") ||
		!strings.Contains(exit.Hint(err), "easyai doctor -n team-a") {
		t.Errorf("list: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	err = execute(f, nil, "-A")
	if exit.Code(err) != exit.Error || !strings.HasPrefix(err.Error(), "you may not list jobs across namespaces: ") ||
		!strings.HasPrefix(exit.Hint(err), "name a namespace you may read with -n NAMESPACE") {
		t.Errorf("list -A: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	if stdout.String() != "" || stderr.String() != "" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
}

func outputOf(o Options) string {
	if o.Print == nil {
		return ""
	}
	return o.Print.Output
}
