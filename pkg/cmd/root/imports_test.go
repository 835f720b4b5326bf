package root

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// TestCommandsImportNoCommands keeps the arrows pointing down: a command
// package (pkg/cmd/X, and its verbs under pkg/cmd/X/) imports cmdutil, the
// factory and engines, never another command; what two commands share lives
// in pkg/cmdutil or in an engine. Only the root assembles the commands (a
// test may build the whole tree through it).
func TestCommandsImportNoCommands(t *testing.T) {
	const cmdPath = "github.com/easyai-dev/easyai/pkg/cmd/"
	allowed := map[string]bool{"factory": true, "root": true}
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		command := strings.Split(filepath.ToSlash(rel), "/")[0]
		if command == "root" {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imported, ok := strings.CutPrefix(p, cmdPath)
			if !ok {
				continue
			}
			target := strings.Split(imported, "/")[0]
			if target != command && !allowed[target] {
				t.Errorf("%s imports %s: a command imports no other command (move what they share to pkg/cmdutil or an engine)", filepath.ToSlash(path), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d files under pkg/cmd: the walk did not find the commands", checked)
	}
}

// TestEveryOutputFlagIsPrintFlags: every command that prints data takes -o
// from printers.PrintFlags, the one printer path (its formats, help,
// completion and errors).
func TestEveryOutputFlagIsPrintFlags(t *testing.T) {
	var walk func(c *cobra.Command)
	found := 0
	walk = func(c *cobra.Command) {
		if fl := c.LocalFlags().Lookup("output"); fl != nil {
			found++
			if fl.Annotations[printers.FlagAnnotation] == nil {
				t.Errorf("%s: -o is not printers.PrintFlags'", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(factory.New()))
	if found < 8 {
		t.Errorf("found %d commands with -o", found)
	}
}
