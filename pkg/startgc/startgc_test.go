package startgc

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// What package initialization left: the number of collections that ran
// before the tests, the GC percent then, and whether the hold of init ended
// after a collection (all with GOGC and GOMEMLIMIT unset only).
var (
	collectionsAtStart uint32
	percentAtStart     int
	releasedAtStart    bool
	environmentSet     = os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
)

func TestMain(m *testing.M) {
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	collectionsAtStart = stats.NumGC
	percentAtStart = gcPercent()
	// The tests call Hold again: the hold of init must have ended first, or
	// its cleanup could undo theirs.
	if !environmentSet {
		releasedAtStart = waitForUsualPercent(10 * time.Second)
	}
	os.Exit(m.Run())
}

// waitForUsualPercent collects until the GC percent is back to the usual.
func waitForUsualPercent(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for gcPercent() != usualPercent {
		if time.Now().After(deadline) {
			return false
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return true
}

func TestInitHoldsUntilFirstCollection(t *testing.T) {
	if environmentSet {
		t.Skip("GOGC or GOMEMLIMIT is set: the runtime's settings apply")
	}
	if collectionsAtStart != 0 {
		t.Errorf("%d collections ran before the tests started, want none", collectionsAtStart)
	}
	if want := FirstCollection / runtimeHeapMinimum * usualPercent; percentAtStart != want {
		t.Errorf("GC percent after init = %d, want %d", percentAtStart, want)
	}
	if !releasedAtStart {
		t.Errorf("GC percent not back to %d after collections", usualPercent)
	}
}

// gcPercent reads the current GC percent.
func gcPercent() int {
	p := debug.SetGCPercent(usualPercent)
	debug.SetGCPercent(p)
	return p
}

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func TestHoldUntilFirstCollection(t *testing.T) {
	if !releasedAtStart {
		t.Skip("the hold of init did not end (or GOGC or GOMEMLIMIT is set)")
	}
	defer debug.SetGCPercent(gcPercent())
	debug.SetGCPercent(usualPercent)
	runtime.GC()

	if !Hold(func(string) string { return "" }) {
		t.Fatal("Hold did nothing without GOGC and GOMEMLIMIT")
	}
	if got, want := gcPercent(), FirstCollection/runtimeHeapMinimum*usualPercent; got != want {
		t.Errorf("GC percent while held = %d, want %d", got, want)
	}
	// The test's heap is far below the minimum, so the minimum is the goal:
	// this checks the runtime's heap minimum this package assumes.
	if got := heapGoal(); got != FirstCollection {
		t.Errorf("heap goal while held = %d bytes, want %d (has the runtime's heap minimum changed from %d?)", got, FirstCollection, runtimeHeapMinimum)
	}

	if !waitForUsualPercent(10 * time.Second) {
		t.Fatalf("GC percent still %d 10 s after a collection, want %d", gcPercent(), usualPercent)
	}
}

func TestEnvironmentWins(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		debug.SetGCPercent(50)
		env := func(n string) string {
			if n == name {
				return "200"
			}
			return ""
		}
		if Hold(env) {
			t.Errorf("Hold acted with %s set", name)
		}
		if got := gcPercent(); got != 50 {
			t.Errorf("with %s set, GC percent = %d, want it left at 50", name, got)
		}
	}
}
