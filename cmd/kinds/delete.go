package kinds

import (
	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
)

// NewDeleteCmd is opctl delete and its subcommands.
func NewDeleteCmd(env cmdutil.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Remove parts of the project",
		Args:  cmdutil.MaxArgs(0),
	}
	cmd.AddCommand(newDeleteAPICmd(env, nil))
	return cmd
}

// deleteAPIOptions are delete api's: the name of what to remove.
type deleteAPIOptions struct {
	cmdutil.Given
	name  string
	write cmdutil.WriteFlags
}

func newDeleteAPICmd(env cmdutil.Env, runF func(*deleteAPIOptions) error) *cobra.Command {
	var o deleteAPIOptions
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
				return cmdutil.UsageErrorf("%s takes one argument, the kind, decorator or watch to remove (e.g. opctl delete api Database)", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Given, o.name = cmdutil.GivenBy(cmd), args[0]
			if runF != nil {
				return runF(&o)
			}
			return runDeleteAPI(env, o)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.OneOf(cmdutil.ProjectNames(env, true))(cmd, args, toComplete)
		},
	}
	o.write.Register(cmd)
	return cmd
}

func runDeleteAPI(env cmdutil.Env, o deleteAPIOptions) error {
	p, _, err := cmdutil.LoadProject(env)
	if err != nil {
		return err
	}
	// The name is the command's argument, NAME in its usage.
	without, err := p.RemoveAPI(func(string) string { return "NAME" }, o.name)
	if err != nil {
		return err
	}
	return cmdutil.WriteChange(o.Ctx, env, p, without, o.write)
}
