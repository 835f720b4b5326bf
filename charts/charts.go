// Package charts embeds easyai's job charts (Helm v3 format) into the binary.
// Each kind's chart is a folder here; easyai-lib is the library chart whose
// named templates they share.
package charts

import (
	"embed"
	"io/fs"
	"path"
)

// Every folder here is embedded, so that a new chart needs no line of its
// own; "all:" keeps the files whose names begin with _ or . (_helpers.tpl,
// .helmignore), which a plain pattern leaves out. This file is embedded too:
// Names and Get only ever look at folders.
//
//go:embed all:*
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

// Names lists the embedded chart folders (those holding a Chart.yaml),
// sorted.
func Names() []string {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err) // the embedded root always reads
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(files, path.Join(e.Name(), "Chart.yaml")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}
