package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
)

func newVersionCmd(env cmdutil.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the opctl version",
		Args:  cmdutil.MaxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			info, _ := debug.ReadBuildInfo()
			_, err := fmt.Fprintf(env.IO.Out, "opctl %s\n", buildVersion(info))
			return err
		},
	}
}

// buildVersion is the module version Go stamped into the binary or, for a
// build without one (go run, a test), the commit it was built from.
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case revision == "":
		return "(devel)"
	case modified == "true":
		return fmt.Sprintf("(devel, commit %.12s, with changes)", revision)
	}
	return fmt.Sprintf("(devel, commit %.12s)", revision)
}
