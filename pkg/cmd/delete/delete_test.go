package delete

import (
	"context"
	"reflect"
	"strings"
	"testing"

	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdDelete(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdDelete(t *testing.T) {
	tests := []struct {
		args string
		tty  bool
		refs []string
		all  bool
		yes  bool
	}{
		{args: "mnist --yes", refs: []string{"mnist"}, yes: true},
		{args: "mnist", tty: true, refs: []string{"mnist"}},
		{args: "tf/mnist pytorchjob/resnet mnist tf/mnist -y", refs: []string{"tf/mnist", "pytorch/resnet", "mnist"}, yes: true},
		{args: "a b --kind pytorch --yes", refs: []string{"pytorch/a", "pytorch/b"}, yes: true},
		{args: "--all --experiment lr-sweep -l team=vision --yes", all: true, yes: true},
		{args: "--all", tty: true, all: true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, tt.tty, nil, nil)
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, r := range got.Refs {
				refs = append(refs, r.String())
			}
			if !reflect.DeepEqual(refs, tt.refs) || got.All != tt.all || got.Yes != tt.yes {
				t.Errorf("refs %v all %v yes %v, want %v %v %v", refs, got.All, got.Yes, tt.refs, tt.all, tt.yes)
			}
		})
	}
}

func TestNewCmdDeleteBadInput(t *testing.T) {
	tests := []struct {
		args string
		tty  bool
		err  string
	}{
		{"mnist", false, "not deleting without confirmation: pass --yes (there is no terminal to ask on)"},
		{"--all", false, "not deleting without confirmation: pass --yes (there is no terminal to ask on)"},
		{"", true, "name the jobs to delete, or give --all"},
		{"mnist --all --yes", false, "--all deletes every job: give it without job names (got mnist)"},
		{"mnist -l a=b --yes", false, "-l and --experiment select jobs for --all: give --all too, or name the jobs"},
		{"--all -l a==b=c --yes", false, `--selector "a==b=c": `},
		{"--all --kind nosuchkind --yes", false, `--kind "nosuchkind": unknown kind (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{"nosuchkind/mnist --yes", false, `"nosuchkind/mnist": unknown kind "nosuchkind" (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, tt.tty, nil, nil)
			err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
		})
	}
}

// deleted lists what the fake client was asked to delete, with the propagation.
func deleted(dyn *dynamicfake.FakeDynamicClient) []string {
	var out []string
	for _, a := range dyn.Actions() {
		if d, ok := a.(clienttesting.DeleteAction); ok {
			policy := ""
			if p := d.GetDeleteOptions().PropagationPolicy; p != nil {
				policy = string(*p)
			}
			out = append(out, d.GetNamespace()+"/"+d.GetResource().Resource+"/"+d.GetName()+" "+policy)
		}
	}
	return out
}

func TestDeleteRun(t *testing.T) {
	tests := []struct {
		name    string
		tty     bool
		answer  bool
		args    string
		deleted []string
		stdout  string
		asked   []string
		code    int
		err     string
	}{
		{name: "with --yes", args: "mnist pytorch/resnet --yes",
			deleted: []string{"team-a/tfjobs/mnist Background", "team-a/pytorchjobs/resnet Background"},
			stdout:  "deleted tf/mnist\ndeleted pytorch/resnet\n"},
		{name: "confirmed on a terminal", tty: true, answer: true, args: "tf/mnist",
			deleted: []string{"team-a/tfjobs/mnist Background"}, stdout: "deleted tf/mnist\n",
			asked: []string{"Delete tf/mnist in namespace team-a?"}},
		{name: "refused on a terminal", tty: true, answer: false, args: "mnist old",
			asked: []string{"Delete 2 jobs in namespace team-a: tf/mnist, tf/old?"}, code: exit.Error, err: "Nothing deleted."},
		{name: "--yes on a terminal asks nothing", tty: true, args: "old -y",
			deleted: []string{"team-a/tfjobs/old Background"}, stdout: "deleted tf/old\n"},
		{name: "a missing job after the others", args: "ghost mnist tf/ghost2 --yes",
			deleted: []string{"team-a/tfjobs/mnist Background"}, stdout: "deleted tf/mnist\n",
			code: exit.NotFound, err: "jobs ghost, tf/ghost2 not found in namespace team-a"},
		{name: "only missing jobs", args: "ghost --yes", code: exit.NotFound, err: "job ghost not found in namespace team-a"},
		{name: "--all deletes easyai's jobs only", args: "--all --yes",
			deleted: []string{"team-a/tfjobs/mnist Background", "team-a/tfjobs/old Background"},
			stdout:  "deleted tf/mnist\ndeleted tf/old\n"},
		{name: "--all of an experiment", tty: true, answer: true, args: "--all --experiment lr-sweep",
			deleted: []string{"team-a/tfjobs/mnist Background"}, stdout: "deleted tf/mnist\n",
			asked: []string{"Delete tf/mnist in namespace team-a?"}},
		{name: "--all of a kind", args: "--all --kind pytorch --yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dyn := jobclienttest.Dynamic(jobclienttest.Fixtures()...)
			f, stdout, stderr := cmdutiltest.Factory(t, tt.tty, dyn, nil)
			prompt := &cmdutiltest.Confirm{Answer: tt.answer}
			f.Prompter = prompt
			err := execute(f, nil, strings.Fields(tt.args)...)
			if exit.Code(err) != tt.code || (err != nil && err.Error() != tt.err) {
				t.Errorf("error %v (exit %d), want exit %d %q", err, exit.Code(err), tt.code, tt.err)
			}
			if got := deleted(dyn); !reflect.DeepEqual(got, tt.deleted) {
				t.Errorf("deleted %v, want %v", got, tt.deleted)
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout, tt.stdout)
			}
			wantStderr := ""
			if tt.name == "--all of a kind" {
				wantStderr = "No jobs to delete in namespace team-a.\n"
			}
			if stderr.String() != wantStderr {
				t.Errorf("stderr %q, want %q", stderr, wantStderr)
			}
			if !reflect.DeepEqual(prompt.Questions, tt.asked) {
				t.Errorf("asked %q, want %q", prompt.Questions, tt.asked)
			}
		})
	}
}

func TestDeleteAmbiguousNameDeletesNothing(t *testing.T) {
	dyn := jobclienttest.Dynamic(append(jobclienttest.Fixtures(), jobclienttest.Job{APIKind: "PyTorchJob", Name: "old", Created: jobclienttest.T0}.Object())...)
	f, stdout, _ := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil, "mnist", "old", "--yes")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "there are 2 jobs named old") {
		t.Errorf("error %v", err)
	}
	if got := deleted(dyn); len(got) != 0 || stdout.Len() != 0 {
		t.Errorf("deleted %v, printed %q", got, stdout)
	}
}
