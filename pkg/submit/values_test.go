package submit

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func changedOnly(names ...string) func(string) bool {
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return func(flag string) bool { return set[flag] }
}

func TestValuesOfEveryFlag(t *testing.T) {
	f := Flags{
		Name: "mnist", Image: "tf:1", GPUs: 2, CPU: "4", Memory: "16Gi",
		Env: []string{"EPOCHS=3", "EMPTY="}, WorkingDir: "/work",
		NodeSelectors: []string{"gpu=a100"}, Tolerations: []string{"nvidia.com/gpu:NoSchedule", "pool=ml:NoExecute"},
		ImagePullSecrets: []string{"regcred"}, ImagePullPolicy: "Always", ShmSize: "8Gi", Priority: "high",
		Queue: "research", Gang: true, Retry: 3, MaxDuration: 24 * time.Hour, TTLAfterFinished: time.Hour,
		CleanPodPolicy: "Running", Data: []string{"datasets:/data:ro", "out:/output"},
		Command: []string{"python", "train.py"},
	}
	f.Changed = changedOnly("name", "image", "gpus", "cpu", "memory", "working-dir", "image-pull-policy", "shm-size",
		"priority", "queue", "gang", "retry", "max-duration", "ttl-after-finished", "clean-pod-policy")
	got, err := f.Values()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "mnist", "image": "tf:1", "workingDir": "/work", "shmSize": "8Gi", "priorityClassName": "high",
		"imagePullPolicy": "Always", "imagePullSecrets": []any{"regcred"}, "command": []any{"python", "train.py"},
		"resources":    map[string]any{"gpus": 2, "cpu": "4", "memory": "16Gi"},
		"env":          []any{map[string]any{"name": "EPOCHS", "value": "3"}, map[string]any{"name": "EMPTY", "value": ""}},
		"nodeSelector": map[string]any{"gpu": "a100"},
		"tolerations": []any{
			map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
			map[string]any{"key": "pool", "operator": "Equal", "value": "ml", "effect": "NoExecute"},
		},
		"data": []any{
			map[string]any{"claim": "datasets", "mountPath": "/data", "readOnly": true},
			map[string]any{"claim": "out", "mountPath": "/output"},
		},
		"runPolicy": map[string]any{
			"gang": true, "queue": "research", "backoffLimit": 3, "activeDeadlineSeconds": int64(86400),
			"ttlSecondsAfterFinished": int64(3600), "cleanPodPolicy": "Running",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values:\n got %#v\nwant %#v", got, want)
	}
}

func TestFlagsNotSetBecomeNoValues(t *testing.T) {
	f := Flags{Image: "default-but-unset", ImagePullPolicy: "IfNotPresent", Workers: 1, Changed: changedOnly()}
	got, err := f.Values()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("values of unset flags = %v, want none (a values file must not be overridden by defaults)", got)
	}
}

func TestBadInputNamesTheFlag(t *testing.T) {
	cases := []struct {
		name  string
		flags Flags
		want  string
	}{
		{"bad quantity", Flags{CPU: "four", Changed: changedOnly("cpu")}, `--cpu "four"`},
		{"bad memory", Flags{Memory: "16GB", Changed: changedOnly("memory")}, `--memory "16GB"`},
		{"negative gpus", Flags{GPUs: -1, Changed: changedOnly("gpus")}, "--gpus -1"},
		{"env without =", Flags{Env: []string{"EPOCHS"}, Changed: changedOnly()}, `--env "EPOCHS"`},
		{"env bad name", Flags{Env: []string{"1X=2"}, Changed: changedOnly()}, `--env "1X=2"`},
		{"toleration without effect", Flags{Tolerations: []string{"gpu"}, Changed: changedOnly()}, `--toleration "gpu"`},
		{"toleration bad effect", Flags{Tolerations: []string{"gpu:Never"}, Changed: changedOnly()}, `unknown effect "Never"`},
		{"node selector", Flags{NodeSelectors: []string{"gpu"}, Changed: changedOnly()}, `--node-selector "gpu"`},
		{"data relative", Flags{Data: []string{"pvc:data"}, Changed: changedOnly()}, `--data "pvc:data"`},
		{"data bad claim", Flags{Data: []string{"Bad_Claim:/data"}, Changed: changedOnly()}, `"Bad_Claim" is not a valid`},
		{"data bad mode", Flags{Data: []string{"pvc:/data:rx"}, Changed: changedOnly()}, "the mode must be ro or rw"},
		{"pull policy", Flags{ImagePullPolicy: "Sometimes", Changed: changedOnly("image-pull-policy")}, `--image-pull-policy "Sometimes"`},
		{"clean pod policy", Flags{CleanPodPolicy: "Some", Changed: changedOnly("clean-pod-policy")}, `--clean-pod-policy "Some"`},
		{"name", Flags{Name: "My_Job", Changed: changedOnly("name")}, `--name "My_Job"`},
		{"max duration", Flags{MaxDuration: time.Millisecond, Changed: changedOnly("max-duration")}, "--max-duration 1ms"},
		{"shm", Flags{ShmSize: "lots", Changed: changedOnly("shm-size")}, `--shm-size "lots"`},
		{"name with a dot", Flags{Name: "a.b", Changed: changedOnly("name")}, `--name "a.b"`},
		{"name with a leading digit", Flags{Name: "1abc", Changed: changedOnly("name")}, `--name "1abc"`},
		{"workers over int32", Flags{Workers: 1 << 31, Changed: changedOnly("workers")}, "--workers 2147483648"},
		{"gpus over int32", Flags{GPUs: 1<<63 - 1, Changed: changedOnly("gpus")}, "--gpus 9223372036854776000: must be at most 2147483647"},
		{"retry over int32", Flags{Retry: 1 << 31, Changed: changedOnly("retry")}, "--retry 2147483648"},
		{"ttl under a second", Flags{TTLAfterFinished: 500 * time.Millisecond, Changed: changedOnly("ttl-after-finished")}, "--ttl-after-finished 500ms"},
		{"image with a space", Flags{Image: "tf 1", Changed: changedOnly("image")}, `--image "tf 1"`},
		{"priority", Flags{Priority: "Bad Prio", Changed: changedOnly("priority")}, `--priority "Bad Prio"`},
		{"queue", Flags{Queue: "Bad_Q", Changed: changedOnly("queue")}, `--queue "Bad_Q"`},
		{"pull secret", Flags{ImagePullSecrets: []string{"Bad_S"}, Changed: changedOnly()}, `--image-pull-secret "Bad_S"`},
		{"data on one path", Flags{Data: []string{"a:/d", "b:/d"}, Changed: changedOnly()}, `--data "b:/d"`},
		{"duplicate env", Flags{Env: []string{"A=1", "A=2"}, Changed: changedOnly()}, `--env "A=2"`},
		{"relative working dir", Flags{WorkingDir: "src", Changed: changedOnly("working-dir")}, `--working-dir "src"`},
		{"negative cpu", Flags{CPU: "-1", Changed: changedOnly("cpu")}, `--cpu "-1"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.flags.Values()
			if err == nil {
				t.Fatal("no error")
			}
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q (exit %d), want exit 2 naming %s", err, exit.Code(err), c.want)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	f := Flags{Labels: []string{"team=vision"}, Annotations: []string{"note=first try"}, Experiment: "lr-sweep"}
	labels, annotations, err := f.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	if labels["team"] != "vision" || annotations["note"] != "first try" {
		t.Errorf("labels %v annotations %v", labels, annotations)
	}
	for _, bad := range []Flags{
		{Labels: []string{"team"}},
		{Labels: []string{"team=a b"}},
		{Annotations: []string{"=x"}},
		{Experiment: "not valid!"},
	} {
		if _, _, err := bad.Metadata(); exit.Code(err) != exit.Usage {
			t.Errorf("%+v: error %v, want a usage error", bad, err)
		}
	}
}

func TestGenerateName(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		n := GenerateName("tf")
		if !strings.HasPrefix(n, "tf-") || len(n) > 40 || seen[n] {
			t.Fatalf("name %q: bad or repeated", n)
		}
		seen[n] = true
	}
}

// TestRepeated: the first string two maps of a list share at a key, ""
// included; items that are no maps, or lack the key, count for nothing.
func TestRepeated(t *testing.T) {
	for _, tc := range []struct {
		list any
		want string
		ok   bool
	}{
		{nil, "", false},
		{[]any{map[string]any{"name": "A"}, map[string]any{"name": "B"}}, "", false},
		{[]any{map[string]any{"name": "A"}, "x", map[string]any{}, map[string]any{"name": "A"}}, "A", true},
		{[]any{map[string]any{"name": ""}, map[string]any{"name": ""}}, "", true},
		{[]any{map[string]any{"name": 1}, map[string]any{"name": 1}}, "", false},
	} {
		if got, ok := repeated(tc.list, "name"); got != tc.want || ok != tc.ok {
			t.Errorf("repeated(%v) = %q, %v; want %q, %v", tc.list, got, ok, tc.want, tc.ok)
		}
	}
}
