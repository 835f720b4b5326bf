// Package root is the easyai command tree and its entry point.
package root

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/build"
	attachcmd "github.com/easyai-dev/easyai/pkg/cmd/attach"
	completioncmd "github.com/easyai-dev/easyai/pkg/cmd/completion"
	configcmd "github.com/easyai-dev/easyai/pkg/cmd/config"
	croncmd "github.com/easyai-dev/easyai/pkg/cmd/cron"
	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/delete"
	doctorcmd "github.com/easyai-dev/easyai/pkg/cmd/doctor"
	downloadcmd "github.com/easyai-dev/easyai/pkg/cmd/download"
	execcmd "github.com/easyai-dev/easyai/pkg/cmd/exec"
	experimentscmd "github.com/easyai-dev/easyai/pkg/cmd/experiments"
	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	getcmd "github.com/easyai-dev/easyai/pkg/cmd/get"
	listcmd "github.com/easyai-dev/easyai/pkg/cmd/list"
	logscmd "github.com/easyai-dev/easyai/pkg/cmd/logs"
	notebookcmd "github.com/easyai-dev/easyai/pkg/cmd/notebook"
	opencmd "github.com/easyai-dev/easyai/pkg/cmd/open"
	pipelinecmd "github.com/easyai-dev/easyai/pkg/cmd/pipeline"
	portforwardcmd "github.com/easyai-dev/easyai/pkg/cmd/portforward"
	prunecmd "github.com/easyai-dev/easyai/pkg/cmd/prune"
	queuecmd "github.com/easyai-dev/easyai/pkg/cmd/queue"
	reruncmd "github.com/easyai-dev/easyai/pkg/cmd/rerun"
	resumecmd "github.com/easyai-dev/easyai/pkg/cmd/resume"
	runcmd "github.com/easyai-dev/easyai/pkg/cmd/run"
	runtimescmd "github.com/easyai-dev/easyai/pkg/cmd/runtimes"
	servecmd "github.com/easyai-dev/easyai/pkg/cmd/serve"
	sshcmd "github.com/easyai-dev/easyai/pkg/cmd/ssh"
	sshconfigcmd "github.com/easyai-dev/easyai/pkg/cmd/sshconfig"
	submitcmd "github.com/easyai-dev/easyai/pkg/cmd/submit"
	suspendcmd "github.com/easyai-dev/easyai/pkg/cmd/suspend"
	topcmd "github.com/easyai-dev/easyai/pkg/cmd/top"
	uploadcmd "github.com/easyai-dev/easyai/pkg/cmd/upload"
	versioncmd "github.com/easyai-dev/easyai/pkg/cmd/version"
	waitcmd "github.com/easyai-dev/easyai/pkg/cmd/wait"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// long is easyai's help.
const long = `easyai submits distributed training jobs (TensorFlow, PyTorch, MPI,
XGBoost, Paddle, JAX, Volcano, ColossalAI) to a Kubernetes cluster and works
with them: list and inspect them, follow their logs, run commands and open
shells in their replicas, forward their ports, download their files, upload
files onto the team's shared storage, wait for them, suspend, resume, submit
them again, and delete them. It keeps no state
of its own: everything lives in labels and annotations on the cluster's
objects, and it reaches the cluster through your kubeconfig, as kubectl does.

Exit codes: 0 ok, 1 error, 2 bad usage or input, 3 not found, 4 job failed,
5 timed out, 130 interrupted.`

// examples are easyai's examples.
const examples = `  easyai submit tf --workers 2 --gpus 1 --image tensorflow/tensorflow:2.16.1-gpu -- python train.py
  easyai list
  easyai get mnist`

// NewCmdRoot returns the root command with every subcommand.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	g := &globalFlags{}
	cmd := &cobra.Command{
		Use:           "easyai",
		Short:         "Run distributed training on Kubernetes without writing YAML",
		Long:          long,
		Example:       examples,
		Version:       build.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.apply(f, cmd)
		},
	}
	if f.ExecutableName != "" && f.ExecutableName != cmd.Name() {
		// Run as "kubectl easyai": usage lines and help name it so.
		cmd.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: f.ExecutableName}
	}
	cmd.SetVersionTemplate("easyai {{.Version}}\n")
	cmd.SetIn(f.IOStreams.In)
	cmd.SetOut(f.IOStreams.Out)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetFlagErrorFunc(flagError)
	g.add(cmd, f)
	addCommands(cmd, f)
	return cmd
}

// globalFlags are the root's flags that act before any command runs.
type globalFlags struct {
	verbosity int
	noColor   bool
}

// add adds the flags every command has: kubectl's connection flags,
// --config, --cluster (completed with the configuration's clusters), -v
// and --no-color.
func (g *globalFlags) add(cmd *cobra.Command, f *cmdutil.Factory) {
	pf := cmd.PersistentFlags()
	// --cluster is easyai's (a timaker cluster of the configuration, or
	// else a cluster of the kubeconfig, as kubectl's --cluster).
	f.ConfigFlags.ClusterName = nil
	f.ConfigFlags.AddFlags(pf)
	pf.StringVar(&f.ConfigPath, "config", "", "easyai's configuration file (default $XDG_CONFIG_HOME/easyai/config.yaml)")
	pf.StringVar(&f.Cluster, "cluster", "", "a timaker cluster of the configuration (easyai config set-cluster), or else a cluster of the kubeconfig; default: the configuration's cluster, else the kubeconfig's context")
	_ = cmd.RegisterFlagCompletionFunc("cluster", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return config.ClusterNames(f.ConfigPath), cobra.ShellCompDirectiveNoFileComp
	})
	pf.IntVarP(&g.verbosity, "v", "v", 0, "log level of the Kubernetes client: from 1 its own messages (retried watches), 6 each request, 8 with bodies")
	pf.BoolVar(&g.noColor, "no-color", false, "never colour the output (also: NO_COLOR set)")
}

// apply acts on the flags before cmd runs: --no-color, the command's path
// for messages, and -v.
func (g *globalFlags) apply(f *cmdutil.Factory, cmd *cobra.Command) error {
	if g.noColor {
		f.IOStreams.DisableColor()
	}
	f.CommandPath = cmd.CommandPath()
	return setVerbosity(g.verbosity, f.IOStreams.ErrOut)
}

// flagError makes a flag that does not parse a usage error naming the
// command's help; but a mistyped subcommand before it is the error
// ("submit tff --ps 1": the kind, not the flag only tf has).
func flagError(c *cobra.Command, err error) error {
	if c.HasSubCommands() {
		if argsErr := c.ValidateArgs(c.Flags().Args()); cmdutil.IsUnknownCommand(argsErr) {
			return argsErr
		}
	}
	return exit.UsageErrorf("%v (see %s --help)", err, c.CommandPath())
}

// addCommands adds the subcommands, in the groups and order --help lists
// them, then the help command; a command with subcommands refuses an
// argument that names none of them, with or without --help.
func addCommands(cmd *cobra.Command, f *cmdutil.Factory) {
	// Commands are listed in the order of commandGroups, not by name.
	cobra.EnableCommandSorting = false
	for _, g := range commandGroups(f) {
		cmd.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, sub := range g.commands {
			sub.GroupID = g.id
			cmd.AddCommand(sub)
		}
	}
	cmdutil.RejectUnknownSubcommands(cmd)
	cmd.SetHelpCommand(newCmdHelp(cmd))
	rejectHelpOfUnknown(cmd)
	cmd.SetHelpCommandGroupID("settings")
	cmd.SetCompletionCommandGroupID("settings")
}

type commandGroup struct {
	id, title string
	commands  []*cobra.Command
}

// commandGroups lists the subcommands of the root, as --help groups them.
func commandGroups(f *cmdutil.Factory) []commandGroup {
	return []commandGroup{
		{"jobs", "Jobs:", []*cobra.Command{
			submitcmd.NewCmdSubmit(f, nil),
			reruncmd.NewCmdRerun(f, nil),
			listcmd.NewCmdList(f, nil),
			experimentscmd.NewCmdExperiments(f, nil),
			getcmd.NewCmdGet(f, nil),
			waitcmd.NewCmdWait(f, nil),
			suspendcmd.NewCmdSuspend(f, nil),
			resumecmd.NewCmdResume(f, nil),
			deletecmd.NewCmdDelete(f, nil),
			prunecmd.NewCmdPrune(f, nil),
			topcmd.NewCmdTop(f),
			queuecmd.NewCmdQueue(f),
			runtimescmd.NewCmdRuntimes(f, nil),
			pipelinecmd.NewCmdPipeline(f),
			croncmd.NewCmdCron(f),
			notebookcmd.NewCmdNotebook(f),
			servecmd.NewCmdServe(f),
		}},
		{"replicas", "Working with a job's replicas:", []*cobra.Command{
			logscmd.NewCmdLogs(f, nil),
			execcmd.NewCmdExec(f, nil),
			runcmd.NewCmdRun(f, nil),
			attachcmd.NewCmdAttach(f, nil),
			portforwardcmd.NewCmdPortForward(f, nil),
			opencmd.NewCmdOpen(f, nil),
			sshcmd.NewCmdSSH(f, nil),
			sshconfigcmd.NewCmdSSHConfig(f, nil),
			downloadcmd.NewCmdDownload(f, nil),
			uploadcmd.NewCmdUpload(f, nil),
		}},
		{"settings", "Settings and more:", []*cobra.Command{
			configcmd.NewCmdConfig(f),
			doctorcmd.NewCmdDoctor(f, nil),
			completioncmd.NewCmdCompletion(f),
			versioncmd.NewCmdVersion(f),
		}},
	}
}

// setVerbosity passes -v on to klog, client-go's logger. At -v 0 client-go's
// own lines (a watch it retries while the API server restarts, say) are not
// shown: easyai reports what failed itself. The API server's warnings are
// always shown, once each.
func setVerbosity(v int, errOut io.Writer) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{
		"v":               strconv.Itoa(v),
		"logtostderr":     "false",
		"alsologtostderr": "false",
		"stderrthreshold": "FATAL",
	} {
		if err := fs.Set(name, value); err != nil {
			return err
		}
	}
	if v > 0 {
		klog.SetOutput(errOut)
	} else {
		klog.SetOutput(io.Discard)
	}
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(errOut, rest.WarningWriterOptions{Deduplicate: true}))
	return nil
}

// stopSignals cancel the command's context, as Ctrl-C does: whatever it
// made (a fetcher pod) is cleaned up. SIGHUP is a closed terminal.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Main runs easyai with the process's arguments and returns its exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	f := factory.New()
	f.ExecutableName = executableName(os.Args[0])
	f.DeferFlags = true
	cmd := NewCmdRoot(f)
	err := execute(ctx, cmd, os.Args[1:])
	if err == nil {
		return exit.OK
	}
	if ctx.Err() != nil && !errors.Is(err, exit.ErrSilent) {
		err = fmt.Errorf("%w: %v", context.Canceled, err)
	}
	return printError(f, err)
}

// executableName is how the user runs easyai: "kubectl easyai" when kubectl
// runs it as its plugin, a kubectl-easyai binary on the PATH.
func executableName(arg0 string) string {
	if strings.TrimSuffix(filepath.Base(arg0), ".exe") == "kubectl-easyai" {
		return "kubectl easyai"
	}
	return "easyai"
}

// printError writes err (and its hint) to stderr and returns its exit code.
func printError(f *cmdutil.Factory, err error) int {
	err = classify(err)
	code := exit.Code(err)
	if errors.Is(err, exit.ErrSilent) {
		return code
	}
	w := f.IOStreams.ErrOut
	if code == exit.Interrupted {
		fmt.Fprintln(w, "Interrupted.")
		return code
	}
	if declined := (*exit.DeclinedError)(nil); errors.As(err, &declined) {
		fmt.Fprintln(w, declined.Message)
		return code
	}
	fmt.Fprintf(w, "Error: %s\n", printable(err.Error()))
	if hint := exit.Hint(err); hint != "" {
		fmt.Fprintf(w, "Hint: %s\n", printable(hint))
	}
	return code
}

// printable is an error's text for the terminal: it may hold text from the
// cluster or a container, so every control character but the newline and
// the tab (an escape, a carriage return) is printed as a space.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// classify turns cobra's own usage errors (an unknown command, a missing
// subcommand) into usage errors, and adds a hint to an unreachable cluster.
func classify(err error) error {
	msg := err.Error()
	if errors.Is(err, syscall.ECONNREFUSED) && exit.Hint(err) == "" {
		hint := "is the cluster up? easyai uses the kubeconfig's current context, like kubectl (--kubeconfig, --context)"
		if strings.Contains(msg, "localhost:8080") {
			hint = "no kubeconfig was found: set $KUBECONFIG or pass --kubeconfig"
		}
		return exit.WithHint(err, hint)
	}
	if apierrors.IsForbidden(err) && exit.Hint(err) == "" {
		return exit.WithHint(err, `"easyai doctor" shows what you may do in the namespace, and what you may not`)
	}
	var coded *exit.CodedError
	if errors.As(err, &coded) {
		return err
	}
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument"} {
		if strings.HasPrefix(msg, prefix) {
			return &exit.CodedError{Code: exit.Usage, Err: err}
		}
	}
	return err
}
