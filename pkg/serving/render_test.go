package serving

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/storage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func vllmSpec() *Spec {
	return &Spec{Name: "bert", Namespace: "team-a", Framework: Frameworks["vllm"], Image: "vllm/vllm-openai:v0.6.3", Replicas: 2,
		GPUs: 1, CPU: "4", Memory: "16Gi", Env: []string{"HF_HUB_OFFLINE=1"}, NodeSelector: map[string]string{"gpu": "a100"},
		PullSecrets: []string{"regcred"}, User: "alice", CLIVersion: "v0.1.0", ModelFrom: "mnist",
		Model: Model{Claim: "team-data", SubPath: "vision/mnist-x2k4p/model_dir", Location: "pvc:team-data:/vision/mnist-x2k4p/model_dir"}}
}

// TestRenderGolden: what each framework renders, as the API server gets it.
func TestRenderGolden(t *testing.T) {
	nfs := vllmSpec()
	nfs.Name, nfs.Framework, nfs.Model = "tf", Frameworks["tfserving"], Model{NFS: &storage.NFS{Server: "nas", Path: "/export"}, SubPath: "m/1", Location: "nfs:nas:/export/m/1"}
	nfs.GPUs, nfs.Env, nfs.NodeSelector, nfs.PullSecrets, nfs.ModelFrom = 0, nil, nil, nil, ""
	custom := &Spec{Name: "echo", Namespace: "team-a", Framework: Frameworks["custom"], Image: "python:3.12", Replicas: 1, Queue: "serving",
		Command: []string{"python", "-m", "http.server", "9000"}, Port: 9000, ReadyPath: "/", ShmSize: "1Gi",
		Tolerations: []map[string]any{{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}},
		Data:        []map[string]any{{"claim": "datasets", "mountPath": "/data", "readOnly": true}}}
	kserve := vllmSpec()
	kserve.Backend = BackendKServe
	for name, s := range map[string]*Spec{"vllm": vllmSpec(), "tfserving-nfs": nfs, "custom": custom, "vllm-kserve": kserve} {
		t.Run(name, func(t *testing.T) {
			objs, err := Render(s)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, o := range []any{objs.Workload.Object, objs.Service.Object} {
				data, err := yaml.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("---\n")
				b.Write(data)
			}
			golden := filepath.Join("testdata", name+".golden.yaml")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s differs (go test ./pkg/serving -update):\n%s", golden, b.String())
			}
		})
	}
}

// TestBadSpecs: each refused before anything is rendered, exit 2, naming the flag.
func TestBadSpecs(t *testing.T) {
	for want, change := range map[string]func(*Spec){
		`serving name "Bert"`:                     func(s *Spec) { s.Name = "Bert" },
		`serving name "1bert"`:                    func(s *Spec) { s.Name = "1bert" },
		"--image is required":                     func(s *Spec) { s.Image = "" },
		"--port 70000":                            func(s *Spec) { s.Port = 70000 },
		"--replicas 0":                            func(s *Spec) { s.Replicas = 0 },
		"--framework custom: give the server's":   func(s *Spec) { s.Framework = Frameworks["custom"] },
		`--env "1X=2"`:                            func(s *Spec) { s.Env = []string{"1X=2"} },
		`--cpu "lots"`:                            func(s *Spec) { s.CPU = "lots" },
		`--ready-path "health"`:                   func(s *Spec) { s.ReadyPath = "health" },
		"--port 9000: torchserve listens on 8080": func(s *Spec) { s.Framework, s.Port = Frameworks["torchserve"], 9000 },
		"at most 48 with --backend kserve":        func(s *Spec) { s.Name, s.Backend = "b"+strings.Repeat("x", 48), BackendKServe },
		`"bert-v99-predictor-team-a-of-a-very-long-name-indeed-and-more-xyz" is 65; choose a serving name of at most 2 characters`: func(s *Spec) {
			s.Namespace, s.Backend = "team-a-of-a-very-long-name-indeed-and-more-xyz", BackendKServe
		},
		"at most 58 (its versions' Deployments": func(s *Spec) { s.Name = "b" + strings.Repeat("x", 58) },
	} {
		s := vllmSpec()
		change(s)
		_, err := Render(s)
		if err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != exit.Usage {
			t.Errorf("%s: got %v (exit %d)", want, err, exit.Code(err))
		}
	}
}
