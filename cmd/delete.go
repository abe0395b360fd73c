package cmd

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

func newDeleteCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Remove parts of the project",
		Args:  maxArgs(0),
	}
	cmd.AddCommand(newDeleteAPICmd(env))
	return cmd
}

func newDeleteAPICmd(env Env) *cobra.Command {
	var w writeFlags
	cmd := &cobra.Command{
		Use:   "api NAME",
		Short: "Remove a kind (or a decorator, or a watch) from the project in the current directory",
		Long: `Remove a kind, a watch of an existing kind, or in a project of decorators a
decorator, by its name.

The generated files it had are removed, as are files of yours opctl wrote for
it that you never changed; a generated file edited by hand stops the command
(--force removes it), and a file of yours that you changed is left in place
and listed. opctl.yaml forgets the kind.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("%s takes one argument, the kind, decorator or watch to remove (e.g. opctl delete api Database)", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDeleteAPI(cmd, env, args[0], w)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return oneOf(projectNames(env, true))(cmd, args, toComplete)
		},
	}
	w.register(cmd)
	return cmd
}

func runDeleteAPI(cmd *cobra.Command, env Env, name string, w writeFlags) error {
	p, _, err := loadProject(env)
	if err != nil {
		return err
	}
	// The name is the command's argument, NAME in its usage.
	without, err := p.RemoveAPI(func(string) string { return "NAME" }, name)
	if err != nil {
		return err
	}
	return writeChange(cmd, env, p, without, w)
}

// writeChange writes the project changed from before to after: what after
// renders, and the files of the user's that before rendered and after
// does not, removed when unchanged and otherwise listed as left.
func writeChange(cmd *cobra.Command, env Env, before, after scaffold.Project, w writeFlags) error {
	style, err := env.Styles.Lookup(after.Style)
	if err != nil {
		return err
	}
	previous, err := render.Project(before, style)
	if err != nil {
		return err
	}
	if err := render.CheckWrittenStyle(before, previous, env.Styles); err != nil {
		return err
	}
	tree, err := render.Project(after, style)
	if err != nil {
		return err
	}
	changes, err := machinery.Plan(env.Dir, tree, before.Recorded(), w.force)
	if err != nil {
		return err
	}
	left, err := machinery.Leave(env.Dir, previous, tree)
	if err != nil {
		return err
	}
	if err := writePlan(cmd.Context(), env, env.Dir, append(changes, left...), w, nil); err != nil {
		return err
	}
	// A kept file of the user's that opctl would now write differently
	// (a builder that does not use a new field) is the user's to bring up
	// to date: say which.
	for _, c := range changes {
		if was, ok := previous.Get(c.Path); ok && c.Action == machinery.ActionKeep && !bytes.Equal(was.Content, c.File.Content) {
			if _, err := fmt.Fprintf(env.IO.Out, "note: %s is yours and changed, so it is kept; opctl's version of it changed with the project (--dry-run -v shows it)\n", c.Path); err != nil {
				return err
			}
		}
	}
	return nil
}
