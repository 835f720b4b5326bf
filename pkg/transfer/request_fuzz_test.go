package transfer

import (
	"errors"
	"path"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// FuzzRequestAnnotation reads any easyai.io/request and easyai.io/job-dir
// annotations, as download does to find the job's storage and placement,
// with any remote path and task: it never panics, an error names an
// annotation or says the path is on no storage, and the path found inside
// a storage never leaves it.
func FuzzRequestAnnotation(f *testing.F) {
	for _, seed := range []struct{ raw, p string }{
		{`{"workingDir":"/w","code":{"dir":true},"storage":{"claim":"d","prefix":"a/b","jobDir":"j","dataDir":"data/x","preJobDir":"p"}}`, "/summary_dir/x"},
		{`{"storage":{"nfs":{"server":"h","path":"/e"},"jobDir":"j","dataDir":"../x"}}`, "/data_dir/.."},
		{`{"storage":{"claim":"d","jobDir":"j","dataDir":"d","preJobDir":"../.."}}`, "/pre_model_dir"},
		{`{"workingDir":"/work","data":[{"claim":"datasets","mountPath":"/data","readOnly":true},{"claim":"out","mountPath":"/work/out"}]}`, "out/model.pt"},
		{`{"data":[{"claim":"out","mountPath":"/output"}]}`, "/output/../etc/passwd"},
		{`{"data":[{"claim":"root","mountPath":"/"}]}`, "/"},
		{`{"data":[{"claim":"x","mountPath":"relative"}]}`, "relative/a"},
		{`{"workingDir":"rel","data":[{"claim":"x","mountPath":"/d"}]}`, "a"},
		{`{"data":[{"claim":"x","mountPath":"/d/"}]}`, "/d//a/./b"},
		{`{"nodeSelector":{"gpu":"a100"},"tolerations":[{"key":"gpu","operator":"Exists","effect":"NoSchedule"}]}`, "/x"},
		{`{"data":null}`, ""}, {`null`, "."}, {`{"data":[{}]}`, "/"}, {`{"tolerations":"x"}`, "/"}, {`{`, "/"},
	} {
		f.Add(seed.raw, seed.p, "j", "worker-0")
	}
	f.Add(`{"storage":{"claim":"d","jobDir":"j","dataDir":"d"}}`, "/summary_dir", "j", "../..")
	f.Add(`{"storage":{"claim":"d","jobDir":"j","dataDir":"d"}}`, "/summary_dir", "k", "w")
	f.Fuzz(func(t *testing.T, raw, p, jobDir, task string) {
		obj := &unstructured.Unstructured{}
		obj.SetName("mnist")
		obj.SetAnnotations(map[string]string{jobmodel.RequestAnnotation: raw, jobmodel.JobDirAnnotation: jobDir})
		_, perr := PlacementOf(obj)
		if perr != nil && !strings.Contains(perr.Error(), jobmodel.RequestAnnotation) {
			t.Fatalf("%q: placement: %v, not naming the annotation", raw, perr)
		}
		f, err := StorageFor(obj, p, task)
		m, rel := f.Mount, f.Rel
		if err != nil {
			if !errors.Is(err, ErrNotOnStorage) && !strings.Contains(err.Error(), jobmodel.RequestAnnotation) && !strings.Contains(err.Error(), jobmodel.JobDirAnnotation) {
				t.Fatalf("%q, %q: %v", raw, p, err)
			}
			return
		}
		if rel != "." && (path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../")) {
			t.Fatalf("%q, %q: %q in %+v leaves the storage", raw, p, rel, m)
		}
	})
}
