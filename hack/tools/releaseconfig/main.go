// Command releaseconfig checks .goreleaser.yaml the way the pinned GoReleaser
// release reads it: strictly (an unknown or misspelt key, or a value of the
// wrong type, is an error) into that release's configuration types, and with
// "version: 2". It compiles in seconds, where GoReleaser itself takes minutes,
// so that make test can run it on every change; `make goreleaser-check` runs
// GoReleaser's full check (its defaults and deprecations as well).
//
//	go run . ../../../.goreleaser.yaml
package main

import (
	"fmt"
	"os"

	"github.com/goreleaser/goreleaser/v2/pkg/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: releaseconfig FILE")
		os.Exit(2)
	}
	file := os.Args[1]
	project, err := config.Load(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
		os.Exit(1)
	}
	if project.Version != 2 {
		fmt.Fprintf(os.Stderr, "%s: version is %d, the pinned GoReleaser reads version 2\n", file, project.Version)
		os.Exit(1)
	}
	if len(project.Builds) == 0 {
		fmt.Fprintf(os.Stderr, "%s: no builds\n", file)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%s: valid for GoReleaser's configuration (%d builds, %d archives)\n", file, len(project.Builds), len(project.Archives))
}
