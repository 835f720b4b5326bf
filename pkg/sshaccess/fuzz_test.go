package sshaccess

import (
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
