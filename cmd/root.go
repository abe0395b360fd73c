// Package cmd holds opctl's commands. Every command gets its streams and
// prompter injected; nothing here keeps state between runs.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/cmd/decide"
	"github.com/opctl/opctl/cmd/kinds"
	"github.com/opctl/opctl/cmd/project"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/styles"
)

// Exit codes of opctl.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // bad flags or input, or cancelled by the user
)

// Main runs opctl as a process and returns its exit code.
func Main() int {
	// A run is short and its live heap small: collecting at 4× rather
	// than 2× the live heap saves most of its collections (GOGC still
	// overrides this).
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	io := cmdutil.SystemIO()
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(io.ErrOut, "opctl:", err)
		return exitFailure
	}
	// Ctrl-C cancels the context: a write in progress is undone (or, once
	// files are being renamed into place, finished) and opctl exits 1.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return RunContext(ctx, os.Args[1:], cmdutil.Env{IO: io, Prompter: cmdutil.NewSurveyPrompter(os.Stdin, os.Stdout, os.Stderr), Dir: dir, Styles: styles.All()})
}

// Run executes one command line and returns the exit code. The style
// registry is checked first: one the commands could not serve is refused
// at start, not by a panic later.
func Run(args []string, env cmdutil.Env) int { return RunContext(context.Background(), args, env) }

// RunContext is Run with a context that cancels writing.
func RunContext(ctx context.Context, args []string, env cmdutil.Env) int {
	if err := env.Styles.Check(); err != nil {
		fmt.Fprintln(env.IO.ErrOut, "opctl:", err)
		return exitFailure
	}
	root := newRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(env.IO.ErrOut, "opctl:", err)
	var inputErr *input.Error
	var usage cmdutil.UsageError
	switch {
	case errors.As(err, &inputErr), errors.As(err, &usage), errors.Is(err, cmdutil.ErrCancelled):
		return exitUsage
	}
	return exitFailure
}

func newRootCmd(env cmdutil.Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "opctl",
		Short: "Scaffold Kubernetes operators in any style",
		Long: `opctl scaffolds Kubernetes operators in the style that fits your team:
a CRD with a real OpenAPI schema, least-privilege RBAC, a hardened
Deployment and starter code that reconciles, with its own tests.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(env.IO.In)
	root.SetOut(env.IO.Out)
	root.SetErr(env.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.Usage(err) })
	root.AddCommand(
		decide.NewCmd(env, nil),
		project.NewInitCmd(env, nil),
		kinds.NewCreateCmd(env),
		kinds.NewEditCmd(env),
		kinds.NewDeleteCmd(env),
		project.NewGenerateCmd(env, nil),
		project.NewUpgradeCmd(env, nil),
		project.NewMigrateCmd(env, nil),
		project.NewVerifyCmd(env, nil),
		newStylesCmd(env),
		newTypesCmd(env),
		newVersionCmd(env),
	)
	return root
}
