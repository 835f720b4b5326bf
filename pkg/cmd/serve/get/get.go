// Package get is "easyai serve get": one serving, its versions, pods,
// conditions and recent warnings.
package get

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve get.
type Options struct {
	serveargs.Named
	Print *printers.PrintFlags
}

// NewCmdGet returns "serve get"; runF replaces Complete and Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f), Print: printers.NewPrintFlags("a description", printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a serving: versions, pods, conditions, endpoint, warnings",
		Long: `Show one serving: its state (Available, Progressing, Failed) and why it is not
available (a pod that cannot pull its image, cannot be scheduled, or fails
its readiness probe), its versions with their images and shares of the
traffic, its pods with their state and restarts, the conditions of its
Deployments, where it answers inside the cluster, and its pods' recent
warning events. A serving that does not exist exits 3. -o json and -o yaml
print a Serving document (docs/serving.md).`,
		Example: `  easyai serve get bert
  easyai serve get bert -o json | jq .reason`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o and the name.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	return o.Named.Validate()
}

// Run reads and prints the serving.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	doc, err := c.Get(ctx, ns, o.Name, o.Factory.IOStreams.ErrOut)
	if err != nil {
		return err
	}
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.Factory.IOStreams.Out, doc)
	}
	return o.describe(doc)
}

func (o *Options) describe(d *serving.Document) error {
	w := o.Factory.IOStreams.Out
	now := o.Factory.Now()
	state := d.State
	if d.Reason != "" {
		state += " (" + d.Reason + ")"
	}
	model := d.Model
	if d.ModelFrom != "" {
		model = "the model_dir of job " + d.ModelFrom + ", " + d.Model
	}
	for _, kv := range [][2]string{
		{"Name", d.Name}, {"Namespace", d.Namespace}, {"Framework", d.Framework}, {"Backend", d.Backend}, {"State", state},
		{"Ready", fmt.Sprintf("%d/%d", d.Ready, d.Replicas)}, {"Model", model}, {"GPUs", strconv.FormatInt(d.GPUs, 10)},
		{"Endpoint", d.Endpoint}, {"Created by", d.User}, {"Age", printers.Age(now, d.Created)},
	} {
		if kv[1] == "" {
			kv[1] = "-"
		}
		fmt.Fprintf(w, "%-11s %s\n", kv[0]+":", jobmodel.OneLine(kv[1]))
	}
	sections := []struct {
		title  string
		header []string
		rows   [][]string
	}{
		{"Versions", []string{"VERSION", "IMAGE", "TRAFFIC", "READY", "OBJECT"}, nil},
		{"Pods", []string{"NAME", "VERSION", "STATE", "READY", "RESTARTS", "NODE", "REASON"}, nil},
		{"Conditions", []string{"VERSION", "TYPE", "STATUS", "REASON", "MESSAGE"}, nil},
		{"Warnings", []string{"OBJECT", "REASON", "COUNT", "LAST SEEN", "MESSAGE"}, nil},
	}
	for _, v := range d.Versions {
		sections[0].rows = append(sections[0].rows, []string{v.Name, v.Image, strconv.Itoa(v.Weight) + "%", fmt.Sprintf("%d/%d", v.Ready, v.Replicas), v.Object})
	}
	for _, p := range d.Pods {
		sections[1].rows = append(sections[1].rows, []string{p.Name, p.Version, p.State, strconv.FormatBool(p.Ready), strconv.Itoa(int(p.Restarts)), p.Node, p.Reason})
	}
	for _, c := range d.Conditions {
		sections[2].rows = append(sections[2].rows, []string{c.Version, c.Type, c.Status, c.Reason, c.Message})
	}
	for _, e := range d.Events {
		sections[3].rows = append(sections[3].rows, []string{e.Object, e.Reason, strconv.Itoa(int(e.Count)), printers.Age(now, e.Last), e.Message})
	}
	for _, s := range sections {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.title)
		t := printers.NewTable(w, true, s.header...)
		for _, r := range s.rows {
			t.AddRow(r...)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}
