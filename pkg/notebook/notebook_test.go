package notebook

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/submit"
)

func spec() Spec {
	return Spec{Name: "nb", Image: "jupyter:1", GPUs: 1, CPU: DefaultCPU, Memory: DefaultMemory, Overcommit: DefaultOvercommit,
		IdleTimeout: time.Hour, MaxDuration: 24 * time.Hour, Storage: "pvc:team:/vision"}
}

func TestRequestsAreTheLimitsOverTheOvercommit(t *testing.T) {
	for _, tt := range []struct {
		cpu, memory string
		n           int
		want        [2]string
	}{
		{"2", "8Gi", 4, [2]string{"500m", "2Gi"}},
		{"3", "10Gi", 1, [2]string{"3", "10Gi"}},
		{"1", "1Gi", 3, [2]string{"333m", "357913941"}},
		{"1m", "1", 8, [2]string{"1m", "1"}},
	} {
		cpu, mem, err := Requests(tt.cpu, tt.memory, tt.n)
		if err != nil || cpu != tt.want[0] || mem != tt.want[1] {
			t.Errorf("Requests(%s, %s, %d) = %s, %s, %v; want %v", tt.cpu, tt.memory, tt.n, cpu, mem, err, tt.want)
		}
	}
}

func TestCommandShutsDownWhenIdle(t *testing.T) {
	got := strings.Join(Command(90*time.Minute), " ")
	for _, want := range []string{"jupyter lab --ip=0.0.0.0 --port=8888", "--ServerApp.root_dir=/notebooks", "--ServerApp.shutdown_no_activity_timeout=5400", "--MappingKernelManager.cull_idle_timeout=5400", "--TerminalManager.cull_inactive_timeout=5400"} {
		if !strings.Contains(got, want) {
			t.Errorf("command %q lacks %s", got, want)
		}
	}
	if got := strings.Join(Command(0), " "); strings.Contains(got, "timeout") {
		t.Errorf("without an idle timeout: %q", got)
	}
}

func TestBadSpecsNameTheFlag(t *testing.T) {
	for flag, change := range map[string]func(*Spec){
		"--gpus":         func(s *Spec) { s.GPUs = -1 },
		"--overcommit":   func(s *Spec) { s.Overcommit = 0 },
		"--idle-timeout": func(s *Spec) { s.IdleTimeout = time.Second },
		"--max-duration": func(s *Spec) { s.MaxDuration = -time.Hour },
		"--cpu":          func(s *Spec) { s.CPU = "lots" },
		"--memory":       func(s *Spec) { s.Memory = "0" },
		"notebook":       func(s *Spec) { s.Name = "Not_A_Name" },
	} {
		s := spec()
		change(&s)
		if err := s.Check(); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s: %v, want exit 2 naming it", flag, err)
		}
	}
}

// TestTheSubmissionMakesANotebook renders the notebook as a client dry run.
func TestTheSubmissionMakesANotebook(t *testing.T) {
	reg := registry.Default()
	k, _ := reg.Lookup(KindName)
	req, err := spec().JobRequest(reg, k)
	if err != nil {
		t.Fatal(err)
	}
	req.DryRun, req.Notes = submit.DryRunClient, io.Discard
	sub := &submit.Submission{JobRequest: *req, ClientUser: func() (string, error) { return "alice@corp", nil }}
	res, err := sub.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	obj := res.Object
	if !Is(obj.GetLabels()) {
		t.Errorf("labels %v: not a notebook", obj.GetLabels())
	}
	e, err := jobmodel.Endpoints(obj.GetAnnotations())
	if err != nil || e[Endpoint].Task != Task || e[Endpoint].TokenSecret != "nb-jupyter" {
		t.Errorf("endpoints %+v, %v", e, err)
	}
	if len(res.Attachments) != 1 || res.Attachments[0].GetName() != "nb-jupyter" || res.Attachments[0].GetKind() != "Secret" {
		t.Errorf("attachments %v, want the token's Secret", res.Attachments)
	}
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "pytorchReplicaSpecs", "Master", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("containers %v", containers)
	}
	c := containers[0].(map[string]any)
	res2, _, _ := unstructured.NestedMap(c, "resources")
	if r := res2["requests"].(map[string]any); r["cpu"] != "500m" || r["memory"] != "2Gi" {
		t.Errorf("requests %v", r)
	}
	mounts := map[string]string{}
	for _, m := range c["volumeMounts"].([]any) {
		mm := m.(map[string]any)
		if sp, ok := mm["subPath"].(string); ok {
			mounts[mm["mountPath"].(string)] = sp
		}
	}
	if mounts["/notebooks/home"] != "vision/notebook/alice_corp-244e5ee0" || mounts["/notebooks/public"] != "vision/notebook/public" {
		t.Errorf("mounts %v", mounts)
	}
	if d, _, _ := unstructured.NestedInt64(obj.Object, "spec", "runPolicy", "activeDeadlineSeconds"); d != 86400 {
		t.Errorf("activeDeadlineSeconds %d", d)
	}

	// Without a storage: exit 2, naming it.
	s := spec()
	s.Storage = ""
	req, _ = s.JobRequest(reg, k)
	req.DryRun, req.Notes = submit.DryRunClient, io.Discard
	sub = &submit.Submission{JobRequest: *req, ClientUser: sub.ClientUser}
	if _, err := sub.Run(context.Background()); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "a notebook keeps its workspace") {
		t.Errorf("no storage: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	for state, want := range map[jobmodel.State]string{jobmodel.Suspended: "Stopped", jobmodel.Succeeded: "Ended", jobmodel.Running: "Running", jobmodel.Failed: "Failed"} {
		if got := Describe(state); got != want {
			t.Errorf("Describe(%s) = %s, want %s", state, got, want)
		}
	}
}
