package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Given is what a command's run function takes from cobra: the context and
// which flags the command line set. A run function takes its options with
// Given in them, not a *cobra.Command, so that a test runs it with options
// of its own, and a command's constructor takes a runF that gets the
// options in place of the run function, so that a test sees what the flags
// made of them (as the GitHub CLI's commands do).
type Given struct {
	Ctx context.Context
	set map[string]bool
}

// GivenBy is what cmd's command line gave.
func GivenBy(cmd *cobra.Command) Given {
	g := Given{Ctx: cmd.Context(), set: map[string]bool{}}
	cmd.Flags().Visit(func(f *pflag.Flag) { g.set[f.Name] = true })
	return g
}

// GivenFlags is a Given with the flags named set, for tests.
func GivenFlags(ctx context.Context, names ...string) Given {
	g := Given{Ctx: ctx, set: map[string]bool{}}
	for _, n := range names {
		g.set[n] = true
	}
	return g
}

// Set reports whether the command line set the flag.
func (g Given) Set(name string) bool { return g.set[name] }
