// Package prompter asks the user for missing values and confirmations. It is
// only used when stdin and stdout are terminals; commands check that first.
package prompter

import (
	"context"
	"errors"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"

	"github.com/easyai-dev/easyai/pkg/iostreams"
)

// Prompter asks questions on a terminal.
type Prompter interface {
	// Input asks for a line of text; help is shown on "?".
	Input(message, help, defaultValue string) (string, error)
	// Confirm asks a yes/no question.
	Confirm(message string, defaultValue bool) (bool, error)
}

// New returns a prompter on the given terminal streams.
func New(io *iostreams.IOStreams) Prompter { return &surveyPrompter{io: io} }

type surveyPrompter struct{ io *iostreams.IOStreams }

func (p *surveyPrompter) opts() survey.AskOpt {
	in, _ := p.io.In.(terminal.FileReader)
	out, _ := p.io.Out.(terminal.FileWriter)
	return survey.WithStdio(in, out, p.io.ErrOut)
}

func (p *surveyPrompter) Input(message, help, defaultValue string) (string, error) {
	var answer string
	err := survey.AskOne(&survey.Input{Message: message, Help: help, Default: defaultValue}, &answer, p.opts())
	return answer, mapErr(err)
}

func (p *surveyPrompter) Confirm(message string, defaultValue bool) (bool, error) {
	var answer bool
	err := survey.AskOne(&survey.Confirm{Message: message, Default: defaultValue}, &answer, p.opts())
	return answer, mapErr(err)
}

// mapErr turns Ctrl-C at a prompt into context.Canceled (exit 130).
func mapErr(err error) error {
	if errors.Is(err, terminal.InterruptErr) {
		return context.Canceled
	}
	return err
}
