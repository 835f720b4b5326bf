// Package getclusters is "easyai config get-clusters": the timaker
// clusters of the configuration.
package getclusters

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of config get-clusters.
type Options struct {
	Factory *cmdutil.Factory
	cmdutil.Printing
}

// ClusterList is the document of -o json and -o yaml.
type ClusterList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Default is the default cluster (the cluster setting); empty: the
	// kubeconfig's context.
	Default string           `json:"default,omitempty"`
	Items   []config.Cluster `json:"items"`
}

// NewCmdGetClusters returns the command; runF replaces Complete and Run in tests.
func NewCmdGetClusters(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Printing: cmdutil.Printing{Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatTemplate)}}
	cmd := &cobra.Command{
		Use:   "get-clusters",
		Short: "List the timaker clusters of the configuration",
		Long: `List the timaker clusters of the configuration file, by name: NAME, TYPE,
ADDR (the gateway), PROJECT (the project id) and UIN (your user id there).

On a terminal the clusters are a table; otherwise each is one line of
tab-separated columns without a header. -o json and -o yaml print a
ClusterList document, which also names the default cluster; -o name prints
the names. "easyai config get cluster" prints the default.`,
		Example: `  easyai config get-clusters
  easyai config get-clusters -o json
  easyai config get-clusters -o name`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Run prints the clusters, sorted by name.
func (o *Options) Run(context.Context) error {
	c, err := o.Factory.Config()
	if err != nil {
		return err
	}
	io := o.Factory.IOStreams
	list := ClusterList{APIVersion: "easyai.io/v1", Kind: "ClusterList", Default: c.Cluster, Items: []config.Cluster{}}
	for _, name := range c.ClusterNames() {
		list.Items = append(list.Items, c.Clusters[name])
	}
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(io.Out, list)
	case o.Print.Format() == printers.FormatName:
		for _, cl := range list.Items {
			fmt.Fprintln(io.Out, cl.Name)
		}
		return nil
	case len(list.Items) == 0:
		fmt.Fprintf(io.ErrOut, "No clusters in %s: easyai config set-cluster NAME --type timaker --addr URL --project-id N --uin UIN adds one.\n", c.Path)
		return nil
	}
	t := printers.NewTable(io.Out, io.IsStdoutTTY(), "NAME", "TYPE", "ADDR", "PROJECT", "UIN")
	for _, cl := range list.Items {
		t.AddRow(cl.Name, cl.Type, cl.Addr, strconv.Itoa(int(cl.ProjectID)), cl.Uin)
	}
	return t.Render()
}
