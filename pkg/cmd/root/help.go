package root

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// newCmdHelp is "easyai help [command]": cobra's own help command, except
// that a command that does not exist is a usage error (exit 2) with
// suggestions, as it is without "help".
func newCmdHelp(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Print the help of any command: easyai help config set",
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := findCommand(root, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return cmdutil.UnknownCommand(target, rest[0])
			}
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			return target.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, rest, err := findCommand(root, args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// findCommand is the command args name, and the arguments left over that
// name no subcommand of it (flags dropped).
func findCommand(root *cobra.Command, args []string) (*cobra.Command, []string, error) {
	target, rest, err := root.Find(args)
	if err != nil {
		return nil, nil, err
	}
	var left []string
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			left = append(left, a)
		}
	}
	return target, left, nil
}

// rejectHelpOfUnknown makes --help (-h) given to a command with
// subcommands beside an argument that names none of them ("easyai serve
// --help") print nothing: cobra would print the command's help and exit 0.
// execute then ends the run with the usage error the same line gives
// without --help (exit 2, with the commands it is close to).
func rejectHelpOfUnknown(root *cobra.Command) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		// "easyai help submit tf": the help names the flags.
		cmdutil.DeclareFlags(c)
		if helpOfUnknown(c) != nil {
			return
		}
		help(c, args)
	})
}

// helpOfUnknown is the usage error of --help asked of c, a command with
// subcommands, beside an argument that names none of them: the error c's
// argument check gives without --help. It is nil for any other run,
// including help asked through "easyai help COMMAND" (c's flags unparsed).
func helpOfUnknown(c *cobra.Command) error {
	if c == nil || !c.HasSubCommands() || !c.Flags().Parsed() {
		return nil
	}
	if asked, err := c.Flags().GetBool("help"); err != nil || !asked {
		return nil
	}
	args := c.Flags().Args()
	if len(args) > 0 {
		if sub, _, err := c.Find(args[:1]); err == nil && sub != c {
			// "easyai --help config": cobra took the subcommand for the
			// value of a flag it did not know yet, and c's help is shown,
			// as it always was.
			return nil
		}
	}
	if err := c.ValidateArgs(args); cmdutil.IsUnknownCommand(err) {
		return err
	}
	return nil
}

// execute runs the command tree on args as Main does: cobra's Execute,
// whose --help after an unknown command (rejectHelpOfUnknown) is that
// command's usage error. The command args name, or whose completions they
// ask for, has its deferred flags declared first (cmdutil.DeferFlags).
func execute(ctx context.Context, root *cobra.Command, args []string) error {
	root.SetArgs(args)
	cmdutil.DeclareFlags(commandToRun(root, args))
	c, err := root.ExecuteContextC(ctx)
	if err != nil {
		return err
	}
	return helpOfUnknown(c)
}

// commandToRun is the command args run, or whose flags and arguments they
// complete (cobra's __complete); the root when they name none.
func commandToRun(root *cobra.Command, args []string) *cobra.Command {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		args = args[1:]
	}
	c, _, err := root.Find(args)
	if err != nil {
		return root
	}
	return c
}
