package tisign

import (
	"strings"
	"testing"
)

// The test vector of the gateway's signer (computed with the public
// reference signer): nothing in it may change.
func TestSignatureVector(t *testing.T) {
	in := Input{Method: "POST", ContentType: "application/json", Host: "127.0.0.1", Service: "timaker", Timestamp: 1700000000}
	if got, want := in.Scope(), "2023-11-14/timaker/tc3_request"; got != want {
		t.Errorf("scope %q, want %q", got, want)
	}
	const want = "aa95d457741752cab7b5dc4dff01e5f7833ef512c863d99e86842c6b4d97ab93"
	if got := Signature(in, "test-secret-key"); got != want {
		t.Errorf("signature %s, want %s\ncanonical request:\n%s", got, want, in.CanonicalRequest())
	}
	auth := Authorization(in, "test-secret-id", "test-secret-key")
	wantAuth := "TC3-HMAC-SHA256 Credential=test-secret-id/2023-11-14/timaker/tc3_request, SignedHeaders=content-type;host;x-tc-timestamp;, Signature=" + want
	if auth != wantAuth {
		t.Errorf("Authorization\n got %s\nwant %s", auth, wantAuth)
	}
}

func TestSignatureChangesWithEveryInput(t *testing.T) {
	base := Input{Method: "POST", ContentType: "application/json", Host: "127.0.0.1", Service: "timaker", Timestamp: 1700000000}
	sig := Signature(base, "k")
	for name, in := range map[string]Input{
		"method":       {Method: "GET", ContentType: base.ContentType, Host: base.Host, Service: base.Service, Timestamp: base.Timestamp},
		"content type": {Method: base.Method, ContentType: "text/plain", Host: base.Host, Service: base.Service, Timestamp: base.Timestamp},
		"host":         {Method: base.Method, ContentType: base.ContentType, Host: "127.0.0.2", Service: base.Service, Timestamp: base.Timestamp},
		"service":      {Method: base.Method, ContentType: base.ContentType, Host: base.Host, Service: "ti-resource-server", Timestamp: base.Timestamp},
		"timestamp":    {Method: base.Method, ContentType: base.ContentType, Host: base.Host, Service: base.Service, Timestamp: base.Timestamp + 1},
	} {
		if Signature(in, "k") == sig {
			t.Errorf("changing the %s leaves the signature as it was", name)
		}
	}
	if Signature(base, "other") == sig {
		t.Error("another key signs alike")
	}
	if strings.Contains(Authorization(base, "id", "secret-key-value"), "secret-key-value") {
		t.Error("the Authorization header holds the secret key")
	}
}
