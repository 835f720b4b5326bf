//go:build e2e

package commands

import (
	"strings"
	"testing"
	"time"

	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestSubmitJobFileFromStdinAndBadInput: a job file on standard input is
// submitted whole; a name, namespace, kubeconfig or job file the cluster
// would refuse (or that would never end) is exit 2 at once, and creates
// nothing.
func TestSubmitJobFileFromStdinAndBadInput(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	job := "kind: tf\nname: from-stdin\nimage: tf:1\ncommand: [python, train.py]\nroles: {worker: {replicas: 2}}\n"
	r := easyai.RunWithStdin(t, job, "submit", "-f", "-", "-n", ns)
	code, stdout, stderr := r.Code, r.Stdout, r.Stderr
	if code != 0 || !strings.Contains(stdout, "tf/from-stdin submitted") {
		t.Fatalf("submit -f -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	kf := kfclient.NewForConfigOrDie(c.Config).KubeflowV1().TFJobs(ns)
	got, err := kf.Get(cluster.Context(t, time.Minute), "from-stdin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := got.Spec.TFReplicaSpecs["Worker"]; w == nil || w.Replicas == nil || *w.Replicas != 2 {
		t.Errorf("the job file's workers were not submitted: %+v", got.Spec.TFReplicaSpecs)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "tf", "--name", "a.b", "--image", "x", "-n", ns, "--", "run"}, `--name "a.b"`},
		{[]string{"submit", "tf", "--image", "x", "--workers", "2147483648", "-n", ns, "--", "run"}, "--workers 2147483648"},
		{[]string{"submit", "tf", "--image", "x", "--set", "name=MyJob", "-n", ns, "--", "run"}, "--set name=MyJob"},
		{[]string{"submit", "-f", "/dev/zero", "-n", ns}, "-f /dev/zero"},
		{[]string{"list", "-n", "../x"}, `-n "../x"`},
		{[]string{"get", "x", "-n", "Bad_NS"}, `-n "Bad_NS"`},
		{[]string{"list", "-n", ns, "--kubeconfig", "/dev/zero"}, "--kubeconfig /dev/zero: not a regular file"},
	} {
		start := time.Now()
		res := easyai.Run(t, tc.args...)
		if res.Code != 2 || !strings.Contains(res.Stderr, tc.want) {
			t.Errorf("easyai %v: exit %d, stderr %q; want exit 2 naming %s", tc.args, res.Code, res.Stderr, tc.want)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("easyai %v took %s", tc.args, d)
		}
	}
	jobs, err := kf.List(cluster.Context(t, time.Minute), metav1.ListOptions{})
	if err != nil || len(jobs.Items) != 1 {
		t.Errorf("bad submits created jobs: %d (%v)", len(jobs.Items), err)
	}
}
