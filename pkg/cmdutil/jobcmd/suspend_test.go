package jobcmd_test

import (
	"context"
	"errors"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Change asks for the change, says it on stdout and, on a terminal without
// --wait, what comes next on stderr; a job gone meanwhile is not found.
func TestSuspendOptionsChange(t *testing.T) {
	for _, tc := range []struct {
		tty            bool
		err            error
		code           int
		stdout, stderr string
	}{
		{tty: false, stdout: "suspended tf/mnist\n"},
		{tty: true, stdout: "suspended tf/mnist\n", stderr: "Resume it later.\n"},
		{err: apierrors.NewNotFound(schema.GroupResource{Group: "kubeflow.org", Resource: "tfjobs"}, "mnist"), code: exit.NotFound},
		{err: errors.New("refused"), code: exit.Error},
	} {
		f, stdout, stderr := cmdutiltest.Factory(t, tc.tty, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
		o := &jobcmd.SuspendOptions{Factory: f, IO: f.IOStreams, JobOptions: cmdutil.JobOptions{JobArg: "mnist"}}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Complete(); err != nil {
			t.Fatal(err)
		}
		s, err := o.FindSuspendable(context.Background(), "suspended")
		if err != nil {
			t.Fatal(err)
		}
		var asked string
		change := func(_ context.Context, _ dynamic.Interface, obj *unstructured.Unstructured) error {
			asked = obj.GetName()
			return tc.err
		}
		err = o.Change(context.Background(), s, change, "suspended", waiter.Suspended, "Resume it later.")
		if exit.Code(err) != tc.code || asked != "mnist" || stdout.String() != tc.stdout || stderr.String() != tc.stderr {
			t.Errorf("tty %v, change %v: %v (exit %d), asked %q, stdout %q, stderr %q", tc.tty, tc.err, err, exit.Code(err), asked, stdout, stderr)
		}
	}
}
