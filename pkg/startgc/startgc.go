// Package startgc puts off easyai's first garbage collection until its heap
// reaches 32 MiB, then lets the collector keep its usual pace (GOGC=100).
//
// Most commands (version, list of a namespace, get) allocate a few MiB and
// exit within tens of milliseconds. With the runtime's defaults the first
// collection starts at a 4 MiB heap, which package initialization alone
// reaches: two collections ran before `easyai version` printed a line, for
// nothing, as the process frees all its memory when it exits anyway. The
// cost: a process may hold up to 32 MiB of heap before its first
// collection, garbage included.
//
// Go initializes a package as soon as the packages it imports are (where
// a file imports it does not matter): this one imports little, so its init
// runs among the first, after about 1.5 MB of allocations and before the
// heavy ones. GOGC or GOMEMLIMIT in the environment win: with either set,
// the runtime's settings are left alone.
package startgc

import (
	"os"
	"runtime"
	"runtime/debug"
)

const (
	// FirstCollection is the heap size at which the first collection is due.
	FirstCollection = 32 << 20
	// runtimeHeapMinimum is the heap size at which the runtime starts its
	// first collection at GOGC=100 (its heap minimum, which scales with
	// GOGC). A test checks that the goal set here is FirstCollection.
	runtimeHeapMinimum = 4 << 20
	// usualPercent is the runtime's default GOGC, set again after the first
	// collection.
	usualPercent = 100
)

func init() {
	Hold(os.Getenv)
}

// Hold raises the GC percent so that the first collection is due at a heap
// of FirstCollection, and puts it back to the usual 100 once a collection has
// run. It does nothing and returns false when getenv gives GOGC or
// GOMEMLIMIT a value.
func Hold(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(FirstCollection / runtimeHeapMinimum * usualPercent)
	// An object that nothing references: the first collection finds it
	// unreachable and queues its cleanup. (Large enough not to share a
	// block of the tiny allocator with other objects, which could keep it
	// alive.)
	marker := new([64]byte)
	runtime.AddCleanup(marker, func(int) { debug.SetGCPercent(usualPercent) }, 0)
	return true
}
