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

// TestSubmittedValues: the values to submit a job again are its request
// without its name and without the labels and annotations easyai adds to
// every job; the user's own stay.
func TestSubmittedValues(t *testing.T) {
	raw := `{"name":"mnist","image":"tf:2","labels":{"team":"vision","easyai.io/kind":"tf","app.kubernetes.io/managed-by":"easyai"},` +
		`"annotations":{"easyai.io/endpoints":"{}","easyai.io/request":"{}","easyai.io/rerun-of":"tf/a"},"storage":{"jobDir":"mnist-x"}}`
	values, found, err := SubmittedValues(map[string]string{RequestAnnotation: raw})
	want := map[string]any{
		"image":       "tf:2",
		"labels":      map[string]any{"team": "vision"},
		"annotations": map[string]any{"easyai.io/endpoints": "{}"},
		"storage":     map[string]any{"jobDir": "mnist-x"},
	}
	if !found || err != nil || !reflect.DeepEqual(values, want) {
		t.Errorf("got %v, %v, %v; want %v", values, found, err, want)
	}

	if values, found, err := SubmittedValues(map[string]string{"other": "x"}); found || err != nil || values != nil {
		t.Errorf("no request: %v, %v, %v", values, found, err)
	}
	for _, raw := range []string{`null`, `{"name":`, `[]`} {
		_, found, err := SubmittedValues(map[string]string{RequestAnnotation: raw})
		if !found || err == nil || !strings.HasPrefix(err.Error(), "annotation "+RequestAnnotation+": ") {
			t.Errorf("%s: found %v, %v; want an error naming the annotation", raw, found, err)
		}
	}
}
