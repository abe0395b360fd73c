package project

import (
	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
)

func NewGenerateCmd(env cmdutil.Env) *cobra.Command {
	var w cmdutil.WriteFlags
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Re-render every generated file of the project in the current directory from opctl.yaml",
		Long: `Re-render every generated file from opctl.yaml, for example after editing it
or upgrading opctl. Files you own are left alone; generated files edited by
hand are reported and left alone unless --force. Generated files the project
no longer produces (a kind taken out of opctl.yaml) are removed when unchanged.`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := scaffold.LoadProject(env.Dir, env.Styles)
			if err != nil {
				return err
			}
			return cmdutil.RenderAndWrite(cmd.Context(), env, env.Dir, p, w, nil)
		},
	}
	w.Register(cmd)
	return cmd
}
