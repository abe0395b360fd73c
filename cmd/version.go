package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the opctl version",
		Args:  maxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			version := "(devel)"
			if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
				version = info.Main.Version
			}
			_, err := fmt.Fprintf(env.IO.Out, "opctl %s\n", version)
			return err
		},
	}
}
