package cmdutil

import (
	"errors"
	"io"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/core"
	"github.com/AlecAivazis/survey/v2/terminal"
)

// Prompter asks the user questions on a terminal. Commands only see this
// interface; tests answer with a fake, and survey is used nowhere else.
type Prompter interface {
	// Select returns one of options; def is preselected when not empty.
	Select(message, help string, options []string, def string) (string, error)
	// MultiSelect re-asks until validate (if not nil) accepts the answer;
	// defs are preselected.
	MultiSelect(message, help string, options, defs []string, validate func([]string) error) ([]string, error)
	// Input re-asks until validate (if not nil) accepts the answer.
	Input(message, help, def string, validate func(string) error) (string, error)
	Confirm(message string, def bool) (bool, error)
}

// ErrCancelled is returned when the user interrupts a prompt (Ctrl-C, Esc).
var ErrCancelled = errors.New("cancelled: nothing was written")

// surveyPrompter is the terminal Prompter.
type surveyPrompter struct {
	in     terminal.FileReader
	out    terminal.FileWriter
	errOut io.Writer
}

// NewSurveyPrompter prompts on the given terminal streams.
func NewSurveyPrompter(in terminal.FileReader, out terminal.FileWriter, errOut io.Writer) Prompter {
	return surveyPrompter{in: in, out: out, errOut: errOut}
}

func (p surveyPrompter) ask(q survey.Prompt, answer any, opts ...survey.AskOpt) error {
	opts = append(opts, survey.WithStdio(p.in, p.out, p.errOut))
	err := survey.AskOne(q, answer, opts...)
	if errors.Is(err, terminal.InterruptErr) || errors.Is(err, io.EOF) {
		return ErrCancelled
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

func (p surveyPrompter) MultiSelect(message, help string, options, defs []string, validate func([]string) error) ([]string, error) {
	var answer []string
	var opts []survey.AskOpt
	if validate != nil {
		opts = append(opts, survey.WithValidator(func(v any) error {
			var chosen []string
			for _, o := range v.([]core.OptionAnswer) {
				chosen = append(chosen, o.Value)
			}
			return validate(chosen)
		}))
	}
	q := &survey.MultiSelect{Message: message, Help: help, Options: options}
	if len(defs) > 0 {
		q.Default = defs
	}
	return answer, p.ask(q, &answer, opts...)
}

func (p surveyPrompter) Input(message, help, def string, validate func(string) error) (string, error) {
	var answer string
	var opts []survey.AskOpt
	if validate != nil {
		opts = append(opts, survey.WithValidator(func(v any) error { return validate(v.(string)) }))
	}
	return answer, p.ask(&survey.Input{Message: message, Help: help, Default: def}, &answer, opts...)
}

func (p surveyPrompter) Confirm(message string, def bool) (bool, error) {
	var answer bool
	return answer, p.ask(&survey.Confirm{Message: message, Default: def}, &answer)
}
