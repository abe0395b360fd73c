package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

// WriteFlags are the flags of every command that writes a project.
type WriteFlags struct {
	DryRun  bool
	verbose bool
	Force   bool
}

func (w *WriteFlags) Register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&w.DryRun, "dry-run", false, "print what would be written and write nothing")
	cmd.Flags().BoolVarP(&w.verbose, "verbose", "v", false, "list unchanged files too; with --dry-run, print new files' contents (changes are always shown as diffs)")
	cmd.Flags().BoolVar(&w.Force, "force", false, "overwrite generated files edited by hand or not written by opctl (never your own files)")
}

// RenderAndWrite renders the project, then writes it to dir (or, with
// --dry-run, only reports). Rendering validates everything first, so an
// error leaves dir untouched. confirm, when set, sees the number of files to
// write after the plan is shown and may cancel. Writing stops, and undoes
// what it did, when ctx is cancelled (Ctrl-C) before the files are renamed
// into place.
func RenderAndWrite(ctx context.Context, env Env, dir string, p scaffold.Project, w WriteFlags, confirm func(int) error) error {
	style, err := env.Styles.Lookup(p.Style)
	if err != nil {
		return err
	}
	tree, err := render.Project(p, style)
	if err != nil {
		return err
	}
	if err := render.CheckWrittenStyle(p, tree, env.Styles); err != nil {
		return err
	}
	changes, err := machinery.Plan(dir, tree, p.Recorded(), w.Force)
	if err != nil {
		return err
	}
	return WritePlan(ctx, env, dir, changes, w, confirm)
}

// WritePlan prints a plan and carries it out: a dry run only prints; a plan
// with conflicts prints them and writes nothing.
func WritePlan(ctx context.Context, env Env, dir string, changes []machinery.Change, w WriteFlags, confirm func(int) error) error {
	out := env.IO.Out
	conflicts := conflictError(changes)
	switch {
	case w.DryRun:
		if err := printPlan(out, changes, w); err != nil {
			return err
		}
		fmt.Fprintln(out, "dry run: nothing written")
		return conflicts // a dry run ends as the real run would
	case conflicts != nil:
		// Only what stops the write: listing what would have been written
		// would say it was.
		var stopping []machinery.Change
		for _, c := range changes {
			if c.Conflict() {
				stopping = append(stopping, c)
			}
		}
		if err := printPlan(out, stopping, w); err != nil {
			return err
		}
		return conflicts
	}
	// A plan the directory cannot take is not printed as if it would be.
	if err := checkWritable(dir); err != nil {
		return err
	}
	if err := printPlan(out, changes, w); err != nil {
		return err
	}
	writes, removals, unchanged := 0, 0, 0
	for _, c := range changes {
		switch {
		case c.Writes():
			writes++
		case c.Action == machinery.ActionRemove:
			removals++
		case c.Action == machinery.ActionUnchanged:
			unchanged++
		}
	}
	if confirm != nil {
		if err := confirm(writes); err != nil {
			return err
		}
	}
	// The bases of the files of yours opctl writes go with them (not
	// listed: machine state, like the hashes in opctl.yaml).
	changes, err := machinery.WithBases(dir, changes)
	if err != nil {
		return err
	}
	if err := machinery.Apply(ctx, machinery.OSFS{}, dir, changes); err != nil {
		return err
	}
	fmt.Fprintf(out, "done: %d written, %d removed, %d unchanged\n", writes, removals, unchanged)
	return nil
}

// checkWritable tries to create a file in dir, or in its nearest ancestor
// that exists when dir does not yet.
func checkWritable(dir string) error {
	probe := dir
	for {
		if _, err := os.Stat(probe); err == nil || filepath.Dir(probe) == probe {
			break
		}
		probe = filepath.Dir(probe)
	}
	f, err := os.CreateTemp(probe, ".opctl-probe-*")
	if err != nil {
		return fmt.Errorf("nothing written: %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// conflictError is the error a plan with conflicts stops with, or nil.
func conflictError(changes []machinery.Change) error {
	paths := map[machinery.Action][]string{}
	for _, c := range changes {
		if c.Conflict() {
			paths[c.Action] = append(paths[c.Action], c.Path)
		}
	}
	var why []string
	for _, reason := range []struct {
		action machinery.Action
		what   string
	}{
		{machinery.ActionEdited, "changed by hand since opctl generated them"},
		{machinery.ActionForeign, "not written by opctl"},
		{machinery.ActionOrphaned, "no longer produced but changed by hand"},
	} {
		if p := paths[reason.action]; len(p) > 0 {
			why = append(why, strings.Join(p, ", ")+" "+reason.what)
		}
	}
	if why == nil {
		return nil
	}
	return fmt.Errorf("nothing written: %s; move your changes to files of yours, or use --force to overwrite", strings.Join(why, "; "))
}

// printPlan lists each change. A dry run shows each change as a diff;
// with --verbose also what opctl would have written over a file of yours,
// and new files whole.
func printPlan(out io.Writer, changes []machinery.Change, w WriteFlags) error {
	for _, c := range changes {
		if c.Action == machinery.ActionUnchanged && !w.verbose {
			continue // the summary counts them; -v lists them
		}
		note := ""
		switch c.Action {
		case machinery.ActionKeep:
			note = " (yours: opctl writes it only when it is missing)"
			if len(c.File.KeptWith) > 0 {
				note = " (yours: opctl writes it when it is missing, and follows the project only while the code of the types it goes with is as opctl writes it)"
			}
		case machinery.ActionUpdate:
			if c.File.Owner == machinery.UserOwned {
				note = " (yours, still as opctl wrote it: it follows the project until you change it)"
			}
		case machinery.ActionEdited:
			note = " (generated, but edited by hand; --force overwrites)"
		case machinery.ActionForeign:
			note = " (opctl generates this file but did not write it; --force overwrites)"
		case machinery.ActionRemove:
			note = " (generated, no longer produced)"
			if c.File.Owner == machinery.UserOwned {
				note = " (yours, but as opctl wrote it and no longer produced)"
			}
		case machinery.ActionOrphaned:
			note = " (generated, no longer produced, but edited by hand; --force removes)"
		case machinery.ActionMerge:
			note = " (yours, changed by you: merged with what opctl writes now)"
		case machinery.ActionMergeConflict:
			note = " (yours, changed by you: merged with what opctl writes now, with conflicts to resolve)"
		case machinery.ActionLeave:
			note = " (yours, no longer produced, changed since opctl wrote it: left in place; remove it unless you still need it, as it may refer to what is gone)"
		}
		fmt.Fprintf(out, "%-9s %s%s\n", c.Action, c.Path, note)
		switch {
		case w.DryRun && (c.Action == machinery.ActionUpdate || c.Action == machinery.ActionMerge || c.Action == machinery.ActionMergeConflict ||
			c.Conflict() || (w.verbose && c.Action == machinery.ActionKeep)):
			diff, err := unifiedDiff(c.Path, c.Old, c.File.Content)
			if err != nil {
				return err
			}
			fmt.Fprint(out, diff)
		case w.DryRun && w.verbose && c.Action == machinery.ActionCreate:
			fmt.Fprintf(out, "%s\n", indent(c.File.Content))
		}
	}
	return nil
}

// unifiedDiff is the change from a to b of the file at path, as git
// shows it.
func unifiedDiff(path string, a, b []byte) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: "a/" + path, ToFile: "b/" + path, Context: 3,
	})
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
