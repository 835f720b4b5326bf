// Command gendocs writes the generated files that come from easyai's command
// tree: one markdown page per command under docs/cli/, and the shell
// completion scripts under completions/. Run through "make docs completions".
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmd/root"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "docs" && os.Args[1] != "completions") {
		fmt.Fprintln(os.Stderr, "usage: gendocs docs|completions DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(what, dir string) error {
	cmd := root.NewCmdRoot(factory.New())
	// No dates or local paths in generated files: they must be reproducible.
	cmd.DisableAutoGenTag = true
	cmd.PersistentFlags().Lookup("cache-dir").DefValue = "$HOME/.kube/cache"
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if what == "docs" {
		return doc.GenMarkdownTree(cmd, dir)
	}
	return completions(cmd, dir)
}

func completions(cmd *cobra.Command, dir string) error {
	gens := map[string]func(*os.File) error{
		"easyai.bash": func(f *os.File) error { return cmd.GenBashCompletionV2(f, true) },
		"_easyai":     func(f *os.File) error { return cmd.GenZshCompletion(f) },
		"easyai.fish": func(f *os.File) error { return cmd.GenFishCompletion(f, true) },
		"easyai.ps1":  func(f *os.File) error { return cmd.GenPowerShellCompletionWithDesc(f) },
	}
	for name, gen := range gens {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := gen(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
