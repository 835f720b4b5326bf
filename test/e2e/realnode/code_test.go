//go:build e2e

package realnode

import (
	"context"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// --code git: clones for real: the init container runs git against a git
// server on this machine (the real node's host, on its bridge), with the
// credentials of --code-secret, and the job runs the cloned code.
func TestCodeFromGitIsClonedWithTheSecretsCredentials(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)

	url, authorized := gitServer(t, c, map[string]string{
		"train.py": "print('hello from the cloned code:', open('data.txt').read().strip())\n",
		"data.txt": "version two\n",
	})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "git-cred"}, Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": "ci-bot", "password": "s3cret-token"}}
	if _, err := c.Kube.CoreV1().Secrets(ns).Create(cluster.Context(t, time.Minute), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"submit", "pytorch", "--name", "gitcode", "--code", "git:" + url, "--code-secret", "git-cred"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "python3", "train.py")...).MustSucceed(t)
	res := easyai.RunWith(t, alice, "wait", "gitcode", "--timeout", "4m")
	if res.Code != 0 {
		t.Errorf("wait: exit %d, stderr %q", res.Code, res.Stderr)
	}
	res = easyai.RunWith(t, alice, "logs", "gitcode")
	if !strings.Contains(res.Stdout, "[master-0] hello from the cloned code: version two\n") {
		t.Errorf("logs: the cloned code did not run:\n%s", res.Stdout)
	}
	if authorized.Load() == 0 {
		t.Errorf("the git server saw no request with the secret's credentials")
	}
}

// --code dir: uploads a local directory onto the storage and the job runs
// it; a second job reads the first one's model with --pretrained-from.
func TestCodeFromADirectoryAndAPretrainedModel(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	c.RealNodeClaim(t, ns, "team-data")

	code := t.TempDir()
	if err := os.WriteFile(filepath.Join(code, "train.py"), []byte(`import os
print("training from", os.getcwd())
with open(os.path.join(os.environ["model_dir"], "model.txt"), "w") as f:
    f.write("weights of the first job\n")
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"submit", "pytorch", "--name", "first", "--storage", "pvc:team-data", "--code", "dir:" + code}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "python3", "train.py")...).MustSucceed(t)
	if res := easyai.RunWith(t, alice, "wait", "first", "--timeout", "4m"); res.Code != 0 {
		t.Fatalf("wait first: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := easyai.RunWith(t, alice, "logs", "first"); !strings.Contains(res.Stdout, "[master-0] training from /workspace\n") {
		t.Errorf("logs of first: the uploaded code did not run:\n%s", res.Stdout)
	}

	args = append([]string{"submit", "pytorch", "--name", "second", "--storage", "pvc:team-data", "--pretrained-from", "first"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "sh", "-c", `echo "starting from: $(cat "$pre_model_dir/model.txt")"`)...).MustSucceed(t)
	if res := easyai.RunWith(t, alice, "wait", "second", "--timeout", "4m"); res.Code != 0 {
		t.Fatalf("wait second: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := easyai.RunWith(t, alice, "logs", "second"); !strings.Contains(res.Stdout, "[master-0] starting from: weights of the first job\n") {
		t.Errorf("logs of second: the first job's model was not read:\n%s", res.Stdout)
	}
}

// gitServer serves a repository of files over git's smart HTTP protocol
// (git http-backend), on the real node's host address, to a client that
// gives ci-bot's password. It returns the repository's URL and the count of
// authorized requests.
func gitServer(t *testing.T, c *cluster.Cluster, files map[string]string) (string, *atomic.Int32) {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(root, "init", "-q", "-b", "main", work)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(work, "add", ".")
	git(work, "commit", "-q", "-m", "the code")
	git(root, "clone", "-q", "--bare", work, filepath.Join(root, "repo.git"))

	backend, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	handler := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(backend)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	var authorized atomic.Int32
	server := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, password, ok := r.BasicAuth(); !ok || user != "ci-bot" || password != "s3cret-token" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		handler.ServeHTTP(w, r)
	})}
	// The pods reach this machine at the real node's address, the bridge's.
	node, err := c.Kube.CoreV1().Nodes().Get(cluster.Context(t, time.Minute), cluster.RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := ""
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			host = a.Address
		}
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("listening on the real node's address %q: %v", host, err)
	}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
	})
	return "http://" + listener.Addr().String() + "/repo.git", &authorized
}
