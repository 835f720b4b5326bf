package serving

import (
	"errors"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Model is the volume and the directory on it that hold the model,
// mounted read-only where the framework reads it.
type Model struct {
	Claim string
	NFS   *storage.NFS
	// SubPath is the directory, relative to the volume's root.
	SubPath string
	// Location names it for people: pvc:team-data:/vision/mnist-x2k4p/model_dir.
	Location string
}

// IsZero reports whether no model volume is given (the image holds it).
func (m Model) IsZero() bool { return m.Claim == "" && m.NFS == nil }

func (m Model) values(mountPath string) map[string]any {
	v := map[string]any{"claim": m.Claim, "subPath": m.SubPath, "mountPath": mountPath}
	if m.NFS != nil {
		v["nfs"] = map[string]any{"server": m.NFS.Server, "path": m.NFS.Path}
	}
	return v
}

// ModelOfJob is the model_dir of job (as found in the namespace), which
// must have been submitted with --storage: as --pretrained-from reads it,
// every path of its annotations checked.
func ModelOfJob(name string, job *unstructured.Unstructured) (Model, error) {
	v, err := storage.Of(job)
	switch {
	case errors.Is(err, storage.ErrNoStorage):
		return Model{}, exit.UsageErrorf("--model-from %s: the job was submitted without --storage: it has no model_dir to serve", name)
	case err != nil:
		return Model{}, exit.UsageErrorf("--model-from %s: %v", name, err)
	}
	d, _ := v.Dir(storage.ModelDir)
	return Model{Claim: v.Claim, NFS: v.NFS, SubPath: v.OnVolume(d.SubPath), Location: v.Spec.Location(d.SubPath)}, nil
}

// ParseModel reads --model: pvc:CLAIM/PATH (a directory of a claim of the
// namespace), or PATH, a directory of the configured storage (configured:
// its --storage form, "" when none is configured).
func ParseModel(arg, configured string) (Model, error) {
	if rest, ok := strings.CutPrefix(arg, "pvc:"); ok {
		claim, p, _ := strings.Cut(rest, "/")
		if errs := validation.IsDNS1123Subdomain(claim); claim == "" || len(errs) > 0 {
			return Model{}, exit.UsageErrorf("--model %q: want pvc:CLAIM/PATH, CLAIM a claim's name", arg)
		}
		p = strings.Trim(p, "/")
		if p != "" {
			if err := storage.CheckSubPath("--model", p); err != nil {
				return Model{}, err
			}
		}
		return Model{Claim: claim, SubPath: p, Location: "pvc:" + claim + ":/" + p}, nil
	}
	if configured == "" {
		return Model{}, exit.UsageErrorf("--model %q: a path of the team's storage needs one configured (easyai config set storage ...), or write pvc:CLAIM/PATH", arg)
	}
	spec, err := storage.Parse("the configuration's storage", configured)
	if err != nil {
		return Model{}, err
	}
	p := strings.Trim(arg, "/")
	if err := storage.CheckSubPath("--model", p); err != nil {
		return Model{}, err
	}
	return Model{Claim: spec.Claim, NFS: spec.NFS, SubPath: path.Join(spec.Prefix, p), Location: spec.Location(p)}, nil
}
