package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

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
	cmd.Flags().BoolVarP(&w.verbose, "verbose", "v", false, "with --dry-run, print new files' contents too (changes are always shown as diffs)")
	cmd.Flags().BoolVar(&w.force, "force", false, "overwrite user-owned files that already exist")
}

// renderAndWrite renders the project, then writes it to dir (or, with
// --dry-run, only reports). Rendering validates everything first, so an
// error leaves dir untouched. confirm, when set, sees the number of files to
// write after the plan is shown and may cancel. Writing stops, and undoes
// what it did, when ctx is cancelled (Ctrl-C) before the files are renamed
// into place.
func renderAndWrite(ctx context.Context, env Env, dir string, p scaffold.Project, w writeFlags, confirm func(int) error) error {
	style, err := env.Styles.Lookup(p.Style)
	if err != nil {
		return err
	}
	tree, err := scaffold.Render(p, style)
	if err != nil {
		return err
	}
	changes, err := scaffold.Plan(dir, tree, p.Generated, w.force)
	if err != nil {
		return err
	}
	if err := printPlan(env.IO.Out, changes, w); err != nil {
		return err
	}
	if w.dryRun {
		fmt.Fprintln(env.IO.Out, "dry run: nothing written")
		return nil
	}
	var edited []string
	n := 0
	for _, c := range changes {
		if c.Action == scaffold.ActionEdited {
			edited = append(edited, c.Path)
		}
		if c.Writes() {
			n++
		}
	}
	if len(edited) > 0 {
		return fmt.Errorf("nothing written: %s changed by hand since opctl generated them; move the change to a file of yours, or use --force to overwrite", strings.Join(edited, ", "))
	}
	if confirm != nil {
		if err := confirm(n); err != nil {
			return err
		}
	}
	return scaffold.Apply(ctx, scaffold.OSFS{}, dir, changes)
}

// printPlan lists each change. A change is shown as a diff in a dry run,
// and before a file of the user's is overwritten with --force; with
// --verbose a dry run shows new files too.
func printPlan(out io.Writer, changes []scaffold.Change, w writeFlags) error {
	for _, c := range changes {
		note := ""
		switch c.Action {
		case scaffold.ActionKeep:
			note = " (yours; --force overwrites)"
		case scaffold.ActionEdited:
			note = " (generated, but edited by hand; --force overwrites)"
		}
		fmt.Fprintf(out, "%-9s %s%s\n", c.Action, c.Path, note)
		switch {
		case (w.dryRun && (c.Action == scaffold.ActionUpdate || c.Action == scaffold.ActionEdited)) ||
			(c.Action == scaffold.ActionUpdate && c.File.Owner == scaffold.UserOwned):
			diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
				A: difflib.SplitLines(string(c.Old)), B: difflib.SplitLines(string(c.File.Content)),
				FromFile: "a/" + c.Path, ToFile: "b/" + c.Path, Context: 3,
			})
			if err != nil {
				return err
			}
			fmt.Fprint(out, diff)
		case w.dryRun && w.verbose && c.Action == scaffold.ActionCreate:
			fmt.Fprintf(out, "%s\n", indent(c.File.Content))
		}
	}
	return nil
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
