// Package migrate moves a project to another style: the same kinds, so
// the same CRDs, samples and conformance cases, in the new style's code;
// what the new style cannot express, how the two runtimes differ, and what
// the cluster needs now that it did not, for the report of opctl migrate.
package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

// Migration is a project moved to another style.
type Migration struct {
	Project scaffold.Project
	// Dropped is what the new style cannot express, one line each: it is
	// yours to port.
	Dropped []string
}

// To is the project p in style to: the same kinds, so the same CRDs
// and samples, byte for byte, and the new style's starter code. Watches
// need a style that watches; a decorator becomes a watch of its target
// (its attachments are yours to port); a kind's option the new style
// lacks goes, and what one ran instead of the style's code (a playbook)
// is yours to port. domain and repo fill in what
// the new style needs and the project lacks.
func To(p scaffold.Project, src input.Source, from, to scaffold.Style, styles scaffold.Styles, domain, repo string) (Migration, error) {
	m := Migration{Project: p}
	n := &m.Project
	if to.Name == from.Name {
		return m, input.Invalid(src, "to", to.Name, "the project's style is %s already", to.Name)
	}
	if len(p.APIs) > 0 && to.ExistingKinds {
		return m, input.Invalid(src, "to", to.Name, "%s projects decorate existing kinds and have no CRDs; this project has kinds %s", to.Name, strings.Join(kindNames(p), ", "))
	}
	if len(p.Watches) > 0 && !to.Watches {
		return m, input.Invalid(src, "to", to.Name, "this project watches existing kinds (%s), which %s projects cannot", p.Watches[0].Target.APIVersion+"/"+p.Watches[0].Target.Kind, to.Name)
	}
	if len(p.Decorators) > 0 {
		if !to.Watches && !to.ExistingKinds {
			return m, input.Invalid(src, "to", to.Name, "this project decorates existing kinds (%s), which %s projects cannot watch", p.Decorators[0].Target.APIVersion+"/"+p.Decorators[0].Target.Kind, to.Name)
		}
		if !to.ExistingKinds {
			n.Decorators = nil
			for _, d := range p.Decorators {
				n.Watches = append(n.Watches, scaffold.Watch{Name: d.Name, Target: d.Target, Selector: d.Selector})
				m.Dropped = append(m.Dropped, fmt.Sprintf("decorator %s attached %s to each %s: it is a watch now; create them in its handler",
					d.Name, strings.Join(d.Owns, ", "), d.Target.Kind))
			}
		}
	}
	n.APIs = slices.Clone(p.APIs)
	for i, a := range n.APIs {
		// The kind's options the new style lacks go: one that ran
		// something instead of the style's code leaves it to port.
		n.APIs[i].Options = nil
		for _, name := range slices.Sorted(maps.Keys(a.Options)) {
			if _, ok := to.KindOption(name); ok {
				if n.APIs[i].Options == nil {
					n.APIs[i].Options = map[string]string{}
				}
				n.APIs[i].Options[name] = a.Options[name]
				continue
			}
			if option, _ := from.KindOption(name); !option.RunsInstead {
				m.Dropped = append(m.Dropped, fmt.Sprintf("kind %s: %s %s is not a setting of %s kinds; it is dropped", a.Kind, name, a.Options[name], to.Name))
				continue
			}
			m.Dropped = append(m.Dropped, fmt.Sprintf("kind %s ran the %s %s: the %s starter code takes its place; port what it did to it. "+
				"Its conformance cases (%s/%s/) are opctl's starter children, which the %s never made: make them say what it did",
				a.Kind, name, a.Options[name], to.Name, render.ConformanceDir, a.Singular(), name))
		}
	}
	if n.Domain == "" && !to.ExistingKinds {
		n.Domain = domain
	}
	n.Repo = ""
	if to.ModulePath {
		n.Repo = p.Repo
		if repo != "" {
			n.Repo = repo
		}
		if n.Repo == "" {
			n.Repo = n.Domain + "/" + n.Name
		}
	}
	switch {
	case !to.Resync:
		n.ResyncSeconds = 0
	case n.ResyncSeconds == 0:
		n.ResyncSeconds = scaffold.DefaultResyncSeconds
	}
	n.Style, n.Generated, n.Starters = to.Name, nil, nil
	return m, n.Validate(src, styles)
}

// kindNames are the kinds of p.
func kindNames(p scaffold.Project) []string {
	var out []string
	for _, a := range p.APIs {
		out = append(out, a.Kind)
	}
	return out
}

// Differences are the ways the runtime of style to behaves
// unlike that of from, for the project, one line each.
func Differences(p scaffold.Project, from, to scaffold.Style) []string {
	var out []string
	a, b := from.Checklist.Comparison, to.Checklist.Comparison
	for _, row := range []struct{ topic, old, new string }{
		{"language", a.Language, b.Language},
		{"idempotency", a.Idempotency, b.Idempotency},
		{"performance", a.Performance, b.Performance},
		{"ownership", from.Ownership, to.Ownership},
		{"finalizers", from.Finalizers, to.Finalizers},
	} {
		if row.old != row.new {
			out = append(out, fmt.Sprintf("%s: %s: %s; %s: %s", row.topic, from.Name, row.old, to.Name, row.new))
		}
	}
	resync := func(s scaffold.Style) string {
		if s.Resync {
			return "re-syncs every object periodically (resyncSeconds in opctl.yaml)"
		}
		return "reconciles on changes only (of the object and its children)"
	}
	if from.Resync != to.Resync {
		out = append(out, fmt.Sprintf("resync: %s %s; %s %s", from.Name, resync(from), to.Name, resync(to)))
	}
	canonical := func(s scaffold.Style) string {
		if s.CanonicalValues {
			return "writes quantities and durations into the children in canonical form (1000m as 1, 90m as 1h30m0s)"
		}
		return "writes quantities and durations into the children as written"
	}
	typed := slices.ContainsFunc(p.APIs, func(a api.API) bool {
		return slices.ContainsFunc(a.Fields, func(f api.Field) bool { return f.Type == api.TypeQuantity || f.Type == api.TypeDuration })
	})
	if from.CanonicalValues != to.CanonicalValues && typed {
		out = append(out, fmt.Sprintf("spec values: %s %s; %s %s (a conformance case whose spec writes one otherwise holds in one of them only)", from.Name, canonical(from), to.Name, canonical(to)))
	}
	admission := func(s scaffold.Style) string {
		if s.Webhooks {
			return "serves admission webhooks (cert-manager issues their certificate)"
		}
		return "gets ValidatingAdmissionPolicies, which check but cannot default"
	}
	if from.Webhooks != to.Webhooks && slices.ContainsFunc(p.APIs, func(a api.API) bool { return a.Admission != nil }) {
		out = append(out, fmt.Sprintf("admission: %s %s; %s %s", from.Name, admission(from), to.Name, admission(to)))
	}
	reads := func(s scaffold.Style) string {
		if s.Access.WatchesInNamespace {
			return "reads a watched kind in the watch's namespace alone (a Role there)"
		}
		return "reads a watched kind in every namespace (the ClusterRole) and passes over the other namespaces' objects itself"
	}
	narrowed := slices.ContainsFunc(p.Watches, func(w scaffold.Watch) bool { return w.Namespace != "" })
	if from.Access.WatchesInNamespace != to.Access.WatchesInNamespace && narrowed {
		out = append(out, fmt.Sprintf("watch access: %s %s; %s %s", from.Name, reads(from), to.Name, reads(to)))
	}
	return out
}

// NewPrerequisites are what the cluster needs for the project in to that
// it did not need in from.
func NewPrerequisites(old scaffold.Project, from scaffold.Style, migrated scaffold.Project, to scaffold.Style) []api.Prerequisite {
	var out []api.Prerequisite
	had := render.Prerequisites(old, from)
	for _, pre := range render.Prerequisites(migrated, to) {
		if !slices.ContainsFunc(had, func(h api.Prerequisite) bool { return h.CRD == pre.CRD }) {
			out = append(out, pre)
		}
	}
	return out
}

// YourChanges lists, in the project in dir, the starter files you changed
// since opctl wrote them (or deleted), by their recorded hashes, and the
// files you added that opctl never wrote; caches, build output and hidden
// directories but .github and .devcontainer are left out.
func YourChanges(dir string, p scaffold.Project) (changed, added []string, err error) {
	for _, path := range slices.Sorted(maps.Keys(p.Starters)) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changed = append(changed, path+" (deleted)")
		case err != nil:
			return nil, nil, err
		case machinery.ContentHash(b) != p.Starters[path]:
			changed = append(changed, path)
		}
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(name, ".") && name != ".github" && name != ".devcontainer" ||
				slices.Contains([]string{"__pycache__", "bin", "node_modules", "venv"}, name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := p.Starters[rel]; ok || rel == scaffold.ProjectFileName || strings.HasSuffix(name, ".pyc") {
			return nil
		}
		if _, ok := p.Generated[rel]; !ok {
			added = append(added, rel)
		}
		return nil
	})
	return changed, added, err
}
