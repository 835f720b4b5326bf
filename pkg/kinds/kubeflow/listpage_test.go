package kubeflow_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// pageJobs is the jobs of a page of list's (jobclient.PageSize).
const pageJobs = 500

// allocBudgetFile holds the most bytes reading a page may allocate per job.
const allocBudgetFile = "testdata/list-alloc-budget"

// pageOfTFJobs is a LIST answer of n TFJobs (listedTFJob, each of its own
// name), as the API server writes it.
func pageOfTFJobs(tb testing.TB, n int) []byte {
	tb.Helper()
	obj := listedTFJob(tb)
	meta := obj["metadata"].(map[string]any)
	var page bytes.Buffer
	page.WriteString(`{"apiVersion":"kubeflow.org/v1","kind":"TFJobList","metadata":{"resourceVersion":"12345","continue":"next"},"items":[`)
	for i := range n {
		meta["name"], meta["uid"] = fmt.Sprintf("job-%04d", i), fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		item, err := json.Marshal(obj)
		if err != nil {
			tb.Fatal(err)
		}
		if i > 0 {
			page.WriteByte(',')
		}
		page.Write(item)
	}
	page.WriteString("]}")
	return page.Bytes()
}

// readListPage reads the jobs of a LIST answer as list does (jobclient's
// listPage): one pass over the stream, each item through the kind's
// SummarizeNext, the summaries appended to out.
func readListPage(k kinds.StreamSummarizer, page []byte, out []jobmodel.Summary) ([]jobmodel.Summary, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(page), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("not a LIST: %v, %v", tok, err)
	}
	for {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		if name.Kind() == '}' {
			return out, nil
		}
		if name.String() != "items" {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
		}
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
			return nil, fmt.Errorf("items: %v, %v", tok, err)
		}
		for dec.PeekKind() != ']' {
			s, err := k.SummarizeNext(dec, "nvidia.com/gpu")
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	}
}

// BenchmarkListPage reads a page of 500 TFJobs as list does.
func BenchmarkListPage(b *testing.B) {
	page := pageOfTFJobs(b, pageJobs)
	k := tfjob.New()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readListPage(k, page, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pageJobs), "ns/job")
}

// TestListDecoderAllocationBudget fails when reading a page of TFJobs as
// list does allocates more bytes per job than the budget kept in
// testdata/list-alloc-budget: the garbage list makes grows with the jobs.
func TestListDecoderAllocationBudget(t *testing.T) {
	budget := allocBudget(t)
	page := pageOfTFJobs(t, pageJobs)
	k := tfjob.New()
	got, err := readListPage(k, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != pageJobs || got[pageJobs-1].Name != fmt.Sprintf("job-%04d", pageJobs-1) || got[0].Workers.Total != 3 {
		t.Fatalf("read %d jobs, the last %+v", len(got), got[len(got)-1])
	}
	const runs = 2
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := readListPage(k, page, nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perJob := (after.TotalAlloc - before.TotalAlloc) / (runs * pageJobs)
	t.Logf("%d bytes allocated per job (budget %d)", perJob, budget)
	if perJob > budget {
		t.Errorf("reading a page of %d TFJobs as list does allocates %d bytes per job, over the budget of %d (%s): "+
			"find what allocates more (go test -run '^$' -bench ListPage -benchmem -memprofile mem.out), "+
			"or raise the budget there and say why", pageJobs, perJob, budget, allocBudgetFile)
	}
}

// allocBudget reads the budget: the first line of the file that is not a
// comment (#).
func allocBudget(t *testing.T) uint64 {
	t.Helper()
	f, err := os.Open(allocBudgetFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", allocBudgetFile, err)
		}
		return n
	}
	t.Fatalf("%s: no budget", allocBudgetFile)
	return 0
}
