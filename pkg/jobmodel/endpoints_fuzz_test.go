package jobmodel

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// FuzzEndpoints reads any endpoints annotation, as anyone who may edit a job
// can write one: it never panics, a bad one is a usage error naming the
// annotation, and what it accepts has a valid port and Secret name.
func FuzzEndpoints(f *testing.F) {
	for _, seed := range []string{
		`{"jupyter":{"task":"master-0","port":8888,"path":"/lab","tokenSecret":"mnist-jupyter"},"tensorboard":{"port":6006}}`,
		`{"jupyter":8888}`, `{"tb":{"port":0}}`, `{"tb":{"port":70000}}`, `{"tb":{"port":-1}}`,
		`{"tb":{"port":6006,"tokenSecret":"../../x"}}`, `{"tb":{"port":6006,"tokenSecret":"Bad_Name"}}`,
		`null`, `{}`, `[]`, `""`, `{"":{"port":1}}`, `{"a":null}`, `{"a":{"port":1e3}}`, `{"a":{"port":65536}}`,
		"{\"\\u0000\x1b[31m\":{\"port\":0}}", `{"a":{"port":1,"path":"//evil.example/?x#y"}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := Endpoints(map[string]string{EndpointsAnnotation: raw})
		if err != nil {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), EndpointsAnnotation) {
				t.Fatalf("%q: exit %d, %v; want a usage error naming the annotation", raw, exit.Code(err), err)
			}
			return
		}
		if got == nil {
			t.Fatalf("%q: a nil map", raw)
		}
		for name, e := range got {
			if e.Port < 1 || e.Port > 65535 {
				t.Errorf("%q: %q has port %d", raw, name, e.Port)
			}
			if e.TokenSecret != "" && len(validation.IsDNS1123Subdomain(e.TokenSecret)) > 0 {
				t.Errorf("%q: %q has tokenSecret %q", raw, name, e.TokenSecret)
			}
		}
	})
}
