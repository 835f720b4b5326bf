package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// MaxCodeBytes bounds the files --code dir:PATH uploads: code, not data
// (upload data with easyai upload).
const MaxCodeBytes = 256 << 20

// DefaultCodeDir is the working directory of a job with --code and no
// --working-dir: where its code is.
const DefaultCodeDir = "/workspace"

// storageValues are the flags' part of the "storage" value.
func (f *Flags) storageValues() (map[string]any, error) {
	st := map[string]any{}
	if f.Changed("storage") {
		spec, err := storage.Parse("--storage", f.Storage)
		if err != nil {
			return nil, err
		}
		st = specValues(spec)
	}
	if f.Changed("data-dir") {
		if err := storage.CheckSubPath("--data-dir", f.DataDir); err != nil {
			return nil, err
		}
		st["dataDir"] = f.DataDir
	}
	switch {
	case f.Changed("persist-logs") && f.Changed("no-persist-logs"):
		return nil, exit.UsageErrorf("--persist-logs and --no-persist-logs: give one")
	case f.Changed("persist-logs"):
		st["persistLogs"] = f.PersistLogs
	case f.Changed("no-persist-logs"):
		st["persistLogs"] = !f.NoPersistLogs
	}
	if f.Changed("pretrained-from") {
		if err := CheckName("--pretrained-from", f.PretrainedFrom); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// specValues is a storage spec as chart values; the other scheme's values
// are emptied, so that --storage wins over a job file's storage.
func specValues(spec storage.Spec) map[string]any {
	v := map[string]any{"claim": spec.Claim, "nfs": map[string]any{"server": "", "path": ""}, "prefix": spec.Prefix}
	if spec.NFS != nil {
		v["nfs"] = map[string]any{"server": spec.NFS.Server, "path": spec.NFS.Path}
	}
	return v
}

// Code is a parsed --code: a git repository, or a local directory.
type Code struct {
	Git *GitCode
	// Dir is the local directory uploaded onto the storage.
	Dir string
}

// GitCode is --code git:URL[@REF][#SUBDIR].
type GitCode struct {
	URL, Ref, Subdir string
}

// CodeForm is how --code is written.
const CodeForm = "git:URL[@REF][#SUBDIR] or dir:PATH"

// userInfo is the credentials of a URL, never shown.
var userInfo = regexp.MustCompile(`//[^/@]*@`)

var gitRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)

// ParseCode reads --code. A URL never carries credentials: they come from
// --code-secret, so that they are in no argument, annotation or output.
func ParseCode(s string) (Code, error) {
	bad := func(why string, args ...any) error {
		return exit.UsageErrorf("--code %q: %s (want %s)", userInfo.ReplaceAllString(s, "//REDACTED@"), fmt.Sprintf(why, args...), CodeForm)
	}
	scheme, rest, ok := strings.Cut(s, ":")
	switch {
	case !ok:
		return Code{}, bad("no scheme")
	case scheme == "dir":
		if rest == "" {
			return Code{}, bad("no directory")
		}
		info, err := os.Stat(rest)
		if err != nil {
			return Code{}, bad("%v", errors.Unwrap(err))
		}
		if !info.IsDir() {
			return Code{}, bad("%s is not a directory", rest)
		}
		return Code{Dir: rest}, nil
	case scheme != "git":
		return Code{}, bad("unknown scheme %q", scheme)
	}
	g := &GitCode{URL: rest}
	if i := strings.LastIndex(g.URL, "#"); i >= 0 {
		g.URL, g.Subdir = g.URL[:i], g.URL[i+1:]
		if err := storage.CheckSubPath("--code #SUBDIR", g.Subdir); err != nil {
			return Code{}, err
		}
	}
	// A ref follows the last "@" after the last "/": git@host:org/repo@v1.
	if at := strings.LastIndex(g.URL, "@"); at > strings.LastIndex(g.URL, "/") {
		g.URL, g.Ref = g.URL[:at], g.URL[at+1:]
		if !gitRef.MatchString(g.Ref) || strings.Contains(g.Ref, "..") {
			return Code{}, bad("%q is not a branch, tag or commit", g.Ref)
		}
	}
	if err := checkGitURL(g.URL); err != nil {
		return Code{}, bad("%v", err)
	}
	return Code{Git: g}, nil
}

var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/-]+$`)

// checkGitURL accepts https, http, ssh and git URLs and scp-like
// user@host:path, without credentials, spaces or control characters.
func checkGitURL(raw string) error {
	if strings.ContainsAny(raw, " \t\r\n\"'`$\\") {
		return errors.New("the URL has spaces, quotes or control characters")
	}
	if scpLike.MatchString(raw) {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not a repository URL (https://host/org/repo.git, ssh://git@host/org/repo.git or git@host:org/repo.git)")
	}
	switch u.Scheme {
	case "https", "http", "ssh", "git":
	default:
		return fmt.Errorf("scheme %q: want https, http, ssh or git", u.Scheme)
	}
	if _, hasPassword := u.User.Password(); hasPassword || (u.User != nil && u.Scheme != "ssh") {
		return errors.New("the URL carries credentials: put them in a Secret and give --code-secret NAME")
	}
	return nil
}

// codeValues are the flags' "code" value.
func (f *Flags) codeValues() (map[string]any, error) {
	if f.Changed("code-secret") && !f.Changed("code") {
		return nil, exit.UsageErrorf("--code-secret is the credentials of --code git:URL: give --code")
	}
	if !f.Changed("code") {
		return nil, nil
	}
	code, err := ParseCode(f.Code)
	if err != nil {
		return nil, err
	}
	if code.Dir != "" {
		if f.Changed("code-secret") {
			return nil, exit.UsageErrorf("--code-secret is for --code git:URL, not a local directory")
		}
		return map[string]any{"dir": true, "git": map[string]any{"url": ""}}, nil
	}
	git := map[string]any{"url": code.Git.URL, "ref": code.Git.Ref, "subdir": code.Git.Subdir, "secret": ""}
	if f.Changed("code-secret") {
		if err := CheckObjectName("Secret")("--code-secret", f.CodeSecret); err != nil {
			return nil, err
		}
		git["secret"] = f.CodeSecret
	}
	return map[string]any{"git": git, "dir": false}, nil
}

// PVCs are the API resource of PersistentVolumeClaims.
var PVCs = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}

// fillStorage completes the "storage" value once the job's name and user
// are known: the configuration's storage when neither the flags nor the
// job files give one, a new job directory, data/{user}, persisted logs by
// default, --pretrained-from's job directory; and, online, checks that the
// claim exists. Flags that need a storage fail without one.
func (s *Submission) fillStorage(ctx context.Context, req *Request, resolved map[string]any) error {
	var raw struct {
		Storage struct {
			storage.Values
			PersistLogs *bool `json:"persistLogs"`
		} `json:"storage"`
	}
	if err := remarshal(resolved, &raw); err != nil {
		return exit.UsageErrorf("storage: %v", err)
	}
	// Values that say the code was uploaded (a job file, get -o values, a
	// rerun) bring no code: it was on the old job's directory, and the new
	// job's would be empty. The directory must be given again.
	if code, _ := resolved["code"].(map[string]any); code != nil && code["dir"] == true && !s.uploadsCode() {
		return exit.UsageErrorf("%s: the job's code was uploaded with --code dir:PATH and is not kept with its values: give --code dir:PATH to upload it for this job", req.Source("code.dir"))
	}
	v := raw.Storage.Values
	v.Spec = v.Spec.Normalized()
	origin, err := s.defaultStorage(req, &v)
	if err != nil {
		return err
	}
	if v.IsZero() {
		return s.checkNoStorageNeeded(resolved)
	}
	set, err := s.jobStorage(ctx, req, resolved, v)
	if err != nil {
		return err
	}
	if raw.Storage.PersistLogs == nil {
		set["persistLogs"] = true
	}
	req.Values = render.MergeMaps(req.Values, map[string]any{"storage": set})
	if v.Claim != "" && s.DryRun != DryRunClient {
		return s.checkClaim(ctx, origin, v.Claim)
	}
	return nil
}

// defaultStorage gives the job the configuration's storage when its
// values v have none, and names where its storage comes from (for a
// message about its claim).
func (s *Submission) defaultStorage(req *Request, v *storage.Values) (origin string, err error) {
	origin = "the job file's storage"
	if s.Flags.given("storage") {
		origin = "--storage"
	}
	if v.IsZero() && s.Settings.Storage != "" {
		spec, err := storage.Parse("the configuration's storage", s.Settings.Storage)
		if err != nil {
			return "", err
		}
		v.Spec, origin = spec, "the configuration's storage ("+spec.String()+")"
		req.Values = render.MergeMaps(req.Values, map[string]any{"storage": specValues(spec)})
	}
	return origin, nil
}

// checkNoStorageNeeded fails for what needs a storage, the job having none:
// workspaces, --data-dir, --pretrained-from, --persist-logs, uploaded code.
func (s *Submission) checkNoStorageNeeded(resolved map[string]any) error {
	if len(s.Workspaces) > 0 {
		return exit.UsageErrorf("%s keeps its workspace on the team's storage: give --storage %s (or easyai config set storage ...)", s.WorkspacesFor, storage.Form)
	}
	for _, flag := range []string{"data-dir", "pretrained-from", "persist-logs"} {
		if s.Flags.given(flag) {
			return exit.UsageErrorf("--%s: the job has no storage: give --storage %s (or easyai config set storage ...)", flag, storage.Form)
		}
	}
	if code, _ := resolved["code"].(map[string]any); code != nil && code["dir"] == true {
		return exit.UsageErrorf("--code dir: the code is uploaded onto the storage: give --storage %s", storage.Form)
	}
	return nil
}

// jobStorage are the storage values of this job on the storage v: its new
// directory, data/{user} unless the values name a data directory, the
// workspaces and --pretrained-from's job directory.
func (s *Submission) jobStorage(ctx context.Context, req *Request, resolved map[string]any, v storage.Values) (map[string]any, error) {
	name, _ := resolved["name"].(string)
	set := map[string]any{"jobDir": storage.NewJobDir(name)}
	if v.DataDir == "" {
		set["dataDir"] = storage.DefaultDataDir(req.User)
	}
	if len(s.Workspaces) > 0 {
		ws, err := s.workspaces(req.User)
		if err != nil {
			return nil, err
		}
		set["workspaces"] = ws
	}
	if s.Flags.given("pretrained-from") {
		if s.DryRun == DryRunClient {
			return nil, exit.UsageErrorf("--pretrained-from reads the other job from the cluster: not with --dry-run=client (--dry-run=server asks it)")
		}
		dir, err := s.pretrainedFrom(ctx, v.Spec)
		if err != nil {
			return nil, err
		}
		set["preJobDir"] = dir
	}
	return set, nil
}

// workspaces are the Workspaces as the "storage.workspaces" value, {user}
// standing for user's directory name.
func (s *Submission) workspaces(user string) ([]any, error) {
	var ws []any
	for _, w := range s.Workspaces {
		sub := strings.ReplaceAll(w.Sub, "{user}", path.Base(storage.DefaultDataDir(user)))
		if err := storage.CheckSubPath("workspace", sub); err != nil {
			return nil, err
		}
		ws = append(ws, map[string]any{"sub": sub, "mountPath": w.MountPath})
	}
	return ws, nil
}

// pretrainedFrom is the job directory of --pretrained-from's job, which must
// be on the same storage.
func (s *Submission) pretrainedFrom(ctx context.Context, spec storage.Spec) (string, error) {
	name := s.Flags.PretrainedFrom
	if s.FindJob == nil {
		return "", exit.UsageErrorf("--pretrained-from: this platform cannot look the job up")
	}
	obj, err := s.FindJob(ctx, name)
	if err != nil {
		return "", err
	}
	pre, err := storage.Of(obj)
	switch {
	case errors.Is(err, storage.ErrNoStorage):
		return "", exit.NotFoundErrorf("--pretrained-from %s: the job was submitted without --storage: it has no model_dir to start from", name)
	case err != nil:
		return "", exit.UsageErrorf("--pretrained-from %s: %v", name, err)
	case !pre.Spec.Same(spec):
		return "", exit.UsageErrorf("--pretrained-from %s: its storage is %s, this job's %s: a job reads a model only from its own storage", name, pre.Spec.String(), spec.String())
	}
	return pre.JobDir, nil
}

// checkDataClaims checks each claim of --data (the "data" value) as
// --storage's is checked: a pod naming a missing claim is never scheduled,
// and Volcano 1.10's scheduler stops scheduling every other pod of the
// cluster while such a pod waits.
func (s *Submission) checkDataClaims(ctx context.Context, resolved map[string]any) error {
	if s.DryRun == DryRunClient {
		return nil
	}
	data, _ := resolved["data"].([]any)
	for _, d := range data {
		d, _ := d.(map[string]any)
		if claim, _ := d["claim"].(string); claim != "" {
			mount, _ := d["mountPath"].(string)
			if err := s.checkClaim(ctx, "--data "+claim+":"+mount, claim); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkClaim fails when the claim does not exist in the namespace; a user
// who may not read claims gets a note instead.
func (s *Submission) checkClaim(ctx context.Context, origin, claim string) error {
	_, err := s.get(ctx, PVCs, s.Namespace, claim)
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return exit.UsageErrorf("%s: no PersistentVolumeClaim %q in namespace %s (kubectl get pvc -n %s lists them)", origin, claim, s.Namespace, s.Namespace)
	case apierrors.IsForbidden(err):
		if s.Notes != nil {
			fmt.Fprintf(s.Notes, "Storage: claim %s not checked (you may not read PersistentVolumeClaims in namespace %s)\n", claim, s.Namespace)
		}
		return nil
	}
	return fmt.Errorf("checking the claim %s of %s: %w", claim, origin, err)
}

// fillCode gives a job with code a working directory, where the code goes.
func fillCode(req *Request, resolved map[string]any) {
	code, _ := resolved["code"].(map[string]any)
	git, _ := code["git"].(map[string]any)
	hasCode := code != nil && (code["dir"] == true || (git != nil && git["url"] != nil && git["url"] != ""))
	if hasCode && missingString(resolved, "workingDir") {
		req.Values["workingDir"] = DefaultCodeDir
	}
}

func missingString(values map[string]any, key string) bool {
	s, _ := values[key].(string)
	return s == ""
}

// remarshal decodes values into a struct through JSON.
func remarshal(values map[string]any, into any) error {
	data, err := json.Marshal(values)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

// CodeSubPath is where --code dir:PATH is uploaded, relative to the
// storage's prefix: the job's own code directory.
func CodeSubPath(v storage.Values) string { return path.Join(v.JobDir, "code") }

// storageOf reads the storage of the values a job is rendered with.
func storageOf(resolved map[string]any) (storage.Values, error) {
	var raw struct {
		Storage storage.Values `json:"storage"`
	}
	err := remarshal(resolved, &raw)
	raw.Storage.Spec = raw.Storage.Spec.Normalized()
	return raw.Storage, err
}

// uploadsCode is true when --code dir:PATH is given: the submission
// uploads code.
func (s *Submission) uploadsCode() bool {
	return s.Flags.given("code") && strings.HasPrefix(s.Flags.Code, "dir:")
}

// uploadCode uploads --code dir:PATH onto the job's storage before the job
// is created; the returned undo removes it (nil: nothing was uploaded).
func (s *Submission) uploadCode(ctx context.Context, job *unstructured.Unstructured) (func(context.Context) error, error) {
	if !s.Flags.given("code") {
		return nil, nil
	}
	code, err := ParseCode(s.Flags.Code)
	if err != nil || code.Dir == "" {
		return nil, err
	}
	// The storage as the job records it, with its new job directory.
	v, err := storage.Of(job)
	if err != nil {
		return nil, err
	}
	if s.UploadCode == nil {
		return nil, exit.UsageErrorf("--code dir: this platform cannot upload code")
	}
	if s.Notes != nil {
		fmt.Fprintf(s.Notes, "Uploading %s to %s\n", code.Dir, v.Location(CodeSubPath(v)))
	}
	return s.UploadCode(ctx, job, v.Spec, v.OnVolume(CodeSubPath(v)), v.OnVolume(v.JobDir), code.Dir)
}
