package serving

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/logs"
)

var _ logs.Workload = Workload{}

// TestWorkloadForTheLogsEngine: the engine reads every version's pods (or
// one version's), each its own replica, and a serving never ends.
func TestWorkloadForTheLogsEngine(t *testing.T) {
	if got := (Workload{Serving: "bert"}).PodSelector("bert-v1"); got != "easyai.io/serving=bert" {
		t.Errorf("selector %q", got)
	}
	if got := (Workload{Serving: "bert", Version: "v2"}).PodSelector("bert-v2"); got != "easyai.io/serving=bert,easyai.io/serving-version=v2" {
		t.Errorf("selector of v2 %q", got)
	}
	pods := []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "bert-v2-abc-x1", Labels: map[string]string{VersionLabel: "v2"}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}}
	rs, err := Workload{Serving: "bert"}.Replicas(nil, pods)
	if err != nil || len(rs) != 1 || rs[0].Task != "bert-v2-abc-x1" || rs[0].Pod != "bert-v2-abc-x1" || rs[0].Role != "v2" || rs[0].Phase != "Running" {
		t.Errorf("replicas %+v, %v", rs, err)
	}
	if s, _ := (Workload{}).Summarize(nil, ""); s.Status.State.Final() || s.Status.State != jobmodel.Running {
		t.Errorf("a serving's state %v", s.Status.State)
	}
}
