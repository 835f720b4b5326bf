package submit_test

import (
	"path"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/submit"
)

func noneChanged(string) bool { return false }

// checkUsageError: a bad flag value is a usage error naming the flag and
// quoting the value.
func checkUsageError(t *testing.T, flag, value string, err error) {
	t.Helper()
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), flag+" "+strconv.Quote(value)) {
		t.Fatalf("%s %q: exit %d, %v; want a usage error naming the flag and the value", flag, value, exit.Code(err), err)
	}
}

// FuzzTolerationFlag is submit --toleration key[=value]:effect.
func FuzzTolerationFlag(f *testing.F) {
	for _, seed := range []string{"nvidia.com/gpu:NoSchedule", "pool=ml:NoExecute", "gpu", "gpu:Never", ":NoSchedule",
		"=x:NoSchedule", "a=b=c:PreferNoSchedule", "a:b:NoSchedule", "gpu:noschedule", "gpu=:NoExecute", "\xff:NoSchedule", "gpu=a b:NoSchedule"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		v, err := (&submit.Flags{Tolerations: []string{value}, Changed: noneChanged}).Values()
		if err != nil {
			checkUsageError(t, "--toleration", value, err)
			return
		}
		tols, _ := v["tolerations"].([]any)
		if len(tols) != 1 {
			t.Fatalf("--toleration %q: tolerations %v", value, v["tolerations"])
		}
		tol := tols[0].(map[string]any)
		if key, _ := tol["key"].(string); len(validation.IsQualifiedName(key)) > 0 {
			t.Fatalf("--toleration %q: key %q", value, key)
		}
		if val, ok := tol["value"].(string); ok && len(validation.IsValidLabelValue(val)) > 0 {
			t.Fatalf("--toleration %q: value %q, which the API server refuses", value, val)
		}
		switch tol["effect"] {
		case "NoSchedule", "PreferNoSchedule", "NoExecute":
		default:
			t.Fatalf("--toleration %q: effect %v", value, tol["effect"])
		}
	})
}

// FuzzDataFlag is submit --data PVC:/mount/path[:ro].
func FuzzDataFlag(f *testing.F) {
	for _, seed := range []string{"datasets:/data:ro", "out:/output", "out:/output:rw", "pvc:data", "Bad_Claim:/data", "pvc:/data:rx",
		"pvc", "pvc:/data/../etc", "pvc:/", ":/data", "pvc:/data:ro:x", "pvc:/data/", "pvc://data", "pvc:/da\x00ta"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		v, err := (&submit.Flags{Data: []string{value}, Changed: noneChanged}).Values()
		if err != nil {
			checkUsageError(t, "--data", value, err)
			return
		}
		data, _ := v["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("--data %q: data %v", value, v["data"])
		}
		d := data[0].(map[string]any)
		if claim, _ := d["claim"].(string); len(validation.IsDNS1123Subdomain(claim)) > 0 {
			t.Fatalf("--data %q: claim %q", value, claim)
		}
		if mount, _ := d["mountPath"].(string); !path.IsAbs(mount) || path.Clean(mount) != mount {
			t.Fatalf("--data %q: mount path %q", value, mount)
		}
	})
}
