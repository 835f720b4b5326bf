package cluster

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// UserKubeconfig makes a user of the cluster, as a cluster admin makes one:
// a key, a certificate signing request for CN=name (O=each group) through
// the certificates.k8s.io API, approved by the admin and signed by the
// cluster's CA (the controller-manager's signer). It returns the path of a
// kubeconfig that authenticates as that user, its context's namespace set
// to namespace. The user has no rights until the test binds some.
func (c *Cluster) UserKubeconfig(t testing.TB, name, namespace string, groups ...string) string {
	t.Helper()
	ctx := Context(t, time.Minute)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: name, Organization: groups}}, key)
	if err != nil {
		t.Fatal(err)
	}
	csrName := "e2e-" + notDNS.ReplaceAllString(t.Name(), "-") + "-" + name
	if len(csrName) > 200 {
		csrName = csrName[:200]
	}
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	_ = csrs.Delete(ctx, csrName, metav1.DeleteOptions{})
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: csrName},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:           pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName:        certificatesv1.KubeAPIServerClientSignerName,
			ExpirationSeconds: ptrInt32(3600),
			Usages:            []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth},
		},
	}
	created, err := csrs.Create(ctx, csr, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the CSR of user %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = csrs.Delete(ctx, csrName, metav1.DeleteOptions{})
	})
	created.Status.Conditions = append(created.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: "True", Reason: "E2E", Message: "approved by the end-to-end test",
	})
	if _, err := csrs.UpdateApproval(ctx, csrName, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("approving the CSR of user %s: %v", name, err)
	}
	var cert []byte
	Eventually(t, 30*time.Second, "the certificate of user "+name+" (is the controller-manager started with --cluster-signing-cert-file? hack/cluster/up.sh)",
		func(ctx context.Context) (bool, error) {
			got, err := csrs.Get(ctx, csrName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			cert = got.Status.Certificate
			return len(cert) > 0, nil
		})

	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	caData := c.Config.CAData
	if len(caData) == 0 && c.Config.CAFile != "" {
		if caData, err = os.ReadFile(c.Config.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	config := clientcmdapi.NewConfig()
	config.Clusters["cluster"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: caData}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cert,
		ClientKeyData:         pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: name, Namespace: namespace}
	config.CurrentContext = name
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptrInt32(v int32) *int32 { return &v }

// ServiceAccountKubeconfig writes a kubeconfig that acts as ServiceAccount
// name of namespace, with a token of it (TokenRequest, an hour), and
// returns its path: what a pod of that ServiceAccount may do, without the
// pod.
func (c *Cluster) ServiceAccountKubeconfig(t testing.TB, namespace, name string) string {
	t.Helper()
	ctx := Context(t, time.Minute)
	tok, err := c.Kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptrInt64(3600)}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token of ServiceAccount %s/%s: %v", namespace, name, err)
	}
	caData := c.Config.CAData
	if len(caData) == 0 && c.Config.CAFile != "" {
		if caData, err = os.ReadFile(c.Config.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	config := clientcmdapi.NewConfig()
	config.Clusters["cluster"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: caData}
	config.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: name, Namespace: namespace}
	config.CurrentContext = name
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptrInt64(v int64) *int64 { return &v }
