package cmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
)

func newStylesCmd(env cmdutil.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "styles",
		Short: "List the operator styles opctl can scaffold",
		Args:  cmdutil.MaxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			w := tabwriter.NewWriter(env.IO.Out, 0, 4, 2, ' ', 0)
			for _, s := range env.Styles {
				fmt.Fprintf(w, "%s\t%s\n", s.Name, s.Summary)
			}
			return w.Flush()
		},
	}
}
