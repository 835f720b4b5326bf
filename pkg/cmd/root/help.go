package root

import (
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
