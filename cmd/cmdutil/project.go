package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opctl/opctl/inflect"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/merge"
	"github.com/opctl/opctl/scaffold/render"
)

// Pluralize lower-cases and inflects a kind: Database → databases,
// Policy → policies.
func Pluralize(kind string) string { return strings.ToLower(inflect.Pluralize(kind)) }

// DecoratorStyles names the styles that decorate existing kinds.
func DecoratorStyles(styles scaffold.Styles) string {
	return StylesWith(styles, func(s scaffold.Style) bool { return s.ExistingKinds })
}

// LoadProject loads the project in the current directory and its style.
func LoadProject(env Env) (scaffold.Project, scaffold.Style, error) {
	p, err := scaffold.LoadProject(env.Dir, env.Styles)
	if err != nil {
		return p, scaffold.Style{}, err
	}
	style, err := env.Styles.Lookup(p.Style)
	return p, style, err
}

// PromptError is an input error as a prompt shows it: the rule alone, as
// the prompt re-asks for the same value.
func PromptError(err error) error {
	var inputErr *input.Error
	if errors.As(err, &inputErr) && inputErr.Rule != "" {
		return errors.New(inputErr.Rule)
	}
	return err
}

// StylesWith names the styles a flag applies to, for its help text.
func StylesWith(styles scaffold.Styles, applies func(scaffold.Style) bool) string {
	var names []string
	for _, s := range styles {
		if applies(s) {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ", ")
}

// WarnUnguarded warns of each rule that reads an optional field without
// has(): valid CEL, but it refuses every object that leaves the field out.
func WarnUnguarded(env Env, a api.API, rules []api.Rule) {
	for _, r := range rules {
		for _, name := range api.UnguardedOptional(a, r) {
			fmt.Fprintf(env.IO.ErrOut, "opctl: warning: --rule %q reads %s, which is optional, without has(self.%s): an object that leaves it out is refused (no such key)\n", r.Rule, name, name)
		}
	}
}

// WriteChange writes the project changed from before to after: what after
// renders, and the files of the user's that before rendered and after
// does not, removed when unchanged and otherwise listed as left.
func WriteChange(ctx context.Context, env Env, before, after scaffold.Project, w WriteFlags) error {
	style, err := env.Styles.Lookup(after.Style)
	if err != nil {
		return err
	}
	previous, err := render.Project(before, style)
	if err != nil {
		return err
	}
	if err := render.CheckWrittenStyle(before, previous, env.Styles); err != nil {
		return err
	}
	tree, err := render.Project(after, style)
	if err != nil {
		return err
	}
	changes, err := machinery.Plan(env.Dir, tree, before.Recorded(), w.Force)
	if err != nil {
		return err
	}
	left, err := machinery.Leave(env.Dir, previous, tree)
	if err != nil {
		return err
	}
	// A file of the user's that the user changed and opctl now writes
	// otherwise (a builder reading a new field, a conformance case, the go
	// style's types) gets opctl's change merged three ways, from what opctl
	// wrote for the project before: the user's lines stay and the project's
	// tests keep passing. Where the user changed the lines opctl's change
	// touches, the file is kept, the note says what to add, and the command
	// fails.
	unmerged := map[string][]byte{}
	for i, c := range changes {
		was, ok := previous.Get(c.Path)
		if !ok || c.File.Owner != machinery.UserOwned || c.Action != machinery.ActionKeep ||
			bytes.Equal(was.Content, c.File.Content) || bytes.Equal(was.Content, c.Old) {
			continue // not the user's change, or no change of opctl's: kept as it is
		}
		res := merge.ThreeWay(was.Content, c.Old, c.File.Content, merge.Labels{})
		if res.Conflicts > 0 {
			unmerged[c.Path] = was.Content
			continue
		}
		if bytes.Equal(res.Content, c.Old) {
			continue // opctl's change is already there
		}
		c.Rendered, c.File.Content = c.File.Content, res.Content
		c.Action = machinery.ActionMerge
		changes[i] = c
	}
	if err := WritePlan(ctx, env, env.Dir, append(changes, left...), w, nil); err != nil {
		return err
	}
	// A kept file of the user's that opctl would now write differently
	// (types the user changed, that a builder reads) is the user's to bring
	// up to date: say which.
	var keptWith, notMerged []string
	for _, c := range changes {
		if was, ok := unmerged[c.Path]; ok {
			diff, err := unifiedDiff(c.Path, was, c.File.Content)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(env.IO.Out, "note: %s is yours, and you changed the lines opctl's change touches: it is kept; add this change by hand:\n%s", c.Path, diff); err != nil {
				return err
			}
			notMerged = append(notMerged, c.Path)
			continue
		}
		was, ok := previous.Get(c.Path)
		if ok && c.Action == machinery.ActionKeep && !bytes.Equal(was.Content, c.File.Content) && len(c.File.KeptWith) > 0 {
			keptWith = append(keptWith, c.Path)
		}
	}
	if keptWith != nil {
		if _, err := fmt.Fprintf(env.IO.Out, "note: kept as they are, as the types they go with are yours; opctl's versions of them changed with the project (--dry-run -v shows them; make generate writes the deep copies again): %s\n", strings.Join(keptWith, ", ")); err != nil {
			return err
		}
	}
	if notMerged != nil {
		return fmt.Errorf("opctl's change is not in %s: you changed the lines it touches; add it by hand as the notes above show", strings.Join(notMerged, ", "))
	}
	return nil
}

// ReadTree is every file under sub of dir, by its slash path from dir;
// none when sub does not exist.
func ReadTree(dir, sub string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(sub)), func(path string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil || d.IsDir():
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	return files, err
}
