// Package doctor is "easyai doctor": what the cluster serves and what the
// user may do in the namespace, for the current context.
package doctor

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of doctor.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams

	Print *printers.PrintFlags

	// Set by Complete.
	Kube   kubernetes.Interface
	Report kube.Report
}

// NewCmdDoctor returns the command; runF replaces Complete and Run in tests.
func NewCmdDoctor(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams,
		Print: printers.NewPrintFlags("tables", printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show what the cluster serves and what you may do in the namespace",
		Long: `Check the current context and namespace (-n) as easyai sees them: the API
server and its version, who you are, which job kinds the cluster serves
(the Kubeflow training-operator's TFJob, PyTorchJob, MPIJob, XGBoostJob,
PaddleJob and JAXJob, Volcano's Job, T9k's ColossalAIJob), and for each
permission easyai's commands use whether you have it in the namespace: one
SelfSubjectAccessReview each (create, get, list, watch, patch and delete of
every job kind; pods, their logs, exec, attach and port-forward; the
fetcher and uploader pods; Secrets for Jupyter tokens; events).

doctor reports, it does not judge: it exits 0 whatever you may or may not
do (a namespace-scoped user commonly lacks some rights on purpose), and 1
only when the API server cannot be asked. The last line names the commands
a missing permission holds back. docs/permissions.md says what a
namespace-scoped user needs, with a Role to start from (examples/rbac/).`,
		Example: `  easyai doctor
  easyai doctor -n team-a
  easyai doctor -o json | jq -r '.access[] | select(.allowed | not) | "\(.verb) \(.resource)"'`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error {
	return o.Print.Validate()
}

// Complete resolves the namespace, the context, the server and the client.
func (o *Options) Complete() error {
	f := o.Factory
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	o.Report.Namespace = ns
	cfg, err := f.RESTConfig()
	if err != nil {
		return err
	}
	o.Report.Server = cfg.Host
	if f.ConfigFlags != nil {
		if f.ConfigFlags.Context != nil && *f.ConfigFlags.Context != "" {
			o.Report.Context = *f.ConfigFlags.Context
		} else if raw, err := f.ConfigFlags.ToRawKubeConfigLoader().RawConfig(); err == nil {
			o.Report.Context = raw.CurrentContext
		}
	}
	o.Kube, err = f.KubeClient()
	return err
}

// Run asks the API server and prints the report.
func (o *Options) Run(ctx context.Context) error {
	if user, err := o.Factory.User(ctx); err == nil {
		o.Report.User = user
	}
	if err := kube.Diagnose(ctx, o.Kube, o.Factory.Kinds, &o.Report); err != nil {
		return err
	}
	if dyn, err := o.Factory.DynamicClient(); err == nil {
		o.Report.QueueSystems, o.Report.QueueMeans = kube.QueueSystems(ctx, o.Kube, dyn, o.Report.Namespace)
	}
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, &o.Report)
	}
	return o.print()
}

// verbs are the columns of the permissions table.
var verbs = []string{"create", "get", "list", "watch", "patch", "delete"}

// print writes the report for reading: the context, the job kinds the
// cluster serves, the permissions in the namespace, and what is missing.
func (o *Options) print() error {
	w := o.IO.Out
	r := &o.Report
	field := func(name, value string) {
		if value == "" {
			value = "-"
		}
		fmt.Fprintf(w, "%-11s%s\n", name+":", value)
	}
	field("Context", r.Context)
	field("Server", r.Server+" (Kubernetes "+r.ServerVersion+")")
	field("User", r.User)
	field("Namespace", r.Namespace)

	fmt.Fprintln(w)
	if err := printAPIs(w, r); err != nil {
		return err
	}
	if len(r.QueueSystems) > 0 {
		fmt.Fprintln(w)
		if err := printQueueSystems(w, r); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Permissions in namespace %s:\n", r.Namespace)
	if err := printAccess(w, r); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if missing := r.Missing(); len(missing) > 0 {
		fmt.Fprintf(w, "Missing permissions hold back: %s\n", strings.Join(missing, ", "))
	} else {
		fmt.Fprintln(w, "You may do everything easyai does in this namespace.")
	}
	return nil
}

// printQueueSystems writes the table of the queue systems, and what
// --queue names in the namespace.
func printQueueSystems(w io.Writer, r *kube.Report) error {
	t := printers.NewTable(w, true, "QUEUES", "API", "INSTALLED", "QUEUES YOU SEE")
	for _, s := range r.QueueSystems {
		installed, seen := "no", "-"
		if s.Installed {
			installed, seen = "yes", strings.Join(s.Queues, ", ")
			if s.Note != "" {
				seen = s.Note
			} else if seen == "" {
				seen = "none"
			}
		}
		t.AddRow(s.Name, s.API, installed, seen)
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(w, "--queue names a %s here, unless --queue-system or the queue-system setting say otherwise (docs/capacity.md).\n", map[string]string{"kueue": "Kueue LocalQueue", "volcano": "Volcano queue"}[r.QueueMeans])
	return nil
}

// printAPIs writes the table of the job kinds' APIs: installed or not, and
// what serves them.
func printAPIs(w io.Writer, r *kube.Report) error {
	t := printers.NewTable(w, true, "KIND", "API", "INSTALLED", "SERVED BY")
	for _, a := range r.APIs {
		installed := "no"
		if a.Installed {
			installed = "yes"
		}
		t.AddRow(a.KindName, a.Resource+"."+a.APIVersion, installed, a.InstalledBy)
	}
	return t.Render()
}

// printAccess writes the table of permissions: a row per resource, in the
// order the report names them, a column per verb, yes or no ("" for a
// verb not asked).
func printAccess(w io.Writer, r *kube.Report) error {
	t := printers.NewTable(w, true, append([]string{"RESOURCE"}, upper(verbs)...)...)
	var order []string
	rows := map[string]map[string]string{}
	for _, a := range r.Access {
		name := a.Name()
		if rows[name] == nil {
			rows[name] = map[string]string{}
			order = append(order, name)
		}
		rows[name][a.Verb] = "no"
		if a.Allowed {
			rows[name][a.Verb] = "yes"
		}
	}
	for _, name := range order {
		row := []string{name}
		for _, v := range verbs {
			row = append(row, rows[name][v])
		}
		t.AddRow(row...)
	}
	return t.Render()
}

func upper(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToUpper(s)
	}
	return out
}
