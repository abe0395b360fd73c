package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
)

// writeFlags are the flags of every command that writes a project.
type writeFlags struct {
	dryRun  bool
	verbose bool
	force   bool
}

func (w *writeFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&w.dryRun, "dry-run", false, "print what would be written and write nothing")
	cmd.Flags().BoolVarP(&w.verbose, "verbose", "v", false, "with --dry-run, print file contents too")
	cmd.Flags().BoolVar(&w.force, "force", false, "overwrite user-owned files that already exist")
}

// renderAndWrite renders the project, then writes it to dir (or, with
// --dry-run, only reports). Rendering validates everything first, so an
// error leaves dir untouched. confirm, when set, sees the number of files to
// write after the plan is shown and may cancel.
func renderAndWrite(out io.Writer, dir string, p scaffold.Project, w writeFlags, confirm func(int) error) error {
	tree, err := scaffold.Render(p)
	if err != nil {
		return err
	}
	changes, err := scaffold.Plan(dir, tree, w.force)
	if err != nil {
		return err
	}
	for _, c := range changes {
		note := ""
		if c.Action == scaffold.ActionKeep {
			note = " (yours; --force overwrites)"
		}
		fmt.Fprintf(out, "%-9s %s%s\n", c.Action, c.Path, note)
		if w.dryRun && w.verbose {
			f, _ := tree.Get(c.Path)
			fmt.Fprintf(out, "%s\n", indent(f.Content))
		}
	}
	if w.dryRun {
		fmt.Fprintln(out, "dry run: nothing written")
		return nil
	}
	if confirm != nil {
		n := 0
		for _, c := range changes {
			if c.Action == scaffold.ActionCreate || c.Action == scaffold.ActionUpdate {
				n++
			}
		}
		if err := confirm(n); err != nil {
			return err
		}
	}
	return scaffold.Write(dir, tree, changes)
}

func indent(b []byte) []byte {
	out := []byte("    ")
	for i, c := range b {
		out = append(out, c)
		if c == '\n' && i < len(b)-1 {
			out = append(out, "    "...)
		}
	}
	return out
}
