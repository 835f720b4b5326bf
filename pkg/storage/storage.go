// Package storage is the team's shared storage of seed 001: one volume (a
// PersistentVolumeClaim or an NFS export) on which every job gets its own
// directories with fixed names, mounted at fixed paths and named by fixed
// environment variables (docs/storage.md).
//
// The charts render the mounts (easyai-lib's _storage.tpl) from the
// "storage" value; this package parses --storage, fills the value at
// submit and reads it back from a job for download, logs and upload.
// TestChartMountsAreTheLayout keeps the two in step.
package storage

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"path"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Spec is where the storage is: a claim in the job's namespace or an NFS
// export, and the sub-path of the volume easyai keeps everything under.
type Spec struct {
	Claim string `json:"claim,omitempty"`
	// NFS is an NFS export mounted directly (no claim).
	NFS *NFS `json:"nfs,omitempty"`
	// Prefix is a clean relative path on the volume ("" for its root).
	Prefix string `json:"prefix,omitempty"`
}

// NFS is an NFS server and the path it exports.
type NFS struct {
	Server string `json:"server"`
	Path   string `json:"path"`
}

// Normalized is s with an NFS of no server (the charts' default values)
// as none.
func (s Spec) Normalized() Spec {
	if s.NFS != nil && s.NFS.Server == "" && s.NFS.Path == "" {
		s.NFS = nil
	}
	return s
}

// IsZero reports whether no storage is given.
func (s Spec) IsZero() bool { return s.Claim == "" && s.NFS == nil }

// String is the --storage form of s.
func (s Spec) String() string {
	var b strings.Builder
	switch {
	case s.Claim != "":
		b.WriteString("pvc:" + s.Claim)
	case s.NFS != nil:
		b.WriteString("nfs:" + s.NFS.Server + ":" + s.NFS.Path)
	default:
		return ""
	}
	if s.Prefix != "" {
		b.WriteString(":/" + s.Prefix)
	}
	return b.String()
}

// Same reports whether a and b are the same volume and prefix.
func (s Spec) Same(o Spec) bool { return s.String() == o.String() }

// Form is how --storage is written, for errors and help.
const Form = "pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix]"

// Parse reads a --storage value (what names it, e.g. "--storage", goes
// into the error; "": the error is only what is wrong): pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix].
func Parse(what, s string) (Spec, error) {
	bad := func(why string, args ...any) error {
		if what == "" {
			return exit.UsageErrorf("%s (want %s)", fmt.Sprintf(why, args...), Form)
		}
		return exit.UsageErrorf("%s %q: %s (want %s)", what, s, fmt.Sprintf(why, args...), Form)
	}
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Spec{}, bad("no scheme")
	}
	var spec Spec
	var prefix string
	switch scheme {
	case "pvc":
		claim, p, _ := strings.Cut(rest, ":")
		if errs := validation.IsDNS1123Subdomain(claim); len(errs) > 0 {
			return Spec{}, bad("%q is not a PersistentVolumeClaim name", claim)
		}
		spec.Claim, prefix = claim, p
	case "nfs":
		server, rest, ok := strings.Cut(rest, ":")
		if !ok || server == "" {
			return Spec{}, bad("no server")
		}
		if errs := validation.IsDNS1123Subdomain(strings.ToLower(server)); len(errs) > 0 && !isIP(server) {
			return Spec{}, bad("%q is not a host name or an IPv4 address", server)
		}
		export, p, _ := strings.Cut(rest, ":")
		if !path.IsAbs(export) || path.Clean(export) != export || !safeChars(export) {
			return Spec{}, bad("the export %q must be an absolute, clean path", export)
		}
		spec.NFS, prefix = &NFS{Server: server, Path: export}, p
	default:
		return Spec{}, bad("unknown scheme %q", scheme)
	}
	if prefix != "" {
		if !safeChars(prefix) {
			return Spec{}, bad("the prefix %q has control characters, '$' or '\\'", prefix)
		}
		if !path.IsAbs(prefix) || path.Clean(prefix) != prefix || prefix == "/" {
			return Spec{}, bad("the prefix %q must be an absolute, clean path below the volume's root", prefix)
		}
		spec.Prefix = strings.TrimPrefix(prefix, "/")
	}
	return spec, nil
}

// safeChars refuses what a path on the storage may not hold: control
// characters (it is shown on terminals), '$' (Kubernetes expands $(VAR) in
// a subPathExpr) and '\\'.
func safeChars(p string) bool {
	for _, r := range p {
		if unicode.IsControl(r) || r == '$' || r == '\\' {
			return false
		}
	}
	return true
}

func isIP(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// Values is the chart value "storage" (see charts/*/values.yaml): the
// storage and the directories of one job on it. All paths are relative
// to the prefix.
type Values struct {
	Spec
	// JobDir is {job}: the job's name and a suffix new at every submission.
	JobDir string `json:"jobDir,omitempty"`
	// DataDir is what /data_dir mounts: data/{user}, or --data-dir.
	DataDir string `json:"dataDir,omitempty"`
	// PreJobDir is {pre_job}, the JobDir of --pretrained-from's job.
	PreJobDir string `json:"preJobDir,omitempty"`
	// PersistLogs tees every replica's output into log_dir/<task>.log.
	PersistLogs bool `json:"persistLogs,omitempty"`
}

// Dir is one directory of a job on the storage.
type Dir struct {
	// Env is the environment variable naming it, also its name here.
	Env string
	// MountPath is where every replica sees it.
	MountPath string
	// SubPath is its path relative to the prefix; {task} stands for the
	// replica (a subPathExpr).
	SubPath  string
	ReadOnly bool
}

// The directories' names (their environment variables).
const (
	SummaryDir  = "summary_dir"
	ModelDir    = "model_dir"
	LogDir      = "log_dir"
	DataDir     = "data_dir"
	PreModelDir = "pre_model_dir"
	ShareDir    = "share_dir"
	// Task stands for the replica's name (worker-0) in a SubPath.
	Task = "{task}"
)

// Dirs are the job's directories, in the order of docs/storage.md.
func (v Values) Dirs() []Dir {
	dirs := []Dir{
		{Env: SummaryDir, MountPath: "/summary_dir", SubPath: path.Join(v.JobDir, Task, "summary_dir")},
		{Env: ModelDir, MountPath: "/model_dir", SubPath: path.Join(v.JobDir, "model_dir")},
		{Env: LogDir, MountPath: "/log_dir", SubPath: path.Join(v.JobDir, "log_dir")},
		{Env: DataDir, MountPath: "/data_dir", SubPath: v.DataDir, ReadOnly: true},
	}
	if v.PreJobDir != "" {
		dirs = append(dirs, Dir{Env: PreModelDir, MountPath: "/pre_model_dir", SubPath: path.Join(v.PreJobDir, "model_dir"), ReadOnly: true})
	}
	return append(dirs, Dir{Env: ShareDir, MountPath: "/share_dir", SubPath: path.Join(v.JobDir, "share_dir")})
}

// Dir is the directory named name ("" and false when the job has none).
func (v Values) Dir(name string) (Dir, bool) {
	for _, d := range v.Dirs() {
		if d.Env == name {
			return d, true
		}
	}
	return Dir{}, false
}

// OnVolume is a path relative to the prefix as a path relative to the
// volume's root.
func (v Values) OnVolume(rel string) string {
	return path.Join(v.Prefix, rel)
}

// Location names a path relative to the prefix for people: the volume
// and the path on it, "pvc:team-data:/teams/a/data/alice".
func (s Spec) Location(rel string) string {
	p := "/" + path.Join(s.Prefix, rel)
	if s.NFS != nil {
		return "nfs:" + s.NFS.Server + ":" + path.Join(s.NFS.Path, p)
	}
	return "pvc:" + s.Claim + ":" + p
}

// DefaultDataDir is data/{user}, one directory per identity: a user name
// that is already path-safe is kept as it is (alice); one that had to
// change to be safe (alice@corp.com, cut at 63 characters, or with no safe
// character at all) is its safe part and a short hash of the whole
// identity (alice_corp.com-1f2e3d4c), so that two users never share one.
func DefaultDataDir(user string) string {
	u := jobmodel.LabelSafe(user)
	if u != "" && u == user {
		return path.Join("data", u)
	}
	sum := sha256.Sum256([]byte(user))
	suffix := hex.EncodeToString(sum[:4])
	if len(u) > 63-1-len(suffix) {
		u = strings.TrimRight(u[:63-1-len(suffix)], "._-")
	}
	if u == "" {
		u = "user"
	}
	return path.Join("data", u+"-"+suffix)
}

// CheckSubPath fails unless p is a clean relative path that stays below the
// prefix (what --data-dir gives).
func CheckSubPath(what, p string) error {
	if !safeChars(p) {
		return exit.UsageErrorf("%s %q: control characters, '$' and '\\' are not allowed", what, p)
	}
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return exit.UsageErrorf("%s %q: must be a clean relative path below the storage's prefix (e.g. data/imagenet)", what, p)
	}
	return nil
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// NewJobDir is {job} for a new submission of the job name: the name and
// five random characters, so that a rerun never writes into an older
// job's directories.
func NewJobDir(name string) string {
	suffix := make([]byte, 5)
	for i := range suffix {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(suffixAlphabet))))
		if err != nil {
			panic(err)
		}
		suffix[i] = suffixAlphabet[n.Int64()]
	}
	return name + "-" + string(suffix)
}

// ErrNoStorage is a job submitted without --storage.
var ErrNoStorage = errors.New("the job has no --storage")

// Of reads the storage of a job from its request annotation and its job
// directory annotation: an error wrapping ErrNoStorage when it has none,
// another when the annotations cannot be read or do not agree (anyone who
// may edit the job may have changed them). Every path read is checked.
func Of(obj *unstructured.Unstructured) (Values, error) {
	var req struct {
		Storage *Values `json:"storage"`
	}
	ann := obj.GetAnnotations()
	// Annotations that are not what submit writes are bad input, exit 2,
	// in every command that reads them (as rerun's and get -o values').
	if _, err := jobmodel.ReadRequest(ann, &req); err != nil {
		return Values{}, exit.UsageErrorf("job %s: %w", obj.GetName(), err)
	}
	if req.Storage == nil {
		return Values{}, fmt.Errorf("job %s: %w", obj.GetName(), ErrNoStorage)
	}
	v := *req.Storage
	v.Spec = v.Spec.Normalized()
	if v.IsZero() {
		return Values{}, fmt.Errorf("job %s: %w", obj.GetName(), ErrNoStorage)
	}
	if dir := ann[jobmodel.JobDirAnnotation]; dir != v.JobDir {
		return Values{}, exit.UsageErrorf("job %s: annotation %s (%q) is not the job directory of its request (%q)", obj.GetName(), jobmodel.JobDirAnnotation, jobmodel.OneLine(dir), jobmodel.OneLine(v.JobDir))
	}
	if err := v.check(); err != nil {
		return Values{}, exit.UsageErrorf("job %s: annotation %s: %w", obj.GetName(), jobmodel.RequestAnnotation, err)
	}
	return v, nil
}

// check refuses values no submit writes: a storage spec --storage would
// refuse, or a directory outside the prefix.
func (v Values) check() error {
	if _, err := Parse("storage", v.Spec.String()); err != nil || (v.Claim != "" && v.NFS != nil) {
		return fmt.Errorf("storage %s: not a storage easyai submits", v.Spec.String())
	}
	for name, p := range map[string]string{"jobDir": v.JobDir, "dataDir": v.DataDir} {
		if CheckSubPath(name, p) != nil {
			return fmt.Errorf("storage.%s %q: not a relative path below the prefix", name, p)
		}
	}
	if strings.Contains(v.JobDir, "/") {
		return fmt.Errorf("storage.jobDir %q: not one directory", v.JobDir)
	}
	if v.PreJobDir != "" && (CheckSubPath("preJobDir", v.PreJobDir) != nil || strings.Contains(v.PreJobDir, "/")) {
		return fmt.Errorf("storage.preJobDir %q: not one directory", v.PreJobDir)
	}
	return nil
}

// Volume is the volume source of the storage.
func (s Spec) Volume(readOnly bool) corev1.VolumeSource {
	if s.NFS != nil {
		return corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: s.NFS.Server, Path: s.NFS.Path, ReadOnly: readOnly}}
	}
	return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.Claim, ReadOnly: readOnly}}
}
