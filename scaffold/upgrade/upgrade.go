// Package upgrade moves a project made by an earlier opctl to this one:
// this opctl's pins, its generated files, and the files of the user's
// merged three ways with what this opctl writes there now.
package upgrade

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/merge"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

// Pin is a version the upgrade moves, with its upgrade notes: what the
// user must do.
type Pin struct {
	Key, From, To string
	Notes         []string
}

// Plan is what an upgrade does to a project.
type Plan struct {
	// Project is the project with this opctl's pins.
	Project scaffold.Project
	Pins    []Pin
	Changes []machinery.Change
	// Unbased are the files of the user's merged without the version
	// opctl last wrote there (neither the project's bases nor its git
	// history keep it): every difference is a conflict.
	Unbased []string
	// Guessed are the files merged from their version in the commit that
	// added opctl.yaml: an opctl of before 2026-12-01 recorded no hash of
	// the user's files.
	Guessed []string
	// StillTheirs are the files of the user's in the project that this
	// opctl generates, changed by the user: they stay the user's, merged.
	StillTheirs []string
	// Stale are the files of such a project, in that commit and unchanged
	// since, that this opctl does not write: an earlier opctl's starters
	// (or files of the user's committed with them), left for the user to
	// remove.
	Stale []string
}

// Labels name the sides of a conflict.
var Labels = merge.Labels{Ours: "yours", Base: "opctl before", Theirs: "opctl now"}

// Prepare plans the upgrade of the project p in dir to this opctl: its
// pins become this opctl's, every file is rendered again, and each file of
// the user's that the user changed and that opctl now writes otherwise is
// merged: from its base (what opctl last wrote there, kept in
// machinery.BaseDir, else found in the project's git history) three ways,
// else two ways. Generated files are planned as opctl generate plans them,
// force as its --force.
func Prepare(dir string, p scaffold.Project, style scaffold.Style, bases Bases, force bool) (Plan, error) {
	plan := Plan{Project: p}
	defaults := pins.DefaultVersions()
	for _, key := range style.RecordedPins() {
		if from, to := p.Versions.Pin(key), defaults.Pin(key); from != to {
			pin := Pin{Key: key, From: from, To: to}
			for _, n := range pins.Sources()[key].Notes {
				if n.Applies(from, to) {
					pin.Notes = append(pin.Notes, n.Text)
				}
			}
			plan.Pins = append(plan.Pins, pin)
		}
	}
	plan.Project.Versions, plan.Project.Starters = defaults, nil
	tree, err := render.Project(plan.Project, style)
	if err != nil {
		return Plan{}, err
	}
	// An opctl of before 2026-12-01 recorded no hash of the user's files:
	// what it wrote is the file as committed with the first opctl.yaml,
	// recorded here as if it had been, as the user's unless it says it is
	// generated; the merges from those bases are named.
	earlier := machinery.Recorded{Generated: maps.Clone(p.Generated), Starters: maps.Clone(p.Starters)}
	if earlier.Generated == nil {
		earlier.Generated = map[string]string{}
	}
	if earlier.Starters == nil {
		earlier.Starters = map[string]string{}
	}
	guessed := map[string]bool{}
	if len(p.Starters) == 0 {
		for _, f := range tree.Files() {
			if earlier.Generated[f.Path] != "" {
				continue
			}
			base, ok, err := bases.Base(f.Path, "")
			if err != nil {
				return Plan{}, err
			}
			if !ok {
				continue
			}
			if f.Owner == machinery.Generated && generatedMark.Match(base) {
				earlier.Generated[f.Path] = machinery.ContentHash(base)
			} else {
				earlier.Starters[f.Path] = machinery.ContentHash(base)
				guessed[f.Path] = true
			}
		}
	}
	// A file of the user's in the earlier opctl's project that this one
	// generates (a kind's code that is now a loop over the kinds) is the
	// user's once they changed it: it stays theirs, merged now and by every
	// change after (render keeps the project's starters so).
	plan.Project.Starters = map[string]string{}
	for _, f := range tree.Files() {
		if h := earlier.Starters[f.Path]; h != "" && f.Owner == machinery.Generated {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err == nil && machinery.ContentHash(b) != h {
				plan.Project.Starters[f.Path] = h
				plan.StillTheirs = append(plan.StillTheirs, f.Path)
			}
		}
	}
	if len(plan.StillTheirs) > 0 {
		if tree, err = render.Project(plan.Project, style); err != nil {
			return Plan{}, err
		}
	}
	recorded := ownedAsNow(earlier, tree)
	if len(p.Starters) == 0 {
		scaffolded, err := bases.Scaffolded()
		if err != nil {
			return Plan{}, err
		}
		for _, f := range scaffolded {
			if _, ok := tree.Get(f); !ok && p.Generated[f] == "" {
				plan.Stale = append(plan.Stale, f)
			}
		}
	}
	changes, err := machinery.Plan(dir, tree, recorded, force)
	if err != nil {
		return Plan{}, err
	}
	for i, c := range changes {
		// A file of the user's, changed by the user, which opctl now
		// writes otherwise than it did: the one to merge.
		if c.Action != machinery.ActionKeep || recorded.Starters[c.Path] == machinery.ContentHash(c.File.Content) {
			continue
		}
		base, ok, err := bases.Base(c.Path, recorded.Starters[c.Path])
		if err != nil {
			return Plan{}, err
		}
		var res merge.Result
		switch {
		case ok:
			res = merge.ThreeWay(base, c.Old, c.File.Content, Labels)
			if guessed[c.Path] {
				plan.Guessed = append(plan.Guessed, c.Path)
			}
		default:
			res = merge.TwoWay(c.Old, c.File.Content, Labels)
			plan.Unbased = append(plan.Unbased, c.Path)
		}
		if bytes.Equal(res.Content, c.Old) {
			continue
		}
		c.Rendered, c.File.Content = c.File.Content, res.Content
		c.Action = machinery.ActionMerge
		if res.Conflicts > 0 {
			c.Action = machinery.ActionMergeConflict
		}
		changes[i] = c
	}
	// Files of the user's this opctl no longer writes (an earlier one's
	// starters): removed when still as opctl wrote them, else left.
	gone, err := machinery.LeaveRecorded(dir, recorded, tree)
	if err != nil {
		return Plan{}, err
	}
	plan.Changes = append(changes, gone...)
	return plan, nil
}

// generatedMark is the line that says a file is generated, in Go's
// convention, after any comment leader.
var generatedMark = regexp.MustCompile(`(?m)^\S* ?Code generated .* DO NOT EDIT\.$`)

// ownedAsNow is what opctl recorded of the files it wrote, each under the
// ownership this opctl gives it: an earlier starter this opctl generates
// (ansible's status tasks) is updated when the user never changed it (one
// they changed is the user's in tree: Prepare keeps it so); an earlier
// generated file this opctl leaves to the user follows it until the user
// changes it.
func ownedAsNow(r machinery.Recorded, tree *machinery.Tree) machinery.Recorded {
	out := machinery.Recorded{Generated: maps.Clone(r.Generated), Starters: maps.Clone(r.Starters)}
	if out.Generated == nil {
		out.Generated = map[string]string{}
	}
	if out.Starters == nil {
		out.Starters = map[string]string{}
	}
	for _, f := range tree.Files() {
		if f.Owner == machinery.Generated {
			if h := r.Starters[f.Path]; h != "" && out.Generated[f.Path] == "" {
				out.Generated[f.Path] = h
				delete(out.Starters, f.Path)
			}
		} else if h := r.Generated[f.Path]; h != "" && out.Starters[f.Path] == "" {
			out.Starters[f.Path] = h
			delete(out.Generated, f.Path)
		}
	}
	return out
}

// Conflicts are the files the plan writes with conflict markers.
func (p Plan) Conflicts() []string {
	var out []string
	for _, c := range p.Changes {
		if c.Action == machinery.ActionMergeConflict {
			out = append(out, c.Path)
		}
	}
	return out
}
