package timakerplatform

import (
	"context"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// TestWaitTellsStartedOnce: a wait for finished tells Started, once, the
// job's document when it is first seen running; a wait for running does
// not (running ends it).
func TestWaitTellsStartedOnce(t *testing.T) {
	for _, tt := range []struct {
		for_ waiter.Condition
		told int
	}{{waiter.Finished, 1}, {waiter.Running, 0}} {
		// 2s of training: long enough to be seen, however slow the machine.
		f := newLiveFixture(t, 5*time.Millisecond, 400)
		ctx := context.Background()
		f.record(t, Record{Name: "mnist", Kind: "tf", ID: f.create(t, "mnist", "python train.py")})
		job, err := f.p.Find(ctx, kinds.Ref{Name: "mnist"})
		if err != nil {
			t.Fatal(err)
		}
		var told []*jobmodel.Document
		_, err = f.p.Wait(ctx, job, platform.WaitRequest{For: tt.for_, Timeout: 30 * time.Second, Document: true,
			Started: func(doc *jobmodel.Document) { told = append(told, doc) }})
		if err != nil {
			t.Fatalf("--for %s: %v", tt.for_, err)
		}
		if len(told) != tt.told {
			t.Fatalf("--for %s: told %d times, want %d", tt.for_, len(told), tt.told)
		}
		for _, doc := range told {
			if doc == nil || doc.Name != "mnist" || doc.Status.State != jobmodel.Running {
				t.Errorf("--for %s: told %+v", tt.for_, doc)
			}
		}
	}
}
