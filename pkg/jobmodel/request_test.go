package jobmodel

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadRequest(t *testing.T) {
	var m map[string]any
	found, err := ReadRequest(map[string]string{RequestAnnotation: `{"image":"tf:2","workers":2}`}, &m)
	if !found || err != nil || !reflect.DeepEqual(m, map[string]any{"image": "tf:2", "workers": float64(2)}) {
		t.Errorf("a request: %v, %v, %v", m, found, err)
	}

	var typed struct {
		WorkingDir string `json:"workingDir"`
	}
	if found, err := ReadRequest(map[string]string{RequestAnnotation: `{"workingDir":"/work"}`}, &typed); !found || err != nil || typed.WorkingDir != "/work" {
		t.Errorf("into a struct: %+v, %v, %v", typed, found, err)
	}

	for _, annotations := range []map[string]string{nil, {"other": "x"}, {RequestAnnotation: ""}} {
		m = nil
		if found, err := ReadRequest(annotations, &m); found || err != nil || m != nil {
			t.Errorf("%v: %v, %v, %v; want none", annotations, m, found, err)
		}
	}

	// What easyai never writes is an error naming the annotation, not an
	// empty request.
	for _, tc := range []struct {
		raw  string
		into any
	}{
		{`{`, &m}, {`[1]`, &m}, {`"x"`, &m}, {`{"workingDir":7}`, &typed},
	} {
		found, err := ReadRequest(map[string]string{RequestAnnotation: tc.raw}, tc.into)
		if !found || err == nil || !strings.HasPrefix(err.Error(), "annotation "+RequestAnnotation+": ") {
			t.Errorf("%s: found %v, %v; want an error naming the annotation", tc.raw, found, err)
		}
	}
}
