package kueue

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// workload is a Workload of job uid in LocalQueue lq, asking for gpus
// GPUs on each of 2 pods, made at minute created, with conditions.
func workload(t *testing.T, name, uid string, priority, gpus, created int, conditions string) Workload {
	t.Helper()
	doc := `
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: ` + name + `
  namespace: team-a
  creationTimestamp: "2026-11-27T10:` + twoDigits(created) + `:00Z"
  labels: {kueue.x-k8s.io/job-uid: ` + uid + `}
  ownerReferences: [{apiVersion: kubeflow.org/v1, kind: TFJob, name: ` + strings.TrimPrefix(name, "tfjob-") + `, uid: ` + uid + `, controller: true}]
spec:
  queueName: lq
  priority: ` + itoa(priority) + `
  podSets:
  - name: worker
    count: 2
    template:
      spec:
        containers:
        - name: tensorflow
          resources: {requests: {nvidia.com/gpu: "` + itoa(gpus) + `", cpu: "1"}}
status:
  conditions: ` + conditions
	w, err := WorkloadOf(object(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func itoa(n int) string { return strconv.Itoa(n) }

func twoDigits(n int) string { return fmt.Sprintf("%02d", n) }

const (
	admittedOn = `[{type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok, lastTransitionTime: "2026-11-27T10:00:00Z"},
    {type: Admitted, status: "True", reason: Admitted, message: ok, lastTransitionTime: "2026-11-27T10:00:00Z"}]
  admission: {clusterQueue: gpu, podSetAssignments: [{name: worker, flavors: {nvidia.com/gpu: a100, cpu: default}}]}`
	waitingFor4 = `[{type: QuotaReserved, status: "False", reason: Pending, lastTransitionTime: "2026-11-27T10:00:00Z",
    message: "couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor a100, 4 more needed"}]`
)

// TestAdmissions: admitted jobs name their ClusterQueue and flavors;
// waiting ones their place in their LocalQueue (priority first, then
// time) and the quota they wait for; a preempted one what preempted it.
func TestAdmissions(t *testing.T) {
	preempted := `[{type: QuotaReserved, status: "False", reason: Pending, lastTransitionTime: "2026-11-27T10:00:00Z",
    message: "couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor a100, 8 more needed"},
    {type: Evicted, status: "True", reason: Preempted, message: "Preempted to accommodate a workload (UID: w-9, JobUID: uid-urgent) due to prioritization in the ClusterQueue", lastTransitionTime: "2026-11-27T10:05:00Z"},
    {type: Preempted, status: "True", reason: InClusterQueue, message: "Preempted to accommodate a workload (UID: w-9, JobUID: uid-urgent) due to prioritization in the ClusterQueue; preemptor path: /gpu; preemptee path: /gpu", lastTransitionTime: "2026-11-27T10:05:00Z"}]`
	workloads := []Workload{
		workload(t, "tfjob-a", "uid-a", 0, 2, 1, admittedOn),
		workload(t, "tfjob-late", "uid-late", 0, 2, 9, waitingFor4),
		workload(t, "tfjob-early", "uid-early", 0, 2, 3, waitingFor4),
		workload(t, "tfjob-high", "uid-high", 100, 2, 20, waitingFor4),
		workload(t, "tfjob-low", "uid-low", 0, 4, 2, preempted),
		workload(t, "tfjob-urgent", "uid-urgent", 1000, 4, 4, admittedOn),
	}
	got := Admissions(workloads, nil)
	for uid, want := range map[string]string{
		"uid-a":      "Admitted (cluster-queue gpu, flavor a100, default)",
		"uid-high":   "Queued (1st in lq, waiting for nvidia.com/gpu: 4 requested, 0 free in flavor a100)",
		"uid-low":    "Evicted (preempted by tfjob/urgent: prioritization in the ClusterQueue, 2nd in lq, waiting for nvidia.com/gpu: 8 requested, 0 free in flavor a100)",
		"uid-early":  "Queued (3rd in lq, waiting for nvidia.com/gpu: 4 requested, 0 free in flavor a100)",
		"uid-late":   "Queued (4th in lq, waiting for nvidia.com/gpu: 4 requested, 0 free in flavor a100)",
		"uid-urgent": "Admitted (cluster-queue gpu, flavor a100, default)",
	} {
		if got[uid].String() != want {
			t.Errorf("%s: %q, want %q", uid, got[uid].String(), want)
		}
	}
	// 8 GPUs asked, 4 more needed: 4 free.
	half := workload(t, "tfjob-half", "uid-half", 0, 4, 1, waitingFor4)
	if s := Admissions([]Workload{half}, nil)["uid-half"].String(); s != "Queued (1st in lq, waiting for nvidia.com/gpu: 8 requested, 4 free in flavor a100)" {
		t.Errorf("half free: %q", s)
	}
	// A message easyai does not read is passed on, on one line.
	odd := workload(t, "tfjob-odd", "uid-odd", 0, 1, 1, `[{type: QuotaReserved, status: "False", reason: Pending, message: "LocalQueue lq\nis stopped", lastTransitionTime: "2026-11-27T10:00:00Z"}]`)
	if a := Admissions([]Workload{odd}, nil)["uid-odd"]; a.WaitingFor != "LocalQueue lq is stopped" || a.State != jobmodel.AdmissionQueued {
		t.Errorf("an unknown message: %+v", a)
	}
}

// TestQueues: a LocalQueue and a ClusterQueue read into their quotas,
// usage and borrowing per flavor.
func TestQueues(t *testing.T) {
	lq, err := LocalQueueOf(object(t, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: gpu}
status:
  pendingWorkloads: 1
  reservingWorkloads: 2
  admittedWorkloads: 2
  conditions: [{type: Active, status: "True", reason: Ready, message: "Can submit new workloads to localQueue", lastTransitionTime: "2026-11-27T10:00:00Z"}]
  flavorsUsage: [{name: a100, resources: [{name: nvidia.com/gpu, total: "8"}]}]
`))
	if err != nil || lq.ClusterQueue != "gpu" || !lq.Active || lq.Pending != 1 || lq.Admitted != 2 || lq.Usage["a100"]["nvidia.com/gpu"] != "8" {
		t.Errorf("local queue: %+v, %v", lq, err)
	}
	cq, err := ClusterQueueOf(object(t, `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpu}
spec:
  cohortName: research
  queueingStrategy: BestEffortFIFO
  fairSharing: {weight: "2"}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources: [{name: nvidia.com/gpu, nominalQuota: 8, borrowingLimit: 4}]
    - name: t4
      resources: [{name: nvidia.com/gpu, nominalQuota: "16"}]
status:
  pendingWorkloads: 1
  admittedWorkloads: 2
  flavorsUsage: [{name: a100, resources: [{name: nvidia.com/gpu, total: "10", borrowed: "2"}]}]
`))
	if err != nil || cq.Cohort != "research" || cq.Weight != "2" || strings.Join(cq.Flavors, ",") != "a100,t4" ||
		cq.Quota["a100"]["nvidia.com/gpu"] != "8" || cq.Quota["t4"]["nvidia.com/gpu"] != "16" || cq.BorrowingLimit["a100"]["nvidia.com/gpu"] != "4" ||
		cq.Usage["a100"]["nvidia.com/gpu"] != "10" || cq.Borrowed["a100"]["nvidia.com/gpu"] != "2" {
		t.Errorf("cluster queue: %+v, %v", cq, err)
	}
}
