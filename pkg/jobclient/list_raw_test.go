package jobclient_test

import (
	"encoding/json"
	"errors"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
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
	viaRaw := &jobclient.Client{Raw: raw, Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	got, err := viaRaw.List(ctx, jobclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := client(fixtures()...).List(ctx, jobclient.ListOptions{Kinds: []kinds.Kind{kind(t, "tf")}})
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
	others := len(jobclienttest.Registry().All()) - 1
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

// rawClient is the jobs client of easyai's real configuration on server:
// the raw page client, the dynamic client and the typed clientset.
func rawClient(t *testing.T, server string) *jobclient.Client {
	t.Helper()
	cfg := &rest.Config{Host: server, QPS: 100, Burst: 100}
	rawConfig := rest.CopyConfig(cfg)
	rawConfig.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	raw, err := rest.UnversionedRESTClientFor(rawConfig)
	if err != nil {
		t.Fatal(err)
	}
	return &jobclient.Client{Raw: raw, Dynamic: dynamic.NewForConfigOrDie(cfg), Kube: kubernetes.NewForConfigOrDie(cfg),
		Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu", Server: server}
}

// status writes an API server's Status answer.
func status(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code})
}

// A refused LIST on the raw path is the API server's Status (never
// "unknown"): the kind is skipped; an error of another kind carries the
// server's message.
func TestListThroughRawPagesDecodesStatus(t *testing.T) {
	var failTF bool
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/apis/batch.tensorstack.dev/v1beta1/namespaces/team-a/colossalaijobs":
			status(w, 403, "Forbidden", `colossalaijobs.batch.tensorstack.dev is forbidden: User "alice" cannot list resource "colossalaijobs" in API group "batch.tensorstack.dev" in the namespace "team-a"`)
		case r.URL.Path == "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs" && failTF:
			status(w, 500, "InternalError", "etcdserver: request timed out")
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"List","metadata":{},"items":[]}`)
		}
	}))
	defer server.Close()
	c := rawClient(t, server.URL)
	res, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refused) != 1 || res.Refused[0].Name() != "colossalai" {
		t.Errorf("refused %v, want colossalai", res.Refused)
	}
	failTF = true
	_, err = c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	if err == nil || err.Error() != "listing TFJob: etcdserver: request timed out" {
		t.Errorf("err %v, want the server's message", err)
	}
}

// A plain web server (a 404 page for every path) is not a cluster without
// the operators, nor a cluster without the job: easyai says it is no
// Kubernetes API server.
func TestPlainWebServerIsNoAPIServer(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	defer server.Close()
	c := rawClient(t, server.URL)
	_, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	want := "the server at " + server.URL + " is not a Kubernetes API server (GET /version: the server could not find the requested resource)"
	if err == nil || err.Error() != want || exit.Code(err) != exit.Error || exit.Hint(err) == "" {
		t.Errorf("list: %v (exit %d)\nwant %s", err, exit.Code(err), want)
	}
	_, _, err = c.Find(ctx, "team-a", kinds.Ref{Name: "x"})
	if err == nil || err.Error() != want || exit.Code(err) != exit.Error {
		t.Errorf("find: %v (exit %d), want %s", err, exit.Code(err), want)
	}
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>It works!</body></html>")
	}))
	defer html.Close()
	for _, find := range []kinds.Ref{{Name: "x"}, {Kind: kind(t, "tf"), Name: "x"}} {
		_, _, err = rawClient(t, html.URL).Find(ctx, "team-a", find)
		var notAPI *kube.NotAPIServerError
		if !errors.As(err, &notAPI) || exit.Code(err) != exit.Error {
			t.Errorf("find %s on a server answering HTML: %v (exit %d)", find, err, exit.Code(err))
		}
	}
	_, err = rawClient(t, html.URL).List(ctx, jobclient.ListOptions{})
	var notAPI *kube.NotAPIServerError
	if !errors.As(err, &notAPI) {
		t.Errorf("list on a server answering HTML: %v", err)
	}
}

// TestListStreamReadsEachJobOnce: a page read as it streams in; a job whose
// fields do not fit (a count that is a string, a time that does not parse)
// is listed as Unknown with the reason and the others are read; "items":
// null is no job; a page cut short fails the list.
func TestListStreamReadsEachJobOnce(t *testing.T) {
	job := func(name, extra string) string {
		return `{"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"` + name + `","namespace":"team-a","creationTimestamp":"2026-01-01T00:00:00Z"},` +
			`"spec":{"tfReplicaSpecs":{"Worker":{"replicas":2,"template":{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}}}` + extra + `}`
	}
	var body string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs" {
			status(w, 404, "NotFound", "404 page not found")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	defer server.Close()
	tf, _ := jobclienttest.Registry().Lookup("tf")
	list := func() (*jobclient.ListResult, error) {
		return rawClient(t, server.URL).List(t.Context(), jobclient.ListOptions{Namespace: "team-a", Kinds: []kinds.Kind{tf}})
	}

	body = `{"kind":"TFJobList","apiVersion":"kubeflow.org/v1","metadata":{"resourceVersion":"7"},"items":[` +
		job("a", "") + "," +
		strings.Replace(job("b", ""), `"replicas":2`, `"replicas":"two"`, 1) + "," +
		job("c", `,"status":{"startTime":"yesterday"}`) + "," +
		job("d", "") + `],"extra":{"x":[1,2]}}`
	res, err := list()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, j := range res.Jobs {
		got[j.Summary.Name] = string(j.Summary.Status.State) + " " + j.Summary.Status.Reason
		if (j.Summary.Name == "a" || j.Summary.Name == "d") && (j.Summary.Workers.Total != 2 || j.Summary.GPUs != 2) {
			t.Errorf("%s: %+v", j.Summary.Name, j.Summary)
		}
	}
	want := map[string]string{"a": "Pending NotReconciled", "b": "Unknown Unreadable", "c": "Unknown Unreadable", "d": "Pending NotReconciled"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v, want %v", got, want)
	}

	body = `{"kind":"TFJobList","metadata":{},"items":null}`
	if res, err := list(); err != nil || len(res.Jobs) != 0 {
		t.Errorf("items null: %v, %+v", err, res)
	}
	body = `{"kind":"TFJobList","metadata":{},"items":[` + job("a", "") + `,{"metadata":{"name":"b"`
	if _, err := list(); err == nil {
		t.Error("a page cut short was listed")
	}
}
