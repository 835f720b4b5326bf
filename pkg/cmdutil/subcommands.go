package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// RejectUnknownSubcommands makes every command under root that has
// subcommands refuse an argument that names none of them: a usage error
// (exit 2), "unknown command "foo" for "easyai config"", suggesting the
// subcommands it is close to. cobra does this for the root only; the others
// printed their help and exited 0, or said they take no arguments.
//
// Call it once the tree is built. A command that has subcommands and
// nothing to run of its own still prints its help when given no argument;
// one that runs (submit -f) keeps its own argument check, and an argument
// that check refuses, before any "--", is taken for a mistyped subcommand.
func RejectUnknownSubcommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		RejectUnknownSubcommands(c)
	}
	if !root.HasSubCommands() {
		return
	}
	check := root.Args
	if !root.Runnable() {
		if check == nil {
			check = cobra.NoArgs
		}
		root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	}
	if check == nil {
		return
	}
	root.Args = func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil {
			return nil
		}
		if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
			return UnknownCommand(cmd, args[0])
		}
		return err
	}
}

// unknownCommandError is an argument given where a subcommand was expected.
type unknownCommandError struct{ msg string }

func (e *unknownCommandError) Error() string { return e.msg }

// IsUnknownCommand reports whether err is UnknownCommand's error.
func IsUnknownCommand(err error) bool {
	var e *unknownCommandError
	return errors.As(err, &e)
}

// UnknownCommand is the usage error for name given to cmd where one of its
// subcommands was expected, with the ones close to it as cobra words its
// own ("Did you mean this?"), or else a hint at the list.
func UnknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if near := cmd.SuggestionsFor(name); len(near) > 0 && !cmd.DisableSuggestions {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(near, "\n\t")
		return &exit.CodedError{Code: exit.Usage, Err: &unknownCommandError{msg}}
	}
	return &exit.CodedError{Code: exit.Usage, Err: &unknownCommandError{msg}, Hint: fmt.Sprintf("%q lists its commands", cmd.CommandPath()+" --help")}
}
