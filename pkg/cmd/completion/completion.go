// Package completion is "easyai completion SHELL".
package completion

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// NewCmdCompletion returns the completion command.
func NewCmdCompletion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell. Load it in the current shell, or
install it where the shell looks for completions.`,
		Example: `  # bash, this shell only
  source <(easyai completion bash)
  # bash, every new shell
  easyai completion bash > /etc/bash_completion.d/easyai
  # zsh
  easyai completion zsh > "${fpath[1]}/_easyai"
  # fish
  easyai completion fish > ~/.config/fish/completions/easyai.fish
  # PowerShell
  easyai completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cmdutil.ExactArgs(1, "a shell: bash, zsh, fish or powershell"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), f.IOStreams.Out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return exit.UsageErrorf("unknown shell %q: use bash, zsh, fish or powershell", args[0])
		},
	}
}
