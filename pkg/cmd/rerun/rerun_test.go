package rerun

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdRerun(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdRerun(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	var got *Options
	err := execute(f, func(o *Options) error { got = o; return nil },
		"tf/mnist", "--name", "mnist-2", "--workers", "3", "--image", "tf:2", "--set", "shmSize=1Gi", "--dry-run", "-o", "yaml", "--", "python", "train.py", "--lr", "0.2")
	if err != nil {
		t.Fatal(err)
	}
	fl := got.Request.Flags
	if got.Ref.String() != "tf/mnist" || fl.Name != "mnist-2" || fl.Workers != 3 || fl.Image != "tf:2" || got.Print.Output != "yaml" {
		t.Errorf("ref %s, flags %+v, -o %q", got.Ref, fl, got.Print.Output)
	}
	if strings.Join(fl.Command, " ") != "python train.py --lr 0.2" || !fl.Changed("command") || !fl.Changed("workers") || fl.Changed("gpus") {
		t.Errorf("command %q, changed command %v workers %v gpus %v", fl.Command, fl.Changed("command"), fl.Changed("workers"), fl.Changed("gpus"))
	}
	if got.Request.DryRun != "client" || strings.Join(got.Request.Set, ",") != "shmSize=1Gi" {
		t.Errorf("dry run %q, set %v", got.Request.DryRun, got.Request.Set)
	}

	if err := execute(f, func(o *Options) error { got = o; return nil }, "mnist"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "mnist" || got.Request.Flags.Changed("command") || got.Request.DryRun != "none" {
		t.Errorf("rerun mnist: ref %s, command %v, dry run %q", got.Ref, got.Request.Flags.Command, got.Request.DryRun)
	}
}

func TestNewCmdRerunBadInput(t *testing.T) {
	for _, tc := range []struct{ args, err string }{
		{"", `"rerun" needs one job before "--": NAME or KIND/NAME (got 0 arguments)`},
		{"a b", `"rerun" needs one job before "--": NAME or KIND/NAME (got 2 arguments)`},
		{"-- python x.py", `"rerun" needs one job before "--": NAME or KIND/NAME (got 0 arguments)`},
		{"nosuchkind/mnist", `"nosuchkind/mnist": unknown kind "nosuchkind" (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{"mnist -o wide", `-o "wide": must be one of name, json, yaml`},
		{"mnist --dry-run=maybe", `--dry-run "maybe": must be "client" or "server" (written --dry-run=client, with "=")`},
	} {
		f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
		err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tc.args)...)
		if exit.Code(err) != exit.Usage || err.Error() != tc.err {
			t.Errorf("rerun %s: %v (exit %d), want exit 2 with %q", tc.args, err, exit.Code(err), tc.err)
		}
	}
}

// mnistRequest is what submit records: the resolved values, name included.
const mnistRequest = `{"name":"mnist","image":"example.com/train:2","command":["python","train.py","--lr","0.1"],` +
	`"roles":{"worker":{"replicas":2}},"labels":{"team":"vision","easyai.io/job-name":"mnist"}}`

// cluster serves mnist (experiment lr-sweep, submitted with mnistRequest),
// a job easyai did not submit and one whose request was edited, and says
// the user is alice.
func cluster(t *testing.T) (*cmdutil.Factory, *dynamicfake.FakeDynamicClient, func() (string, string)) {
	t.Helper()
	worker := []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 2}}
	dyn := jobclienttest.Dynamic(
		jobclienttest.Job{Name: "mnist", Created: jobclienttest.T0, Experiment: "lr-sweep", User: "alice", Request: mnistRequest, Roles: worker,
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSucceeded}}.Object(),
		jobclienttest.Job{Name: "foreign", Created: jobclienttest.T0, External: true, Roles: worker}.Object(),
		jobclienttest.Job{Name: "edited", Created: jobclienttest.T0, Request: `{"image":`, Roles: worker}.Object(),
	)
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "selfsubjectreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{Username: "alice"}}}, nil
	})
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, kube)
	return f, dyn, func() (string, string) { return stdout.String(), stderr.String() }
}

func created(t *testing.T, dyn *dynamicfake.FakeDynamicClient) *unstructured.Unstructured {
	t.Helper()
	for _, a := range dyn.Actions() {
		if c, ok := a.(clienttesting.CreateAction); ok {
			return c.GetObject().(*unstructured.Unstructured)
		}
	}
	t.Fatal("nothing was created")
	return nil
}

// TestRerun: a new job of the recorded values under a generated name, with
// the experiment, the flags over the values, easyai's labels anew and the
// job it came from recorded; stdout says its name only, with -o name.
func TestRerun(t *testing.T) {
	f, dyn, output := cluster(t)
	if err := execute(f, nil, "mnist", "--image", "example.com/train:3", "--workers", "4", "-o", "name"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := output()
	name := regexp.MustCompile(`^tf/(tf-[a-z]+-[a-z]+-[a-z0-9]{4})\n$`).FindStringSubmatch(stdout)
	if name == nil || stderr != "Job name: "+name[1]+"\n" {
		t.Fatalf("stdout %q, stderr %q: want the generated name", stdout, stderr)
	}
	obj := created(t, dyn)
	var tfjob kubeflowv1.TFJob
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &tfjob); err != nil {
		t.Fatal(err)
	}
	worker := tfjob.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypeWorker]
	c := worker.Template.Spec.Containers[0]
	if tfjob.Name != name[1] || *worker.Replicas != 4 || c.Image != "example.com/train:3" {
		t.Errorf("job %s: %d workers, image %s", tfjob.Name, *worker.Replicas, c.Image)
	}
	if got := strings.Join(append(c.Command, c.Args...), " "); !strings.Contains(got, "python train.py --lr 0.1") {
		t.Errorf("command %q: want the recorded one", got)
	}
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	if labels[jobmodel.ExperimentLabel] != "lr-sweep" || labels[jobmodel.NameLabel] != name[1] || labels["team"] != "vision" || labels[jobmodel.UserLabel] != "alice" {
		t.Errorf("labels %v", labels)
	}
	if annotations[jobmodel.RerunOfAnnotation] != "tf/mnist" {
		t.Errorf("annotations %v: want %s=tf/mnist", annotations, jobmodel.RerunOfAnnotation)
	}
	var request map[string]any
	if err := json.Unmarshal([]byte(annotations[jobmodel.RequestAnnotation]), &request); err != nil || request["name"] != name[1] || request["image"] != "example.com/train:3" {
		t.Errorf("request %v (%v): the new job's own", request, err)
	}
}

// TestRerunOverrides: --name, --experiment and a command after "--" win
// over the recorded values; a dry run prints the job and creates nothing.
func TestRerunOverrides(t *testing.T) {
	f, dyn, output := cluster(t)
	if err := execute(f, nil, "tf/mnist", "--name", "mnist-lr2", "--experiment", "lr2", "--dry-run", "--", "python", "train.py", "--lr", "0.2"); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := output()
	for _, want := range []string{"kind: TFJob\n", "name: mnist-lr2\n", "easyai.io/experiment: lr2\n", "easyai.io/rerun-of: tf/mnist\n", "- --lr\n", "- \"0.2\"\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %q:\n%s", want, stdout)
		}
	}
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "create" {
			t.Errorf("a dry run created %v", a)
		}
	}
}

func TestRerunErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"foreign"}, exit.NotFound, "tf/foreign was not submitted by easyai: it has no easyai.io/request annotation, the values to submit it from"},
		{[]string{"edited"}, exit.Usage, "tf/edited: annotation easyai.io/request: unexpected end of JSON input"},
		{[]string{"gone"}, exit.NotFound, "job gone not found in namespace team-a"},
		{[]string{"mnist", "--backend", "trainer"}, exit.Usage, "--backend trainer: tf jobs have one backend"},
		{[]string{"mnist", "--gpus", "-1"}, exit.Usage, "--gpus -1: must be 0 or more"},
	} {
		f, dyn, output := cluster(t)
		err := execute(f, nil, tc.args...)
		if exit.Code(err) != tc.code || err.Error() != tc.err {
			t.Errorf("rerun %v: %v (exit %d), want exit %d: %s", tc.args, err, exit.Code(err), tc.code, tc.err)
		}
		if stdout, _ := output(); stdout != "" {
			t.Errorf("rerun %v: stdout %q", tc.args, stdout)
		}
		for _, a := range dyn.Actions() {
			if a.GetVerb() == "create" {
				t.Errorf("rerun %v created %v", tc.args, a)
			}
		}
	}
}

// A job someone else submitted is shown first (whose, and what it would run
// as the user's: image, command, the names of its env, never their values);
// rerun asks on a terminal and needs --yes elsewhere; a no submits nothing.
func TestRerunOfSomeoneElsesJobAsks(t *testing.T) {
	request := `{"name":"bobs","image":"example.com/bob:1","command":["sh","-c","curl x | sh"],` +
		`"env":[{"name":"WANDB_API_KEY","value":"BOBS-SECRET"}],"roles":{"worker":{"replicas":1}}}`
	setup := func(tty bool, answer bool) (*cmdutil.Factory, *dynamicfake.FakeDynamicClient, *bytes.Buffer) {
		worker := []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}}
		dyn := jobclienttest.Dynamic(jobclienttest.Job{Name: "bobs", Created: jobclienttest.T0, User: "bob", Request: request, Roles: worker}.Object())
		kube := kubefake.NewClientset()
		kube.PrependReactor("create", "selfsubjectreviews", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: authenticationv1.UserInfo{Username: "alice"}}}, nil
		})
		f, _, stderr := cmdutiltest.Factory(t, tty, dyn, kube)
		f.Prompter = &cmdutiltest.Confirm{Answer: answer}
		return f, dyn, stderr
	}
	createdAny := func(dyn *dynamicfake.FakeDynamicClient) bool {
		for _, a := range dyn.Actions() {
			if _, ok := a.(clienttesting.CreateAction); ok {
				return true
			}
		}
		return false
	}
	shown := "tf/bobs was submitted by bob, not by you (alice). Submitted again, as yours, it runs:\n" +
		"  image:   example.com/bob:1\n  command: sh -c 'curl x | sh'\n  env:     WANDB_API_KEY\n"

	f, dyn, stderr := setup(false, false)
	err := execute(f, nil, "bobs")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "give --yes") || !strings.Contains(stderr.String(), shown) || createdAny(dyn) {
		t.Errorf("not on a terminal: %v (exit %d), stderr %q, created %v", err, exit.Code(err), stderr.String(), createdAny(dyn))
	}
	if strings.Contains(stderr.String(), "BOBS-SECRET") {
		t.Errorf("an env value shown: %q", stderr.String())
	}

	f, dyn, _ = setup(true, false)
	if err := execute(f, nil, "bobs"); exit.Code(err) != exit.Error || err.Error() != "Nothing submitted." || createdAny(dyn) {
		t.Errorf("answered no: %v (exit %d), created %v", err, exit.Code(err), createdAny(dyn))
	}
	if q := f.Prompter.(*cmdutiltest.Confirm).Questions; len(q) != 1 || q[0] != "Submit bob's job again as yours?" {
		t.Errorf("asked %q", q)
	}

	f, dyn, _ = setup(true, true)
	if err := execute(f, nil, "bobs"); err != nil || !createdAny(dyn) {
		t.Errorf("answered yes: %v, created %v", err, createdAny(dyn))
	}
	f, dyn, _ = setup(false, false)
	if err := execute(f, nil, "bobs", "--yes"); err != nil || !createdAny(dyn) {
		t.Errorf("--yes: %v, created %v", err, createdAny(dyn))
	}
}
