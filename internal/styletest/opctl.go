// Package styletest is what the tests of every style share: opctl run as a
// user runs it, the seed example, the tools a generated project's own tests
// need and, behind the e2e build tag, a real API server and the checks run
// against it. Only tests import it. It names no style: what a style's tests
// know of it sits in the style's own folder.
package styletest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd"
	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold/styles"
)

// Result is what one opctl command line did.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs opctl with args in dir as a script would: no terminal, every
// registered style. A prompt fails the test.
func Run(t *testing.T, dir string, args ...string) Result {
	t.Helper()
	var out, errOut bytes.Buffer
	env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Prompter: noPrompts{t}, Dir: dir, Styles: styles.All()}
	code := cmd.Run(args, env)
	return Result{Code: code, Stdout: out.String(), Stderr: errOut.String()}
}

// MustRun runs opctl like Run and fails the test, with opctl's message,
// unless it succeeds.
func MustRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	r := Run(t, dir, args...)
	require.Equal(t, 0, r.Code, r.Stderr)
}

// errPrompted is what a prompt answers in these runs.
var errPrompted = errors.New("opctl prompted, but the test gives every answer as a flag")

// noPrompts is the Prompter of Run: without a terminal opctl must not ask.
type noPrompts struct{ t *testing.T }

func (p noPrompts) fail(message string) error {
	p.t.Errorf("unexpected prompt %q", message)
	return errPrompted
}

func (p noPrompts) Select(message, _ string, _ []string, _ string) (string, error) {
	return "", p.fail(message)
}

func (p noPrompts) MultiSelect(message, _ string, _, _ []string, _ func([]string) error) ([]string, error) {
	return nil, p.fail(message)
}

func (p noPrompts) Input(message, _, _ string, _ func(string) error) (string, error) {
	return "", p.fail(message)
}

func (p noPrompts) Confirm(message string, _ bool) (bool, error) {
	return false, p.fail(message)
}
