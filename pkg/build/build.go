// Package build holds what the release build stamps into the binary.
package build

import "runtime/debug"

// Set with -ldflags "-X github.com/easyai-dev/easyai/pkg/build.Version=..." etc.
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

func init() {
	if Commit != "" {
		return
	}
	// A plain "go build" or "go install" still knows its module version and VCS revision.
	if info, ok := debug.ReadBuildInfo(); ok {
		if Version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				Commit = s.Value
			case "vcs.time":
				Date = s.Value
			}
		}
	}
}
