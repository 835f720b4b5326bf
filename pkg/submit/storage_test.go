package submit

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
)

func TestParseCode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		in   string
		want GitCode
		err  string
	}{
		{in: "git:https://github.com/org/repo.git", want: GitCode{URL: "https://github.com/org/repo.git"}},
		{in: "git:https://github.com/org/repo.git@v1.2#src/train", want: GitCode{URL: "https://github.com/org/repo.git", Ref: "v1.2", Subdir: "src/train"}},
		{in: "git:git@github.com:org/repo.git", want: GitCode{URL: "git@github.com:org/repo.git"}},
		{in: "git:git@github.com:org/repo.git@main", want: GitCode{URL: "git@github.com:org/repo.git", Ref: "main"}},
		{in: "git:ssh://git@host/org/repo@0a1b2c3", want: GitCode{URL: "ssh://git@host/org/repo", Ref: "0a1b2c3"}},
		{in: "git:https://user:token@github.com/org/repo.git", err: "carries credentials"},
		{in: "git:https://token@github.com/org/repo.git", err: "carries credentials"},
		{in: "git:file:///etc/repo", err: "not a repository URL"},
		{in: "git:ftp://h/repo", err: `scheme "ftp"`},
		{in: "git:https://h/r.git@--upload-pack=x", err: "not a branch, tag or commit"},
		{in: "git:https://h/r.git#../up", err: "clean relative path"},
		{in: "git:https://h/r $(id).git", err: "spaces, quotes"},
		{in: "svn:https://h/r", err: `unknown scheme "svn"`},
		{in: "dir:" + dir + "/missing", err: "no such file"},
		{in: "dir:", err: "no directory"},
	} {
		code, err := ParseCode(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || exit.Code(err) != exit.Usage {
				t.Errorf("ParseCode(%q) = %v, want a usage error saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || code.Git == nil || *code.Git != c.want {
			t.Errorf("ParseCode(%q) = %+v, %v; want %+v", c.in, code.Git, err, c.want)
		}
	}
	if code, err := ParseCode("dir:" + dir); err != nil || code.Dir != dir {
		t.Errorf("dir: %+v, %v", code, err)
	}
}

// storageSubmission is a tf submission with the given flags set.
func storageSubmission(t *testing.T, flags map[string]string) (*Submission, *bytes.Buffer) {
	t.Helper()
	s := submission(t, "tf")
	notes := &bytes.Buffer{}
	s.Notes = notes
	s.DryRun = DryRunClient
	s.ClientUser = func() (string, error) { return "alice@corp", nil }
	s.Flags = Flags{Image: "img", Command: []string{"python", "train.py"}, Workers: 2}
	for flag, value := range flags {
		switch flag {
		case "storage":
			s.Flags.Storage = value
		case "data-dir":
			s.Flags.DataDir = value
		case "pretrained-from":
			s.Flags.PretrainedFrom = value
		case "no-persist-logs":
			s.Flags.NoPersistLogs = true
		case "persist-logs":
			s.Flags.PersistLogs = true
		case "code":
			s.Flags.Code = value
		case "code-secret":
			s.Flags.CodeSecret = value
		case "name":
			s.Flags.Name = value
		}
	}
	s.Flags.Changed = func(flag string) bool {
		_, ok := flags[flag]
		return ok || flag == "image" || flag == "command" || flag == "workers"
	}
	return s, notes
}

// requestOf is the storage a submitted job records.
func requestOf(t *testing.T, obj *unstructured.Unstructured) storage.Values {
	t.Helper()
	var req struct {
		Storage storage.Values `json:"storage"`
	}
	if _, err := jobmodel.ReadRequest(obj.GetAnnotations(), &req); err != nil {
		t.Fatal(err)
	}
	return req.Storage
}

func TestStorageFromFlagsAndConfiguration(t *testing.T) {
	s, _ := storageSubmission(t, map[string]string{"storage": "pvc:team:/vision", "name": "mnist"})
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v := requestOf(t, res.Object)
	if v.Claim != "team" || v.Prefix != "vision" || !strings.HasPrefix(v.JobDir, "mnist-") || v.DataDir != "data/alice_corp-244e5ee0" || !v.PersistLogs {
		t.Errorf("storage %+v: want the claim, a new job dir, data/USER and persisted logs", v)
	}
	if got := res.Object.GetAnnotations()[jobmodel.JobDirAnnotation]; got != v.JobDir {
		t.Errorf("annotation %s = %q, want %q", jobmodel.JobDirAnnotation, got, v.JobDir)
	}
	first := v.JobDir

	// The same submission again (a rerun) gets a new job directory.
	s, _ = storageSubmission(t, map[string]string{"storage": "pvc:team:/vision", "name": "mnist"})
	res, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again := requestOf(t, res.Object).JobDir; again == first {
		t.Errorf("a second submission writes into %s again", again)
	}

	// The configuration's storage, --data-dir and --no-persist-logs.
	s, _ = storageSubmission(t, map[string]string{"data-dir": "datasets/imagenet", "no-persist-logs": ""})
	s.Settings.Storage = "nfs:nfs.example.com:/ml"
	res, err = s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v = requestOf(t, res.Object)
	if v.NFS == nil || v.NFS.Server != "nfs.example.com" || v.DataDir != "datasets/imagenet" || v.PersistLogs {
		t.Errorf("storage %+v", v)
	}

	// --storage wins over the configuration's.
	s, _ = storageSubmission(t, map[string]string{"storage": "pvc:mine"})
	s.Settings.Storage = "nfs:nfs.example.com:/ml"
	if res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v = requestOf(t, res.Object); v.Claim != "mine" || v.NFS != nil && v.NFS.Server != "" {
		t.Errorf("storage %+v, want --storage's only", v)
	}

	// No storage: nothing is mounted, and no job dir is recorded.
	s, _ = storageSubmission(t, nil)
	if res, err = s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Object.GetAnnotations()[jobmodel.JobDirAnnotation]; ok {
		t.Error("a job without storage has a job dir")
	}
	data, _ := json.Marshal(res.Object.Object)
	if strings.Contains(string(data), "easyai-storage") || strings.Contains(string(data), "model_dir") {
		t.Error("a job without storage mounts it")
	}
}

func TestStorageFlagsNeedAStorage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"data-dir": "x"}, "--data-dir: the job has no storage"},
		{map[string]string{"persist-logs": ""}, "--persist-logs: the job has no storage"},
		{map[string]string{"pretrained-from": "old"}, "--pretrained-from: the job has no storage"},
		{map[string]string{"code": "dir:" + dir}, "--code dir: the code is uploaded onto the storage"},
		{map[string]string{"storage": "s3:bucket"}, `--storage "s3:bucket": unknown scheme "s3"`},
		{map[string]string{"storage": "pvc:x", "data-dir": "/abs"}, "--data-dir \"/abs\": must be a clean relative path"},
		{map[string]string{"storage": "pvc:x", "persist-logs": "", "no-persist-logs": ""}, "give one"},
		{map[string]string{"storage": "pvc:x", "pretrained-from": "old"}, "not with --dry-run=client"},
		{map[string]string{"code-secret": "s"}, "--code-secret is the credentials of --code git:URL: give --code"},
		{map[string]string{"code": "dir:" + dir, "code-secret": "s", "storage": "pvc:x"}, "--code-secret is for --code git:URL"},
	} {
		s, _ := storageSubmission(t, c.flags)
		_, err := s.Run(context.Background())
		if err == nil || exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error saying %q", c.flags, err, c.want)
		}
	}
}

func TestCodeFromGit(t *testing.T) {
	s, _ := storageSubmission(t, map[string]string{"code": "git:https://github.com/org/repo.git@v1#src", "code-secret": "git-creds"})
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(res.Object.Object, "spec", "tfReplicaSpecs", "Worker", "template", "spec")
	data, _ := json.Marshal(spec)
	text := string(data)
	for _, want := range []string{`"workingDir":"/workspace"`, `"secretName":"git-creds"`, `"initContainers"`, `"value":"https://github.com/org/repo.git"`, `"value":"v1"`, `"subPath":"src"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the pod spec lacks %s: %s", want, text)
		}
	}
}

// fakeCluster answers GETs of claims (and nothing else) from objects.
func fakeCluster(t *testing.T, forbidden bool, objs ...runtime.Object) func() (dynamic.Interface, error) {
	t.Helper()
	scheme := runtime.NewScheme()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{PVCs: "PersistentVolumeClaimList"}, objs...)
	if forbidden {
		client.PrependReactor("get", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(PVCs.GroupResource(), "team", nil)
		})
	}
	return func() (dynamic.Interface, error) { return client, nil }
}

func claim(name string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind("PersistentVolumeClaim")
	obj.SetName(name)
	obj.SetNamespace("team-a")
	return obj
}

func TestTheClaimIsCheckedBeforeSubmitting(t *testing.T) {
	s, _ := storageSubmission(t, map[string]string{"storage": "pvc:missing"})
	s.DryRun, s.Namespace = DryRunServer, "team-a"
	s.User = func(context.Context) (string, error) { return "alice", nil }
	s.Dynamic = fakeCluster(t, false, claim("team"))
	_, err := s.Run(context.Background())
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `--storage: no PersistentVolumeClaim "missing" in namespace team-a`) {
		t.Errorf("a missing claim: %v", err)
	}

	s, notes := storageSubmission(t, map[string]string{"storage": "pvc:team"})
	s.DryRun, s.Namespace = DryRunServer, "team-a"
	s.User = func(context.Context) (string, error) { return "alice", nil }
	s.Dynamic = fakeCluster(t, true)
	_, err = s.Run(context.Background())
	// The fake has no TFJobs to create: only the claim's check matters.
	if err != nil && strings.Contains(err.Error(), "PersistentVolumeClaim") {
		t.Errorf("a claim the user may not read: %v", err)
	}
	if !strings.Contains(notes.String(), "Storage: claim team not checked") {
		t.Errorf("notes %q, want one line saying the claim was not checked", notes.String())
	}
}

// A claim of --data is checked as --storage's: a pod naming a missing claim
// is never scheduled (and holds up Volcano's scheduler for everyone).
func TestTheClaimsOfDataAreCheckedBeforeSubmitting(t *testing.T) {
	s, _ := storageSubmission(t, nil)
	s.Flags.Data = []string{"team:/data", "missing:/more:ro"}
	s.DryRun, s.Namespace = DryRunServer, "team-a"
	s.User = func(context.Context) (string, error) { return "alice", nil }
	s.Dynamic = fakeCluster(t, false, claim("team"))
	_, err := s.Run(context.Background())
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `--data missing:/more: no PersistentVolumeClaim "missing" in namespace team-a`) {
		t.Errorf("a missing claim of --data: %v", err)
	}

	s, notes := storageSubmission(t, nil)
	s.Flags.Data = []string{"team:/data"}
	s.DryRun, s.Namespace = DryRunServer, "team-a"
	s.User = func(context.Context) (string, error) { return "alice", nil }
	s.Dynamic = fakeCluster(t, true)
	_, err = s.Run(context.Background())
	if err != nil && strings.Contains(err.Error(), "PersistentVolumeClaim") {
		t.Errorf("a claim the user may not read: %v", err)
	}
	if !strings.Contains(notes.String(), "Storage: claim team not checked") {
		t.Errorf("notes %q, want one line saying the claim was not checked", notes.String())
	}

	s, _ = storageSubmission(t, nil)
	s.Flags.Data = []string{"missing:/data"}
	if _, err := s.Run(context.Background()); err != nil && strings.Contains(err.Error(), "PersistentVolumeClaim") {
		t.Errorf("--dry-run=client reads no claim: %v", err)
	}
}

func TestPretrainedFrom(t *testing.T) {
	withStorage := func(request, dir string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		obj.SetName("old")
		obj.SetAnnotations(map[string]string{jobmodel.RequestAnnotation: request, jobmodel.JobDirAnnotation: dir})
		return obj
	}
	for _, c := range []struct {
		name string
		job  *unstructured.Unstructured
		err  error
		code int
		want string
	}{
		{"found", withStorage(`{"storage":{"claim":"team","jobDir":"old-bcdfg","dataDir":"data/a"}}`, "old-bcdfg"), nil, 0, "old-bcdfg"},
		{"no storage", withStorage(`{"name":"old"}`, ""), nil, exit.NotFound, "submitted without --storage"},
		{"another storage", withStorage(`{"storage":{"claim":"other","jobDir":"old-bcdfg","dataDir":"data/a"}}`, "old-bcdfg"), nil, exit.Usage, "its storage is pvc:other, this job's pvc:team"},
		{"not found", nil, exit.NotFoundErrorf("job old not found in namespace team-a"), exit.NotFound, "not found"},
	} {
		s, _ := storageSubmission(t, map[string]string{"storage": "pvc:team", "pretrained-from": "old"})
		s.DryRun, s.Namespace = DryRunServer, "team-a"
		s.FindJob = func(context.Context, string) (*unstructured.Unstructured, error) { return c.job, c.err }
		dir, err := s.pretrainedFrom(context.Background(), storage.Spec{Claim: "team"})
		if c.code == 0 {
			if err != nil || dir != c.want {
				t.Errorf("%s: %q, %v", c.name, dir, err)
			}
			continue
		}
		if exit.Code(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want exit %d saying %q", c.name, err, c.code, c.want)
		}
	}
}

// The checks of --code git: hold for the merged values: a URL with
// credentials, a ref or a subdirectory from --set or a job file (or a job
// rerun) is refused as the flag's are, and the credentials are never shown.
func TestGitCodeFromValuesIsChecked(t *testing.T) {
	k, _ := registry.Default().Lookup("tf")
	for _, tc := range []struct {
		set  []string
		file string
		want string
	}{
		{set: []string{"code.git.url=https://u:TOKEN@git.example.com/r.git"}, want: "credentials"},
		{set: []string{"code.git.url=https://TOKEN@git.example.com/r.git"}, want: "credentials"},
		{set: []string{"code.git.url=https://git.example.com/r.git", "code.git.ref=--upload-pack=touch /tmp/x"}, want: "not a branch, tag or commit"},
		{set: []string{"code.git.url=https://git.example.com/r.git", "code.git.subdir=../../etc"}, want: "subdir"},
		{file: "code:\n  git:\n    url: https://u:TOKEN@git.example.com/r.git\n", want: "credentials"},
	} {
		r := &Request{Kind: k, Values: map[string]any{"name": "j", "image": "img", "command": []any{"run"}, "workingDir": "/workspace"}, Set: tc.set}
		if tc.file != "" {
			r.ValueFiles = []render.ValueFile{{Name: "job.yaml", Data: []byte(tc.file)}}
		}
		_, err := Build(r)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "TOKEN") {
			t.Errorf("%v %q: %v (exit %d), want exit 2 saying %q without the token", tc.set, tc.file, err, exit.Code(err), tc.want)
		}
	}
	r := &Request{Kind: k, Values: map[string]any{"name": "j", "image": "img", "command": []any{"run"}, "workingDir": "/workspace"},
		Set: []string{"code.git.url=https://git.example.com/r.git", "code.git.ref=v1.2", "code.git.subdir=train"}}
	if _, err := Build(r); err != nil {
		t.Errorf("a plain URL, ref and subdir: %v", err)
	}
}

// A job file or a rerun whose values say the code was uploaded (code.dir)
// brings no code: the new job's code directory would be empty. It needs
// --code dir:PATH again.
func TestUploadedCodeFromValuesNeedsTheDirectory(t *testing.T) {
	s, _ := storageSubmission(t, map[string]string{"storage": "pvc:team-data", "name": "again"})
	s.JobFiles = []render.ValueFile{{Name: "(the values recorded on tf/first)", Data: []byte("code:\n  dir: true\nworkingDir: /workspace\n")}}
	_, err := s.Run(context.Background())
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "give --code dir:PATH") {
		t.Errorf("values with code.dir and no --code: %v (exit %d), want exit 2 asking for --code dir:PATH", err, exit.Code(err))
	}
	dir := t.TempDir()
	s, _ = storageSubmission(t, map[string]string{"storage": "pvc:team-data", "name": "again", "code": "dir:" + dir})
	s.JobFiles = []render.ValueFile{{Name: "(the values recorded on tf/first)", Data: []byte("code:\n  dir: true\nworkingDir: /workspace\n")}}
	if _, err := s.Run(context.Background()); err != nil {
		t.Errorf("with --code dir:: %v", err)
	}
}
