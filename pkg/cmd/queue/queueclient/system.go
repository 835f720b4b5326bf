package queueclient

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// AddSystemFlag adds --queue-system to cmd, into asked.
func AddSystemFlag(cmd *cobra.Command, asked *string) {
	cmd.Flags().StringVar(asked, "queue-system", "", "kueue (the namespace's LocalQueues) or volcano (default: the queue-system setting, else Kueue where the namespace has LocalQueues)")
	_ = cmd.RegisterFlagCompletionFunc("queue-system", cmdutil.CompleteWords(config.QueueSystemKueue, config.QueueSystemVolcano))
}

// System is the queue system the verbs show: asked (--queue-system), else
// the queue-system setting, else Kueue where the namespace has LocalQueues
// (as submit decides what --queue names), else Volcano.
func System(ctx context.Context, f *cmdutil.Factory, asked string) (string, error) {
	from := "--queue-system"
	if asked == "" {
		cfg, err := f.Config()
		if err != nil {
			return "", err
		}
		asked, from = cfg.QueueSystem, "the queue-system setting"
	}
	switch asked {
	case config.QueueSystemKueue, config.QueueSystemVolcano:
		return asked, nil
	case "":
	default:
		return "", exit.UsageErrorf("%s %q: kueue or volcano", from, asked)
	}
	kc, err := f.KubeClient()
	if err != nil {
		return "", err
	}
	if served, err := kube.Served(kc, kueue.LocalQueues); err != nil || !served {
		if old, _ := kube.Served(kc, kueue.OldLocalQueues); old {
			fmt.Fprintln(f.IOStreams.ErrOut, "Warning: this cluster's Kueue serves only its v1beta1 API, and easyai reads Kueue's v1beta2 (Kueue 0.15 and later): showing Volcano's queues")
		}
		return config.QueueSystemVolcano, nil
	}
	c, err := Kueue(f)
	if err != nil {
		return "", err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return "", err
	}
	has, refused, err := c.NamespaceHasLocalQueues(ctx, ns)
	switch {
	case err != nil:
		return "", err
	case refused:
		fmt.Fprintf(f.IOStreams.ErrOut, "Warning: you may not list the LocalQueues of namespace %s: showing Volcano's queues (--queue-system kueue shows Kueue's)\n", ns)
	case has:
		return config.QueueSystemKueue, nil
	}
	return config.QueueSystemVolcano, nil
}

// Kueue is a client of Kueue's objects on the factory's cluster.
func Kueue(f *cmdutil.Factory) (*kueue.Client, error) {
	jobs, err := f.JobsClient()
	if err != nil {
		return nil, err
	}
	return &kueue.Client{Dynamic: jobs.Dynamic}, nil
}

// PrintQuota writes the table of a ClusterQueue's nominal quota, usage,
// borrowing and borrowing limit per flavor (in the order it tries them)
// and resource, each line indented.
func PrintQuota(w io.Writer, cq *kueue.ClusterQueue) error {
	t := printers.NewTable(w, true, "  FLAVOR", "RESOURCE", "NOMINAL", "USED", "BORROWED", "BORROWING-LIMIT")
	for _, f := range cq.Flavors {
		for _, n := range slices.Sorted(maps.Keys(cq.Quota[f])) {
			t.AddRow("  "+f, n, cq.Quota[f][n], dash(cq.Usage[f][n]), dash(cq.Borrowed[f][n]), dash(cq.BorrowingLimit[f][n]))
		}
	}
	return t.Render()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
