package project

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/upgrade"
)

// upgradeOptions are opctl upgrade's.
type upgradeOptions struct {
	cmdutil.Given
	write cmdutil.WriteFlags
}

// NewUpgradeCmd is opctl upgrade; runF, when not nil, gets the options in
// place of the run function.
func NewUpgradeCmd(env cmdutil.Env, runF func(*upgradeOptions) error) *cobra.Command {
	var o upgradeOptions
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Move the project in the current directory to this opctl: its pins and files, your changes merged in",
		Long: `Move the project to this opctl: the versions it pins (Go modules, images,
GitHub actions, frameworks) become this opctl's, every generated file is
rendered again, and each file of yours that you changed and that opctl now
writes otherwise is merged three ways: what opctl wrote there before (kept
in .opctl/base, or found in the project's git history), your file, and what
opctl writes now. A change only one side made is taken; changes both made
to the same lines are a conflict, written between git's conflict markers
(<<<<<<< yours, ||||||| opctl before, ======= , >>>>>>> opctl now) and
listed: resolve them, then run make test. A file whose earlier version is
nowhere to be found is merged two ways: every difference is a conflict.

A file of yours that this opctl generates (an earlier opctl's starter) stays
yours once you changed it: merged the same way, with or without --force.

--dry-run prints each change as a diff and writes nothing. Generated files
edited by hand stop the upgrade, as they stop opctl generate, unless
--force. Conflicts exit 1 once everything is written.`,
		Args: cmdutil.MaxArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = cmdutil.GivenBy(cmd)
			if runF != nil {
				return runF(&o)
			}
			return runUpgrade(env, o)
		},
	}
	o.write.Register(cmd)
	return cmd
}

func runUpgrade(env cmdutil.Env, o upgradeOptions) error {
	p, err := scaffold.LoadProject(env.Dir, env.Styles)
	if err != nil {
		return err
	}
	style, err := env.Styles.Lookup(p.Style)
	if err != nil {
		return err
	}
	plan, err := upgrade.Prepare(env.Dir, p, style, upgrade.NewProjectBases(env.Dir), o.write.Force)
	if err != nil {
		return err
	}
	out := env.IO.Out
	if len(plan.Pins) == 0 {
		fmt.Fprintln(out, "pins: already this opctl's")
	}
	for _, pin := range plan.Pins {
		fmt.Fprintf(out, "pin       %s: %s -> %s\n", pin.Key, pin.From, pin.To)
		for _, note := range pin.Notes {
			fmt.Fprintf(out, "          note: %s\n", note)
		}
	}
	if p.HashesInProjectFile() {
		fmt.Fprintf(out, "note      %s no longer holds the hashes of the files opctl wrote: %s does; commit it with .opctl/base\n", scaffold.ProjectFileName, scaffold.LockFileName)
	}
	if err := cmdutil.WritePlan(o.Ctx, env, env.Dir, plan.Changes, o.write, nil); err != nil {
		return err
	}
	if len(plan.Guessed) > 0 {
		fmt.Fprintf(out, "merged from the commit that added opctl.yaml (the opctl before recorded no hash of your files): %s; check that your changes are kept\n", strings.Join(plan.Guessed, ", "))
	}
	if len(plan.StillTheirs) > 0 {
		fmt.Fprintf(out, "yours, changed, in the opctl that made the project, and written by opctl now: %s; they stay yours, opctl's changes merged into them\n", strings.Join(plan.StillTheirs, ", "))
	}
	if len(plan.Stale) > 0 {
		fmt.Fprintf(out, "left as they were, in the commit that added opctl.yaml and unchanged since, but written by no opctl now (remove the earlier opctl's): %s\n", strings.Join(plan.Stale, ", "))
	}
	if len(plan.Unbased) > 0 {
		fmt.Fprintf(out, "merged without the version opctl wrote before (every difference is a conflict): %s\n", strings.Join(plan.Unbased, ", "))
	}
	if conflicts := plan.Conflicts(); len(conflicts) > 0 {
		verb := "have"
		if o.write.DryRun {
			verb = "would have"
		}
		return fmt.Errorf("%s %s conflicts: resolve the lines between <<<<<<< and >>>>>>>, then run make test", strings.Join(conflicts, ", "), verb)
	}
	return nil
}
