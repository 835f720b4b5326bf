package cmdutil

import (
	"sync"

	"github.com/spf13/cobra"
)

// A run of easyai runs one command, but builds the whole command tree to
// find it, and the flags of the submit kinds (every submit flag, for each
// kind) are most of the tree's cost: the start-up of "easyai list" paid for
// them. With Factory.DeferFlags, such a command's flags are declared when
// the root is about to run it, show its help or complete its flags, and
// only for it (the root's execute calls DeclareFlags on the command the
// arguments name before cobra parses them).

// deferred holds the flag declarations not made yet, by command.
var deferred sync.Map // *cobra.Command -> func()

// DeferFlags declares cmd's flags with declare: now, or, when f.DeferFlags
// is set, when DeclareFlags is called on cmd (or a command under it).
func DeferFlags(f *Factory, cmd *cobra.Command, declare func()) {
	if !f.DeferFlags {
		declare()
		return
	}
	deferred.Store(cmd, declare)
}

// DeclareFlags makes the deferred flag declarations of cmd and of the
// commands above it, once each.
func DeclareFlags(cmd *cobra.Command) {
	for c := cmd; c != nil; c = c.Parent() {
		if declare, ok := deferred.LoadAndDelete(c); ok {
			declare.(func())()
		}
	}
}
