package kubeplatform

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kueue"
)

func kueueObject(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAdmit: a job of a LocalQueue Kueue holds back is Queued, saying where
// it stands, not Suspended by its operator; one admitted keeps its state; a
// deactivated one is Suspended; a job of no LocalQueue is left alone.
func TestAdmit(t *testing.T) {
	workload := func(name, uid string, active bool, conditions string) *unstructured.Unstructured {
		a := "true"
		if !active {
			a = "false"
		}
		return kueueObject(t, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: `+name+`, namespace: team-a, labels: {kueue.x-k8s.io/job-uid: `+uid+`}, creationTimestamp: "2026-11-27T10:00:00Z"}
spec: {queueName: lq, active: `+a+`}
status: {conditions: `+conditions+`}
`)
	}
	dyn := jobclienttest.Dynamic(
		workload("w-held", "u-held", true, `[{type: QuotaReserved, status: "False", reason: Pending, message: "couldn't assign flavors to pod set w: insufficient unused quota for nvidia.com/gpu in flavor a100, 4 more needed", lastTransitionTime: "2026-11-27T10:00:00Z"}]`),
		workload("w-run", "u-run", true, `[{type: QuotaReserved, status: "True", reason: QuotaReserved, lastTransitionTime: "2026-11-27T10:00:00Z"}, {type: Admitted, status: "True", reason: Admitted, lastTransitionTime: "2026-11-27T10:00:00Z"}]`),
		workload("w-off", "u-off", false, `[]`),
	)
	labels := map[string]string{kueue.QueueLabel: "lq"}
	sums := []*jobmodel.Summary{
		{Name: "held", Namespace: "team-a", UID: "u-held", Labels: labels, Status: jobmodel.Status{State: jobmodel.Suspended}},
		{Name: "run", Namespace: "team-a", UID: "u-run", Labels: labels, Status: jobmodel.Status{State: jobmodel.Running}},
		{Name: "off", Namespace: "team-a", UID: "u-off", Labels: labels, Status: jobmodel.Status{State: jobmodel.Suspended}},
		{Name: "volcano", Namespace: "team-a", UID: "u-v", Status: jobmodel.Status{State: jobmodel.Suspended}},
	}
	var notes strings.Builder
	p := &Platform{Notes: &notes}
	p.admit(context.Background(), dyn, sums)
	if s := sums[0]; s.Status.State != jobmodel.Queued || s.ShownState() != "Queued (1st in lq, waiting for nvidia.com/gpu in flavor a100: 4 more needed)" {
		t.Errorf("held back: %+v, shown %q", s.Status, s.ShownState())
	}
	if s := sums[1]; s.Status.State != jobmodel.Running || s.Admission == nil || s.Admission.State != jobmodel.AdmissionAdmitted {
		t.Errorf("admitted: %+v %+v", s.Status, s.Admission)
	}
	if s := sums[2]; s.Status.State != jobmodel.Suspended || s.Admission.State != jobmodel.AdmissionDeactivated {
		t.Errorf("deactivated: %+v %+v", s.Status, s.Admission)
	}
	if s := sums[3]; s.Status.State != jobmodel.Suspended || s.Admission != nil {
		t.Errorf("no LocalQueue: %+v %+v", s.Status, s.Admission)
	}
	if notes.Len() != 0 {
		t.Errorf("notes: %q", notes.String())
	}
	if got := withKueueHeld([]jobmodel.State{jobmodel.Queued}); len(got) != 2 || got[1] != jobmodel.Suspended {
		t.Errorf("--status queued asks for %v", got)
	}
}
