// Package charts embeds easyai's job charts (Helm v3 format) into the binary.
// Each kind's chart is a folder here; easyai-lib is the library chart whose
// named templates they share.
package charts

import (
	"embed"
	"io/fs"
)

//go:embed all:easyai-lib all:tfjob all:pytorchjob all:mpijob all:xgboostjob all:paddlejob all:jaxjob all:volcano all:colossalai all:colossalai-volcano
var files embed.FS

// Get returns the chart folder of the given name ("tfjob").
func Get(name string) fs.FS {
	sub, err := fs.Sub(files, name)
	if err != nil {
		panic(err) // names are constants of the kinds' folders
	}
	return sub
}

// Library is the shared library chart.
func Library() fs.FS { return Get("easyai-lib") }
