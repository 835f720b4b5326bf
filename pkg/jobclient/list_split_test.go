package jobclient_test

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

	"github.com/easyai-dev/easyai/pkg/jobclient"
)

// splitServer is an API server of TFJobs in namespaces: LISTs across
// namespaces in the order of the jobs' keys (namespace/name), by
// namespace, paged by limit and continue, and the list of namespaces
// unless namespacesForbidden.
type splitServer struct {
	jobs                map[string]int // jobs in each namespace
	namespacesForbidden bool

	mu       sync.Mutex
	requests []string
}

func (s *splitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.Path+" continue="+r.URL.Query().Get("continue")+" limit="+r.URL.Query().Get("limit"))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/api/v1/namespaces" {
		if s.namespacesForbidden {
			status(w, http.StatusForbidden, "Forbidden", `namespaces is forbidden: User "viewer" cannot list resource "namespaces"`)
			return
		}
		var items []map[string]any
		for ns := range s.jobs {
			items = append(items, map[string]any{"metadata": map[string]any{"name": ns}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "NamespaceList", "metadata": map[string]any{}, "items": items})
		return
	}
	var namespaces []string
	switch path := r.URL.Path; {
	case path == "/apis/kubeflow.org/v1/tfjobs":
		for ns := range s.jobs {
			namespaces = append(namespaces, ns)
		}
	case strings.HasPrefix(path, "/apis/kubeflow.org/v1/namespaces/") && strings.HasSuffix(path, "/tfjobs"):
		namespaces = []string{strings.TrimSuffix(strings.TrimPrefix(path, "/apis/kubeflow.org/v1/namespaces/"), "/tfjobs")}
	default:
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	var keys []string
	for _, ns := range namespaces {
		for i := range s.jobs[ns] {
			keys = append(keys, fmt.Sprintf("%s/job-%04d", ns, i))
		}
	}
	sort.Strings(keys)
	from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	to := min(from+limit, len(keys))
	meta := map[string]any{}
	if to < len(keys) {
		meta["continue"] = strconv.Itoa(to)
	}
	items := []map[string]any{}
	for _, key := range keys[from:to] {
		ns, name, _ := strings.Cut(key, "/")
		items = append(items, map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
			"metadata": map[string]any{"name": name, "namespace": ns, "creationTimestamp": "2026-01-01T00:00:00Z"}})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "kubeflow.org/v1", "kind": "TFJobList", "metadata": meta, "items": items})
}

// listSplit lists every namespace's jobs from s and checks each job is
// there once; it returns the requests for tfjobs and namespaces.
func listSplit(t *testing.T, s *splitServer) []string {
	t.Helper()
	server := httptest.NewServer(s)
	defer server.Close()
	res, err := rawClient(t, server.URL).List(ctx, jobclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, j := range res.Jobs {
		seen[j.Summary.Namespace+"/"+j.Summary.Name]++
	}
	total := 0
	for ns, n := range s.jobs {
		total += n
		for i := range n {
			if key := fmt.Sprintf("%s/job-%04d", ns, i); seen[key] != 1 {
				t.Errorf("%s listed %d times", key, seen[key])
			}
		}
	}
	if len(res.Jobs) != total {
		t.Errorf("%d jobs listed, want %d", len(res.Jobs), total)
	}
	var requests []string
	for _, r := range s.requests {
		if strings.Contains(r, "tfjobs") || strings.Contains(r, "/namespaces ") {
			requests = append(requests, r)
		}
	}
	sort.Strings(requests)
	return requests
}

// A list across namespaces longer than a page: the first page, then the
// rest of its last namespace by continuing it in growing pages (stopped at
// the next namespace), and each namespace after it in the keys' order by a
// LIST of its own ("b-x/" sorts before "b/"); the namespaces before are not
// asked for again.
func TestListAcrossNamespacesSplitsByNamespaceAfterTheFirstPage(t *testing.T) {
	s := &splitServer{jobs: map[string]int{"a": 300, "b-x": 400, "b": 350, "c": 250}}
	got := listSplit(t, s)
	want := []string{
		"/api/v1/namespaces continue= limit=",
		"/apis/kubeflow.org/v1/namespaces/b/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/namespaces/c/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/tfjobs continue= limit=500",
		// b-x's last 200 jobs: 8 + 32 + 128, then a page that ends in b.
		"/apis/kubeflow.org/v1/tfjobs continue=500 limit=8",
		"/apis/kubeflow.org/v1/tfjobs continue=508 limit=32",
		"/apis/kubeflow.org/v1/tfjobs continue=540 limit=128",
		"/apis/kubeflow.org/v1/tfjobs continue=668 limit=500",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests\n%q\nwant\n%q", got, want)
	}

	// The first page ends with its namespace: one small page of the next
	// namespace's jobs says so.
	even := &splitServer{jobs: map[string]int{"a": 500, "b": 500, "c": 500}}
	got = listSplit(t, even)
	want = []string{
		"/api/v1/namespaces continue= limit=",
		"/apis/kubeflow.org/v1/namespaces/b/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/namespaces/c/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/tfjobs continue=500 limit=8",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("namespaces of a page each: requests\n%q\nwant\n%q", got, want)
	}
}

// Without the right to list namespaces, or with too many of them, the list
// goes on page after page, and says nothing about it.
func TestListAcrossNamespacesPagesWhenNotSplit(t *testing.T) {
	s := &splitServer{jobs: map[string]int{"a": 300, "b": 400, "c": 350}, namespacesForbidden: true}
	got := listSplit(t, s)
	want := []string{
		"/api/v1/namespaces continue= limit=",
		"/apis/kubeflow.org/v1/tfjobs continue= limit=500",
		"/apis/kubeflow.org/v1/tfjobs continue=1000 limit=500",
		"/apis/kubeflow.org/v1/tfjobs continue=500 limit=500",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("namespaces forbidden: requests\n%q\nwant\n%q", got, want)
	}

	many := &splitServer{jobs: map[string]int{}}
	for i := range 200 {
		many.jobs[fmt.Sprintf("ns-%03d", i)] = 4 // the first page ends in ns-124: 75 after it
	}
	got = listSplit(t, many)
	want = []string{"/api/v1/namespaces continue= limit=", "/apis/kubeflow.org/v1/tfjobs continue= limit=500", "/apis/kubeflow.org/v1/tfjobs continue=500 limit=500"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("200 namespaces: requests\n%q\nwant\n%q", got, want)
	}

	// One page: nothing more is asked.
	small := &splitServer{jobs: map[string]int{"a": 200, "b": 300}}
	got = listSplit(t, small)
	if want := []string{"/apis/kubeflow.org/v1/tfjobs continue= limit=500"}; !reflect.DeepEqual(got, want) {
		t.Errorf("one page: requests\n%q\nwant\n%q", got, want)
	}
}
