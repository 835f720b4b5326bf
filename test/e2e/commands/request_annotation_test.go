//go:build e2e

package commands

import (
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestGetWarnsOfABrokenRequestAnnotation: a job whose easyai.io/request
// annotation someone edited into what is not JSON is still shown, with a
// warning on stderr and the image and command of its pod templates.
func TestGetWarnsOfABrokenRequestAnnotation(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	j := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: "edited", Namespace: ns, Labels: labels("edited", "tf", "alice", ""),
			Annotations: map[string]string{jobmodel.UserAnnotation: "alice", jobmodel.RequestAnnotation: `{"image": "example.com/train:2",`}},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypeWorker: replica(1, 0, 0, "tensorflow"),
		}},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(cluster.Context(t, 30*time.Second), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	r := easyai.Run(t, "get", "edited", "-n", ns).MustSucceed(t)
	warning := "Warning: tf/edited: annotation " + jobmodel.RequestAnnotation + ": unexpected end of JSON input: its image and command are read from its pod templates\n"
	if r.Stderr != warning {
		t.Errorf("stderr %q, want %q", r.Stderr, warning)
	}
	for _, line := range []string{"Name:       edited\n", "Image:      example.com/train:1\n", "Command:    python train.py\n"} {
		if !strings.Contains(r.Stdout, line) {
			t.Errorf("get lacks %q:\n%s", line, r.Stdout)
		}
	}
}
