package cmd

import (
	"errors"
	"io"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
)

// Prompter asks the user questions on a terminal. Commands only see this
// interface; tests answer with a fake.
type Prompter interface {
	Select(message, help string, options []string, def string) (string, error)
	Input(message, help, def string) (string, error)
	Confirm(message string, def bool) (bool, error)
}

// errCancelled is returned when the user interrupts a prompt.
var errCancelled = errors.New("cancelled")

// surveyPrompter is the terminal Prompter; survey is used nowhere else.
type surveyPrompter struct {
	in     terminal.FileReader
	out    terminal.FileWriter
	errOut io.Writer
}

// NewSurveyPrompter prompts on the given terminal streams.
func NewSurveyPrompter(in terminal.FileReader, out terminal.FileWriter, errOut io.Writer) Prompter {
	return surveyPrompter{in: in, out: out, errOut: errOut}
}

func (p surveyPrompter) ask(q survey.Prompt, answer any) error {
	err := survey.AskOne(q, answer, survey.WithStdio(p.in, p.out, p.errOut))
	if errors.Is(err, terminal.InterruptErr) {
		return errCancelled
	}
	return err
}

func (p surveyPrompter) Select(message, help string, options []string, def string) (string, error) {
	var answer string
	q := &survey.Select{Message: message, Help: help, Options: options}
	if def != "" {
		q.Default = def
	}
	return answer, p.ask(q, &answer)
}

func (p surveyPrompter) Input(message, help, def string) (string, error) {
	var answer string
	return answer, p.ask(&survey.Input{Message: message, Help: help, Default: def}, &answer)
}

func (p surveyPrompter) Confirm(message string, def bool) (bool, error) {
	var answer bool
	return answer, p.ask(&survey.Confirm{Message: message, Default: def}, &answer)
}
