//go:build unix

package timakerplatform

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
)

// TestIndexConcurrentAddsLoseNothing: parallel writers (CI jobs on one
// machine) take turns under the lock (flock, on Unix only); every record
// is kept.
func TestIndexConcurrentAddsLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prod.json")
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// An Index of its own, as another process would have.
			x := &Index{Path: path}
			for i := range each {
				if err := x.Add(Record{ID: fmt.Sprintf("train-%d-%d", w, i), Name: "job"}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	records, err := (&Index{Path: path}).Records()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(records))
	for i, r := range records {
		ids[i] = r.ID
	}
	sort.Strings(ids)
	var want []string
	for w := range writers {
		for i := range each {
			want = append(want, fmt.Sprintf("train-%d-%d", w, i))
		}
	}
	sort.Strings(want)
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("%d records kept of %d: %v", len(ids), len(want), ids)
	}
}
