package jobmodel

import (
	"reflect"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func TestEndpoints(t *testing.T) {
	got, err := Endpoints(map[string]string{EndpointsAnnotation: `{"jupyter":{"task":"master-0","port":8888,"path":"/lab","tokenSecret":"mnist-jupyter"},"tensorboard":{"port":6006}}`})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Endpoint{
		"jupyter":     {Task: "master-0", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter"},
		"tensorboard": {Port: 6006},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	if names := EndpointNames(got); strings.Join(names, ",") != "jupyter,tensorboard" {
		t.Errorf("names %v", names)
	}
	if got, err := Endpoints(nil); err != nil || len(got) != 0 {
		t.Errorf("no annotation: %v, %v", got, err)
	}
	for _, bad := range []string{`{"jupyter":8888}`, `{"tb":{"port":0}}`, `{"tb":{"port":70000}}`} {
		if _, err := Endpoints(map[string]string{EndpointsAnnotation: bad}); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), EndpointsAnnotation) {
			t.Errorf("%s: %v, want a usage error naming the annotation", bad, err)
		}
	}
}

func TestEndpointsRefusesWhatIsNoSecretName(t *testing.T) {
	for _, bad := range []string{`{"jupyter":{"port":8888,"tokenSecret":"../../serviceaccounts/default/token"}}`, `{"jupyter":{"port":8888,"tokenSecret":"Bad_Name"}}`} {
		_, err := Endpoints(map[string]string{EndpointsAnnotation: bad})
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `"jupyter" has tokenSecret`) {
			t.Errorf("%s: exit %d, %v; want a usage error naming the endpoint and the field", bad, exit.Code(err), err)
		}
	}
	if got, err := Endpoints(map[string]string{EndpointsAnnotation: "null"}); err != nil || got == nil {
		t.Errorf("null: %v, %v; want an empty map", got, err)
	}
}

func TestEndpointsServiceAndLogin(t *testing.T) {
	got, err := Endpoints(map[string]string{EndpointsAnnotation: `{"tensorboard":{"service":"mnist-tensorboard","port":6006},"code-server":{"task":"master-0","port":13337,"tokenSecret":"mnist-code-server","login":"password"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if got["tensorboard"].Service != "mnist-tensorboard" || got["code-server"].Login != LoginPassword {
		t.Errorf("got %+v", got)
	}
	for bad, field := range map[string]string{
		`{"tb":{"service":"Not_A_Service","port":6006}}`:                `"tb" has service`,
		`{"tb":{"service":"tb","task":"master-0","port":6006}}`:         "both a service and a task",
		`{"cs":{"port":13337,"tokenSecret":"cs","login":"basic-auth"}}`: `"cs" has login "basic-auth"`,
	} {
		if _, err := Endpoints(map[string]string{EndpointsAnnotation: bad}); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want a usage error saying %s", bad, err, field)
		}
	}
}
