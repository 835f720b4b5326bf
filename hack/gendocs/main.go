// Command gendocs writes the generated files that come from easyai's command
// tree: one markdown page per command under docs/cli/, one man page per
// command under docs/man/, and the shell completion scripts under
// completions/. Run through "make docs man completions".
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmd/root"
)

func main() {
	if len(os.Args) != 3 || (os.Args[1] != "docs" && os.Args[1] != "man" && os.Args[1] != "completions") {
		fmt.Fprintln(os.Stderr, "usage: gendocs docs|man|completions DIR")
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
	switch what {
	case "docs":
		return doc.GenMarkdownTree(cmd, dir)
	case "man":
		return manPages(cmd, dir)
	}
	return completions(cmd, dir)
}

// undated stands for the date of a man page's header, which is then left
// empty: a page changes with the command tree, not with the day it was
// generated on.
var undated = time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)

// manPages writes easyai.1, easyai-submit.1, easyai-submit-tf.1, ...: the
// page of every command, as "man easyai-submit" finds it.
func manPages(cmd *cobra.Command, dir string) error {
	for _, sub := range cmd.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := manPages(sub, dir); err != nil {
			return err
		}
	}
	header := &doc.GenManHeader{Title: strings.ToUpper(strings.ReplaceAll(cmd.CommandPath(), " ", "-")),
		Section: "1", Date: &undated, Source: "easyai", Manual: "easyai manual"}
	var page bytes.Buffer
	if err := doc.GenMan(cmd, header, &page); err != nil {
		return err
	}
	// The page's .TH line names its title, section, date, source and manual.
	lines := bytes.SplitAfter(page.Bytes(), []byte("\n"))
	dated := []byte(fmt.Sprintf(`"1" %q`, undated.Format("Jan 2006")))
	for i, line := range lines {
		if bytes.HasPrefix(line, []byte(".TH ")) && bytes.Contains(line, dated) {
			lines[i] = bytes.Replace(line, dated, []byte(`"1" ""`), 1)
			name := strings.ReplaceAll(cmd.CommandPath(), " ", "-") + ".1"
			return os.WriteFile(filepath.Join(dir, name), bytes.Join(lines, nil), 0o644)
		}
	}
	return fmt.Errorf("%s: no .TH line with the date to clear in its man page", cmd.CommandPath())
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
