package submit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// askNothing is a prompter that is never asked.
type askNothing struct{ name string }

func (askNothing) Input(string, string, string) (string, error) { return "", errors.New("asked") }
func (askNothing) Confirm(string, bool) (bool, error)           { return false, errors.New("asked") }

// TestUseEnv: the run's settings, notes and code upload replace the
// submission's, this easyai's version is recorded, and a prompter only
// when there is one (a terminal).
func TestUseEnv(t *testing.T) {
	var notes bytes.Buffer
	own := askNothing{"own"}
	s := &JobRequest{Prompter: own}
	s.UseEnv(RunEnv{Settings: Settings{Image: "train:1", Queue: "q"}, Notes: &notes})
	if s.Settings.Image != "train:1" || s.Settings.Queue != "q" || s.Notes != &notes || s.CLIVersion != build.Version {
		t.Errorf("submission %+v", s)
	}
	if s.Prompter != own {
		t.Errorf("without a terminal the prompter is %v, want the submission's own", s.Prompter)
	}
	terminal := askNothing{"terminal"}
	s.UseEnv(RunEnv{Prompter: terminal})
	if s.Prompter != terminal {
		t.Errorf("prompter %v, want the run's", s.Prompter)
	}
}

func codeJob() *unstructured.Unstructured {
	job := &unstructured.Unstructured{}
	job.SetAPIVersion("kubeflow.org/v1")
	job.SetKind("TFJob")
	job.SetNamespace("team-a")
	job.SetName("mnist")
	return job
}

// TestCodeUploaderFailsBeforeAnyPod: clients that cannot be had, or a
// directory that cannot be read, fail the upload before an uploader pod
// is made, and nothing is removed.
func TestCodeUploaderFailsBeforeAnyPod(t *testing.T) {
	kube := kubefake.NewClientset()
	var notes bytes.Buffer
	spec := storage.Spec{Claim: "team-data", Prefix: "teams/a"}
	refused := errors.New("no Kubernetes here")
	c := CodeUploader{Clients: func() (*remote.Clients, error) { return nil, refused }, Notes: &notes}
	if _, err := c.Upload(context.Background(), codeJob(), spec, "teams/a/mnist-x/code", "teams/a/mnist-x", t.TempDir()); !errors.Is(err, refused) {
		t.Errorf("without clients: %v", err)
	}

	c.Clients = func() (*remote.Clients, error) {
		return &remote.Clients{Namespace: "team-a", Kube: kube, Config: &rest.Config{}}, nil
	}
	missing := filepath.Join(t.TempDir(), "missing")
	_, err := c.Upload(context.Background(), codeJob(), spec, "teams/a/mnist-x/code", "teams/a/mnist-x", missing)
	if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), "--code dir:"+missing+": ") {
		t.Errorf("a missing directory: %v (exit %d)", err, exit.Code(err))
	}
	if len(kube.Actions()) != 0 || notes.Len() != 0 {
		t.Errorf("actions %v, notes %q", kube.Actions(), notes.String())
	}

	big := t.TempDir()
	if err := os.WriteFile(filepath.Join(big, "weights.bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(big, "weights.bin"), MaxCodeBytes+1); err != nil {
		t.Fatal(err)
	}
	_, err = c.Upload(context.Background(), codeJob(), spec, "teams/a/mnist-x/code", "teams/a/mnist-x", big)
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "more than the 268435456 bytes allowed") || len(kube.Actions()) != 0 {
		t.Errorf("too much code: %v (exit %d), actions %v", err, exit.Code(err), kube.Actions())
	}
}
