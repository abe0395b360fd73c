// Package cmdutil is what opctl's commands share: the Env they run in
// (streams, prompter, directory, style registry), usage errors, flag
// completion, the project loader and the plan-and-write every writing
// command ends with.
package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
)

// Env is what commands need from the outside world.
type Env struct {
	IO       IOStreams
	Prompter Prompter
	// Dir is the working directory commands resolve paths against.
	Dir string
	// Styles is the style registry.
	Styles scaffold.Styles
}

// UsageError is a bad command line; it exits 2.
type UsageError struct{ error }

// Usage marks err as a bad command line.
func Usage(err error) error { return UsageError{err} }

// UsageErrorf is a bad command line, formatted.
func UsageErrorf(format string, args ...any) error { return Usage(fmt.Errorf(format, args...)) }

// MaxArgs is cobra.MaximumNArgs with a usage exit code.
func MaxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return UsageErrorf("%s takes at most %d argument(s), got %q", cmd.CommandPath(), n, args)
		}
		return nil
	}
}
