package cmd

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
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
// write after the plan is shown and may cancel.
func renderAndWrite(env Env, dir string, p scaffold.Project, w writeFlags, confirm func(int) error) error {
	out := env.IO.Out
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
	var edited []string
	for _, c := range changes {
		note := ""
		switch c.Action {
		case scaffold.ActionKeep:
			note = " (yours; --force overwrites)"
		case scaffold.ActionEdited:
			note = " (generated, but edited by hand; --force overwrites)"
			edited = append(edited, c.Path)
		}
		fmt.Fprintf(out, "%-9s %s%s\n", c.Action, c.Path, note)
		f, _ := tree.Get(c.Path)
		switch {
		// A change is shown as a diff in a dry run, and before a file of the
		// user's is overwritten with --force.
		case (w.dryRun && (c.Action == scaffold.ActionUpdate || c.Action == scaffold.ActionEdited)) ||
			(c.Action == scaffold.ActionUpdate && f.Owner == scaffold.UserOwned):
			old, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.Path)))
			if err != nil {
				return err
			}
			diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
				A: difflib.SplitLines(string(old)), B: difflib.SplitLines(string(f.Content)),
				FromFile: "a/" + c.Path, ToFile: "b/" + c.Path, Context: 3,
			})
			if err != nil {
				return err
			}
			fmt.Fprint(out, diff)
		case w.dryRun && w.verbose && c.Action == scaffold.ActionCreate:
			fmt.Fprintf(out, "%s\n", indent(f.Content))
		}
	}
	if w.dryRun {
		fmt.Fprintln(out, "dry run: nothing written")
		return nil
	}
	if len(edited) > 0 {
		return fmt.Errorf("nothing written: %s changed by hand since opctl generated them; move the change to a file of yours, or use --force to overwrite", strings.Join(edited, ", "))
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
	// Ctrl-C while files are renamed into place waits for the write to
	// finish (milliseconds), so it never leaves a half-written tree.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	return scaffold.Write(scaffold.OSFS{}, dir, tree, changes)
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
