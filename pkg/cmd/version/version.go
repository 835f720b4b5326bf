// Package version is "easyai version".
package version

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/printers"
)

type info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	BuildDate string `json:"buildDate,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// NewCmdVersion returns the version command.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	print := printers.NewPrintFlags("one line", printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print easyai's version",
		Long:  "Print the version, commit and build date of this easyai binary. It makes no call to a cluster.",
		Example: `  easyai version
  easyai version -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := info{
				Version: build.Version, Commit: build.Commit, BuildDate: build.Date,
				GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
			}
			if err := print.Validate(); err != nil {
				return err
			}
			out := f.IOStreams.Out
			if print.IsDocument() {
				return print.PrintDocument(out, v)
			}
			fmt.Fprintf(out, "easyai %s", v.Version)
			if v.Commit != "" {
				fmt.Fprintf(out, " (commit %s", v.Commit)
				if v.BuildDate != "" {
					fmt.Fprintf(out, ", built %s", v.BuildDate)
				}
				fmt.Fprint(out, ")")
			}
			fmt.Fprintf(out, " %s %s\n", v.GoVersion, v.Platform)
			return nil
		},
	}
	print.AddFlags(cmd)
	return cmd
}
