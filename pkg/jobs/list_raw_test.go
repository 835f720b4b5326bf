package jobs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/jobs"
	"github.com/easyai-dev/easyai/pkg/jobs/jobstest"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// TestListThroughRawPages serves LIST pages over HTTP, as the API server
// does, and checks that the raw path reads the same jobs as the dynamic
// client, pages through continue tokens, and skips a kind that is not served.
func TestListThroughRawPages(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	byResource := map[string][]map[string]any{}
	for _, o := range fixtures() {
		u := o.(*unstructured.Unstructured)
		res := map[string]string{"TFJob": "tfjobs", "PyTorchJob": "pytorchjobs"}[u.GetKind()]
		byResource[res] = append(byResource[res], u.Object)
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		var resource string
		switch r.URL.Path {
		case "/apis/kubeflow.org/v1/tfjobs":
			resource = "tfjobs"
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"details":{}}`)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		items := byResource[resource]
		body := map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "TFJobList", "metadata": map[string]any{}, "items": items[page : page+1]}
		if page+1 < len(items) {
			body["metadata"] = map[string]any{"continue": strconv.Itoa(page + 1)}
		}
		_ = json.NewEncoder(w).Encode(body)
	}))
	defer server.Close()

	raw, err := rest.UnversionedRESTClientFor(&rest.Config{Host: server.URL, ContentConfig: rest.ContentConfig{NegotiatedSerializer: scheme.Codecs.WithoutConversion()}})
	if err != nil {
		t.Fatal(err)
	}
	viaRaw := &jobs.Client{Raw: raw, Kinds: jobstest.Registry(), GPUResource: "nvidia.com/gpu"}
	got, err := viaRaw.List(ctx, jobs.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := client(fixtures()...).List(ctx, jobs.ListOptions{Kinds: []kinds.Kind{kind(t, "tf")}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names(got.Jobs), names(want.Jobs)) {
		t.Errorf("raw path: %v\ndynamic path: %v", names(got.Jobs), names(want.Jobs))
	}
	for i := range got.Jobs {
		if !reflect.DeepEqual(got.Jobs[i].Summary, want.Jobs[i].Summary) {
			t.Errorf("summary of %s differs:\nraw     %+v\ndynamic %+v", got.Jobs[i].Summary.Name, got.Jobs[i].Summary, want.Jobs[i].Summary)
		}
	}
	// Only tfjobs are served: every other kind is not installed.
	others := len(jobstest.Registry().All()) - 1
	if len(got.NotInstalled) != others {
		t.Errorf("not installed: %v, want every kind but tf", got.NotInstalled)
	}
	for _, k := range got.NotInstalled {
		if k.Name() == "tf" {
			t.Errorf("not installed: %v, want every kind but tf", got.NotInstalled)
		}
	}
	sort.Strings(requests)
	if len(requests) != len(byResource["tfjobs"])+others {
		t.Errorf("requests %v: want one per page of tfjobs and one for each other kind", requests)
	}
	for _, r := range requests {
		if !strings.Contains(r, "limit=500") {
			t.Errorf("request %s without limit=500", r)
		}
	}
}
