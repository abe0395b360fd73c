package api

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/version"

	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/objpath"
)

// APIEdit is a change to one kind of the project, as opctl edit api's
// flags give it.
type APIEdit struct {
	// Fields are new fields, or new definitions of the fields of the same
	// names (each replaces the old one where it stood).
	Fields []Field
	// RemoveFields names fields, or objects: an object goes with every
	// field below it.
	RemoveFields []string
	// StatusFields and RemoveStatusFields do the same for status fields.
	StatusFields       []Field
	RemoveStatusFields []string
	Owns               []string
	RemoveOwns         []string
	Rules              []Rule
	// RemoveRules are the expressions of spec rules to remove.
	RemoveRules []string
	// ShortNames and Categories, when not nil, replace the kind's.
	ShortNames, Categories *[]string
	// ScaleReplicas, when not nil, replaces the field the scale
	// subresource scales ("" for none).
	ScaleReplicas *string
	// RBAC are access rules to add, each replacing the kind's rule for the
	// same resource; RemoveRBAC names resources (RESOURCE[.GROUP][/SUB])
	// whose rules go.
	RBAC, RemoveRBAC []string
	// Renames are fields, objects or lists of objects the new version
	// (AddVersion) calls otherwise: only a new version may rename.
	Renames []Rename
}

// Empty reports whether the edit changes nothing.
func (e APIEdit) Empty() bool {
	return len(e.Fields)+len(e.RemoveFields)+len(e.StatusFields)+len(e.RemoveStatusFields)+len(e.Owns)+len(e.RemoveOwns)+len(e.Rules)+len(e.RemoveRules)+len(e.RBAC)+len(e.RemoveRBAC) == 0 &&
		e.ShortNames == nil && e.Categories == nil && e.ScaleReplicas == nil
}

// WithVersion is the kind with a new version v, the storage version and
// the one the code reads, its fields renamed by renames (given as src's
// "new-version" and "rename-field"); the kind's version stays served as it
// is. v must rank above every other version by Kubernetes' version
// priority (v2 above v1, v1 above v1beta1), so that clients prefer it.
func (a API) WithVersion(src input.Source, v string, renames []Rename) (API, error) {
	if err := naming.CheckVersion(v); err != nil {
		return a, input.Invalid(src, "new-version", v, "%v", err)
	}
	if v == a.Version || slices.ContainsFunc(a.Served, func(s ServedVersion) bool { return s.Name == v }) {
		return a, input.Invalid(src, "new-version", v, "%s has this version already", a.Kind)
	}
	if version.CompareKubeAwareVersionStrings(v, a.Version) < 0 {
		return a, input.Invalid(src, "new-version", v, "ranks below %s, %s's version (Kubernetes prefers GA, then beta, then alpha, then the higher number): a new version ranks above it, e.g. %s", a.Version, a.Kind, NextGA(a.Version))
	}
	old := a.versionOf()
	old.Renames = renames
	a.Served = append(slices.Clone(a.Served), old)
	a.Version = v
	return renameFields(src, a, renames)
}

// KeepingRemoved is the kind with its newest older version keeping the
// fields the current version lacks that have no default
// (ServedVersion.Removed): an object or list of objects the current
// version has nothing of is kept whole, once.
func (a API) KeepingRemoved() API {
	a.Served = slices.Clone(a.Served)
	v := &a.Served[len(a.Served)-1]
	// gone reports whether the current version has nothing at or below
	// the field named name of v.
	gone := func(name string) bool {
		for _, r := range v.Renames {
			name = r.Of(name)
		}
		return !slices.ContainsFunc(a.Fields, func(g Field) bool { return Below(g.Name, name) })
	}
	v.Removed = nil
	for _, f := range v.Fields {
		if f.Default != nil || !gone(f.Name) || slices.ContainsFunc(v.Removed, func(r string) bool { return Below(f.Name, r) }) {
			continue
		}
		name, path := f.Name, f.Path()
		for k := len(path) - 1; k > 0; k-- {
			if parent := strings.TrimSuffix(strings.Join(path[:k], "."), objpath.ListSuffix); gone(parent) {
				name = parent
			}
		}
		v.Removed = append(v.Removed, name)
	}
	return a
}

// renameFields gives a's spec fields their new names, each rename checked:
// it names a field, object or list of objects of a, and a new name under
// the same parent that no field has.
func renameFields(src input.Source, a API, renames []Rename) (API, error) {
	for i, r := range renames {
		flag := r.From + "=" + r.To
		for _, other := range renames[:i] {
			if other.Of(r.From) != r.From || r.Of(other.From) != other.From {
				return a, input.Invalid(src, "rename-field", flag, "it renames what --rename-field %s=%s renames: rename an object or the fields in it, not both", other.From, other.To)
			}
		}
		from, to := Field{Name: r.From}.Path(), Field{Name: r.To}.Path()
		switch {
		case r.From == r.To:
			return a, input.Invalid(src, "rename-field", flag, "the new name is the old one")
		case len(from) != len(to) || !slices.Equal(from[:len(from)-1], to[:len(to)-1]):
			return a, input.Invalid(src, "rename-field", flag, "a field keeps its parent: only the last part of its name changes (%s=%s)",
				r.From, strings.Join(append(from[:len(from)-1:len(from)-1], "NEW"), "."))
		case strings.HasSuffix(r.From, objpath.ListSuffix) || strings.HasSuffix(r.To, objpath.ListSuffix):
			return a, input.Invalid(src, "rename-field", flag, "a list of objects is named without %s", objpath.ListSuffix)
		}
		if !slices.ContainsFunc(a.Fields, func(f Field) bool { return r.Of(f.Name) != f.Name }) {
			return a, input.Invalid(src, "rename-field", flag, "%s has no such field, object or list of objects (fields: %s)", a.Kind, fieldNames(a.Fields))
		}
		for _, f := range a.Fields {
			if Below(f.Name, r.To) {
				return a, input.Invalid(src, "rename-field", flag, "%s has a field %s already", a.Kind, f.Name)
			}
		}
	}
	return a.Renamed(renames), nil
}

// NextGA is the GA version after v's major: v2 after v1 or v1beta1.
func NextGA(v string) string {
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), "alpha")
	major, _, _ = strings.Cut(major, "beta")
	n, err := strconv.Atoi(major)
	if err != nil || strings.ContainsAny(strings.TrimPrefix(v, "v"), "ab") {
		return "v" + major
	}
	return "v" + strconv.Itoa(n+1)
}

// Apply makes the edit's changes to a, removals first, so a field can be
// removed and defined again as an object (or the other way round).
func (e APIEdit) Apply(src input.Source, a API) (API, error) {
	a.Fields, a.Status, a.Owns, a.Rules = slices.Clone(a.Fields), slices.Clone(a.Status), slices.Clone(a.Owns), slices.Clone(a.Rules)
	for _, name := range e.RemoveFields {
		kept := slices.DeleteFunc(a.Fields, func(f Field) bool {
			return Below(f.Name, name)
		})
		if len(kept) == len(a.Fields) {
			return a, input.Invalid(src, "remove-field", name, "%s has no such field or object (fields: %s)", a.Kind, fieldNames(a.Fields))
		}
		a.Fields = kept
	}
	a.Fields = defineFields(a.Fields, e.Fields)
	for _, name := range e.RemoveStatusFields {
		kept := slices.DeleteFunc(a.Status, func(f Field) bool { return f.Name == name })
		if len(kept) == len(a.Status) {
			return a, input.Invalid(src, "remove-status-field", name, "%s has no such status field (status fields: %s)", a.Kind, fieldNames(a.Status))
		}
		a.Status = kept
	}
	a.Status = defineFields(a.Status, e.StatusFields)
	for _, kind := range e.RemoveOwns {
		j := slices.Index(a.Owns, kind)
		if j < 0 {
			return a, input.Invalid(src, "remove-owns", kind, "%s does not own this kind (it owns %s)", a.Kind, orNone(a.Owns))
		}
		a.Owns = slices.Delete(a.Owns, j, j+1)
	}
	for _, kind := range e.Owns {
		if slices.Contains(a.Owns, kind) {
			return a, input.Invalid(src, "owns", kind, "%s already owns this kind", a.Kind)
		}
		a.Owns = append(a.Owns, kind)
	}
	for _, expr := range e.RemoveRules {
		j := slices.IndexFunc(a.Rules, func(r Rule) bool { return r.Rule == strings.TrimSpace(expr) })
		if j < 0 {
			var rules []string
			for _, r := range a.Rules {
				rules = append(rules, r.Rule)
			}
			return a, input.Invalid(src, "remove-rule", expr, "%s has no spec rule with this expression (rules: %s)", a.Kind, orNone(rules))
		}
		a.Rules = slices.Delete(a.Rules, j, j+1)
	}
	for _, r := range e.Rules {
		if slices.ContainsFunc(a.Rules, func(old Rule) bool { return old.Rule == r.Rule }) {
			return a, input.Invalid(src, "rule", r.Rule, "%s already has this rule", a.Kind)
		}
		a.Rules = append(a.Rules, r)
	}
	if err := e.applyAccess(src, &a); err != nil {
		return a, err
	}
	if e.ShortNames != nil {
		a.ShortNames = *e.ShortNames
	}
	if e.Categories != nil {
		a.Categories = *e.Categories
	}
	if e.ScaleReplicas != nil {
		a.ScaleReplicas = *e.ScaleReplicas
	}
	return a, nil
}

// applyAccess removes, then adds or replaces, the kind's access rules.
func (e APIEdit) applyAccess(src input.Source, a *API) error {
	rules := a.AccessRules()
	index := func(t AccessRule) int {
		return slices.IndexFunc(rules, func(r AccessRule) bool { return r.target() == t.target() })
	}
	for _, s := range e.RemoveRBAC {
		t, err := parseAccessTarget(s)
		if err != nil {
			return input.Invalid(src, "remove-rbac", s, "%v", err)
		}
		j := index(t)
		if j < 0 {
			var targets []string
			for _, r := range rules {
				targets = append(targets, r.target())
			}
			return input.Invalid(src, "remove-rbac", s, "%s has no access rule for this resource (rules for: %s)", a.Kind, orNone(targets))
		}
		rules = slices.Delete(rules, j, j+1)
	}
	for _, s := range e.RBAC {
		r, err := parseAccessRule(s)
		if err != nil {
			return input.Invalid(src, "rbac", s, "%v", err)
		}
		if j := index(r); j >= 0 {
			rules[j] = r
		} else {
			rules = append(rules, r)
		}
	}
	a.RBAC = nil
	for _, r := range rules {
		a.RBAC = append(a.RBAC, r.String())
	}
	return nil
}

func fieldNames(fields []Field) string {
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	return orNone(names)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// defineFields adds each new field to fields, or puts it in place of the
// field of the same name.
func defineFields(fields, defined []Field) []Field {
	for _, f := range defined {
		if j := slices.IndexFunc(fields, func(old Field) bool { return old.Name == f.Name }); j >= 0 {
			fields[j] = f
		} else {
			fields = append(fields, f)
		}
	}
	return fields
}
