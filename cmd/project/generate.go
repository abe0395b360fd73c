package project

import (
	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
)

// generateOptions are opctl generate's.
type generateOptions struct {
	cmdutil.Given
	write cmdutil.WriteFlags
}

// NewGenerateCmd is opctl generate; runF, when not nil, gets the options
// in place of the run function.
func NewGenerateCmd(env cmdutil.Env, runF func(*generateOptions) error) *cobra.Command {
	var o generateOptions
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Re-render every generated file of the project in the current directory from opctl.yaml",
		Long: `Re-render every generated file from opctl.yaml, for example after editing it
or upgrading opctl. Files you own are left alone; generated files edited by
hand are reported and left alone unless --force. Generated files the project
no longer produces (a kind taken out of opctl.yaml) are removed when unchanged.`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runGenerate(env, o)
		},
	}
	o.write.Register(cmd)
	return cmd
}

func runGenerate(env cmdutil.Env, o generateOptions) error {
	p, err := scaffold.LoadProject(env.Dir, env.Styles)
	if err != nil {
		return err
	}
	return cmdutil.RenderAndWrite(o.Ctx, env, env.Dir, p, o.write, nil)
}
