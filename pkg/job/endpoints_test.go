package job

import (
	"reflect"
	"strings"
	"testing"
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
		if _, err := Endpoints(map[string]string{EndpointsAnnotation: bad}); err == nil || !strings.Contains(err.Error(), EndpointsAnnotation) {
			t.Errorf("%s: %v, want an error naming the annotation", bad, err)
		}
	}
}
