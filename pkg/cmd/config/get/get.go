// Package get is "easyai config get KEY".
package get

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of config get.
type Options struct {
	Factory *cmdutil.Factory
	Key     string
	Print   *printers.PrintFlags
}

// NewCmdGet returns the command; runF replaces Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Print: printers.NewPrintFlags("the bare value", printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "get KEY",
		Short: "Print the value in effect of a setting",
		Long: `Print the value in effect of a setting: EASYAI_<KEY> when set, else the
configuration file's, else the default. A setting with no value prints
nothing. Labels print as k=v,k2=v2, the form "easyai config set" takes.`,
		Example: `  easyai config get image
  easyai config get labels -o json`,
		Args:      cmdutil.ExactArgs(1, "a KEY"),
		ValidArgs: config.KeyNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Key = args[0]
			if err := config.CheckKey(o.Key); err != nil {
				return err
			}
			if err := o.Print.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	o.Print.AddFlags(cmd)
	return cmd
}

// Run prints the value.
func (o *Options) Run() error {
	c, err := o.Factory.Config()
	if err != nil {
		return err
	}
	value, _ := c.Get(o.Key)
	out := o.Factory.IOStreams.Out
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(out, value)
	}
	text := ""
	switch v := value.(type) {
	case string:
		text = v
	case map[string]string:
		pairs := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			pairs = append(pairs, k+"="+v[k])
		}
		text = strings.Join(pairs, ",")
	}
	if text == "" {
		return nil
	}
	_, err = fmt.Fprintln(out, text)
	return err
}
