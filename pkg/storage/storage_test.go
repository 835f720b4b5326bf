package storage_test

import (
	"encoding/json"
	"errors"
	"path"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/storage"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, want string
		spec     storage.Spec
	}{
		{in: "pvc:team", spec: storage.Spec{Claim: "team"}},
		{in: "pvc:team:/vision/runs", spec: storage.Spec{Claim: "team", Prefix: "vision/runs"}},
		{in: "nfs:nfs.example.com:/exports/ml", spec: storage.Spec{NFS: &storage.NFS{Server: "nfs.example.com", Path: "/exports/ml"}}},
		{in: "nfs:10.0.0.7:/ml:/team-a", spec: storage.Spec{NFS: &storage.NFS{Server: "10.0.0.7", Path: "/ml"}, Prefix: "team-a"}},
		{in: "s3:bucket", want: `unknown scheme "s3"`},
		{in: "team", want: "no scheme"},
		{in: "pvc:Team_1", want: "not a PersistentVolumeClaim name"},
		{in: "pvc:team:relative", want: "must be an absolute, clean path"},
		{in: "pvc:team:/a/../b", want: "must be an absolute, clean path"},
		{in: "pvc:team:/", want: "must be an absolute, clean path"},
		{in: "nfs::/x", want: "no server"},
		{in: "nfs:host", want: "no server"},
		{in: "nfs:host:exports", want: "the export"},
		{in: "nfs:bad host:/x", want: "not a host name"},
	} {
		spec, err := storage.Parse("--storage", c.in)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--storage") || exit.Code(err) != exit.Usage {
				t.Errorf("Parse(%q) = %v, want a usage error naming --storage and saying %q", c.in, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if spec.String() != c.in || !spec.Same(c.spec) {
			t.Errorf("Parse(%q) = %+v (%s), want %+v", c.in, spec, spec.String(), c.spec)
		}
	}
}

func TestDirsAndLocation(t *testing.T) {
	v := storage.Values{Spec: storage.Spec{Claim: "team", Prefix: "vision"}, JobDir: "mnist-abcde", DataDir: "data/alice"}
	var got []string
	for _, d := range v.Dirs() {
		got = append(got, d.Env+"="+d.MountPath+":"+d.SubPath)
	}
	want := "summary_dir=/summary_dir:mnist-abcde/{task}/summary_dir model_dir=/model_dir:mnist-abcde/model_dir log_dir=/log_dir:mnist-abcde/log_dir data_dir=/data_dir:data/alice share_dir=/share_dir:mnist-abcde/share_dir"
	if strings.Join(got, " ") != want {
		t.Errorf("Dirs:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if _, ok := v.Dir(storage.PreModelDir); ok {
		t.Error("a job without --pretrained-from has a pre_model_dir")
	}
	v.PreJobDir = "old-bcdfg"
	if d, ok := v.Dir(storage.PreModelDir); !ok || d.SubPath != "old-bcdfg/model_dir" || !d.ReadOnly {
		t.Errorf("pre_model_dir = %+v", d)
	}
	if got := v.Location("mnist-abcde/model_dir"); got != "pvc:team:/vision/mnist-abcde/model_dir" {
		t.Errorf("Location = %s", got)
	}
	nfs := storage.Spec{NFS: &storage.NFS{Server: "h", Path: "/ml"}}
	if got := nfs.Location("data/bob"); got != "nfs:h:/ml/data/bob" {
		t.Errorf("Location = %s", got)
	}
	if got := storage.DefaultDataDir("system:serviceaccount:ci:runner"); got != "data/system_serviceaccount_ci_runner-b6bb33cf" {
		t.Errorf("DefaultDataDir = %s", got)
	}
}

func TestNewJobDirIsNewEveryTime(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		d := storage.NewJobDir("mnist")
		if !strings.HasPrefix(d, "mnist-") || len(d) != len("mnist-")+5 || seen[d] {
			t.Fatalf("NewJobDir = %q (seen before: %v)", d, seen[d])
		}
		seen[d] = true
	}
}

func job(request, jobDir string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetName("mnist")
	ann := map[string]string{}
	if request != "" {
		ann[jobmodel.RequestAnnotation] = request
	}
	if jobDir != "" {
		ann[jobmodel.JobDirAnnotation] = jobDir
	}
	obj.SetAnnotations(ann)
	return obj
}

func TestOf(t *testing.T) {
	good := `{"name":"mnist","storage":{"claim":"team","prefix":"vision","jobDir":"mnist-abcde","dataDir":"data/alice","persistLogs":true}}`
	v, err := storage.Of(job(good, "mnist-abcde"))
	if err != nil || v.Claim != "team" || v.JobDir != "mnist-abcde" || !v.PersistLogs {
		t.Fatalf("Of = %+v, %v", v, err)
	}
	for _, c := range []struct{ name, request, jobDir, want string }{
		{"no request", "", "", "has no --storage"},
		{"no storage", `{"name":"mnist"}`, "", "has no --storage"},
		{"empty storage", `{"storage":{"claim":""}}`, "", "has no --storage"},
		{"not JSON", `{`, "", "annotation easyai.io/request"},
		{"dir annotation edited", good, "other-abcde", "is not the job directory"},
		{"escaping job dir", strings.Replace(good, `"mnist-abcde"`, `"../x"`, 1), "../x", "not a relative path"},
		{"nested job dir", strings.Replace(good, `"mnist-abcde"`, `"a/b"`, 1), "a/b", "not one directory"},
		{"absolute data dir", strings.Replace(good, `"data/alice"`, `"/etc"`, 1), "mnist-abcde", "not a relative path"},
		{"bad claim", strings.Replace(good, `"team"`, `"a b"`, 1), "mnist-abcde", "not a storage easyai submits"},
		{"escaping prefix", strings.Replace(good, `"vision"`, `"../up"`, 1), "mnist-abcde", "not a storage easyai submits"},
	} {
		_, err := storage.Of(job(c.request, c.jobDir))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Of = %v, want an error saying %q", c.name, err, c.want)
		}
		if strings.HasPrefix(c.want, "has no") != errors.Is(err, storage.ErrNoStorage) {
			t.Errorf("%s: errors.Is(ErrNoStorage) = %v", c.name, errors.Is(err, storage.ErrNoStorage))
		}
		// Malformed annotations are bad input (exit 2) wherever they are read.
		if !strings.HasPrefix(c.want, "has no") && exit.Code(err) != exit.Usage {
			t.Errorf("%s: exit %d, want 2", c.name, exit.Code(err))
		}
	}
}

// FuzzOf: whatever the annotations hold (anyone who may edit the job may
// write them), Of either fails or returns directories that stay below the
// prefix of a storage --storage would accept.
func FuzzOf(f *testing.F) {
	f.Add(`{"storage":{"claim":"team","prefix":"vision","jobDir":"mnist-abcde","dataDir":"data/alice","preJobDir":"old-x"}}`, "mnist-abcde")
	f.Add(`{"storage":{"nfs":{"server":"h","path":"/ml"},"jobDir":"..","dataDir":"."}}`, "..")
	f.Add(`{"storage":{"claim":"c","prefix":"a\u001b[2J","jobDir":"j\n","dataDir":"$(HOME)"}}`, "j\n")
	f.Fuzz(func(t *testing.T, request, jobDir string) {
		v, err := storage.Of(job(request, jobDir))
		if err != nil {
			return
		}
		if _, err := storage.Parse("storage", v.Spec.String()); err != nil {
			t.Fatalf("Of accepted storage %q: %v", v.Spec.String(), err)
		}
		for _, d := range v.Dirs() {
			if loc := v.Location(d.SubPath); strings.ContainsAny(loc, "\n\r\x1b$\\") {
				t.Fatalf("%s is %q: not one safe line", d.Env, loc)
			}
			p := path.Clean(v.OnVolume(strings.ReplaceAll(d.SubPath, storage.Task, "worker-0")))
			if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || !strings.HasPrefix(p+"/", v.Prefix+"/") && v.Prefix != "" {
				t.Fatalf("%s is %q, outside the prefix %q", d.Env, p, v.Prefix)
			}
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	})
}

// Each user has a directory of their own: two identities that read the
// same once made path-safe (alice@corp.com, alice+corp.com), one cut at 63
// characters or one with no safe character get a short hash of the whole
// identity; a name that is already safe stays as it is.
func TestDefaultDataDirIsOnePerUser(t *testing.T) {
	users := []string{"alice", "alice@corp.com", "alice+corp.com", "alice_corp.com", "日本", "中文",
		strings.Repeat("a", 70) + "1", strings.Repeat("a", 70) + "2", "system:serviceaccount:team-a:ci"}
	seen := map[string]string{}
	for _, u := range users {
		d := storage.DefaultDataDir(u)
		if other, ok := seen[d]; ok {
			t.Errorf("%q and %q share %s", u, other, d)
		}
		seen[d] = u
		if err := storage.CheckSubPath("data dir", d); err != nil || len(path.Base(d)) > 63 || strings.Count(d, "/") != 1 {
			t.Errorf("%q: %q (%v)", u, d, err)
		}
	}
	if d := storage.DefaultDataDir("alice"); d != "data/alice" {
		t.Errorf("a safe name changed: %q", d)
	}
	if d := storage.DefaultDataDir("alice_corp.com"); d != "data/alice_corp.com" {
		t.Errorf("a safe name changed: %q", d)
	}
	if d := storage.DefaultDataDir("alice@corp.com"); !strings.HasPrefix(d, "data/alice_corp.com-") {
		t.Errorf("the readable part: %q", d)
	}
}
