// Package apicompat tells which changes to a kind would break its served
// version, by the Kubernetes API change rules: a version keeps accepting
// every object it accepted, and keeps reading stored objects as it did.
// What it may do is widen: add optional fields, relax bounds and enums,
// drop rules.
//
// It compares the models, not the CRDs built from them, because the model
// says what was meant: a new optional immutable field adds a rule on the
// spec object that narrows nothing already accepted, which a schema diff
// could not tell from a new rule across fields.
package apicompat

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/objpath"
)

// Break is one breaking change: the flag that made it (Key, as edit api
// names it), the field or rule it concerns and why it breaks.
type Break struct {
	Key, Value, Why string
}

// prerelease matches alpha and beta versions, which may break.
var prerelease = regexp.MustCompile(`^v[1-9][0-9]*(alpha|beta)[1-9][0-9]*$`)

// Prerelease reports whether version is an alpha or beta version, whose
// users accept that it may change incompatibly.
func Prerelease(version string) bool { return prerelease.MatchString(version) }

// Check lists what changing the kind from old to new breaks, field by
// field in old's order, then new fields, then spec rules.
func Check(old, new api.API) []Break {
	var breaks []Break
	objects := objectPaths(old.Fields)
	for _, was := range old.Fields {
		i := slices.IndexFunc(new.Fields, func(f api.Field) bool { return f.Name == was.Name })
		if i < 0 {
			if slices.ContainsFunc(new.Fields, func(f api.Field) bool { return strings.HasPrefix(f.Name, was.Name+".") }) {
				breaks = append(breaks, Break{"field", was.Name, "it changes from " + string(was.Type) + " to an object: values stored in it no longer fit"})
				continue
			}
			breaks = append(breaks, Break{"remove-field", was.Name, "removing a field drops what objects already stored hold in it"})
			continue
		}
		for _, why := range narrowings(was, new.Fields[i]) {
			breaks = append(breaks, Break{"field", was.Name, why})
		}
	}
	for _, f := range new.Fields {
		if slices.ContainsFunc(old.Fields, func(o api.Field) bool { return o.Name == f.Name }) {
			continue
		}
		if objects[parent(f.Name)] && f.Required && f.Default == nil {
			breaks = append(breaks, Break{"field", f.Name, "a new required field without a default: objects already stored lack it"})
		}
	}
	for _, r := range new.Rules {
		if !slices.ContainsFunc(old.Rules, func(o api.Rule) bool { return o.Rule == r.Rule }) {
			breaks = append(breaks, Break{"rule", r.Rule, "a new rule may refuse objects the version accepted"})
		}
	}
	breaks = append(breaks, listKeyBreaks(old.Fields, new.Fields)...)
	if old.ScaleReplicas != "" && new.ScaleReplicas != old.ScaleReplicas {
		breaks = append(breaks, Break{"scale-replicas", old.ScaleReplicas, "the scale subresource changes or goes: what scales the kind (an autoscaler, kubectl scale) would fail or scale another field"})
	}
	return append(breaks, statusBreaks(old.Status, new.Status)...)
}

// listKeyBreaks are the lists of objects whose keys change: server-side
// Apply would merge the objects stored in them by other fields (or, a list
// becoming atomic or keyed, replace or merge them).
func listKeyBreaks(old, new []api.Field) []Break {
	var breaks []Break
	newLists := objectPaths(new)
	for _, list := range slices.Sorted(maps.Keys(objectPaths(old))) {
		if !strings.HasSuffix(list, objpath.ListSuffix) || !newLists[list] {
			continue
		}
		was, is := api.ListKeys(below(old, list)), api.ListKeys(below(new, list))
		if !slices.Equal(was, is) {
			breaks = append(breaks, Break{"field", strings.TrimSuffix(list, objpath.ListSuffix),
				fmt.Sprintf("its objects' keys change from %s to %s: server-side apply would merge the objects already stored by other fields", keysText(was), keysText(is))})
		}
	}
	return breaks
}

// below are the fields under the object or list path, named relative to it.
func below(fields []api.Field, path string) []api.Field {
	var out []api.Field
	for _, f := range fields {
		if rest, ok := strings.CutPrefix(f.Name, path+"."); ok {
			f.Name = rest
			out = append(out, f)
		}
	}
	return out
}

func keysText(keys []string) string {
	if keys == nil {
		return "none (replaced whole)"
	}
	return strings.Join(keys, ", ")
}

// statusBreaks are the changes to status fields that break the clients
// reading them: a field they read goes, or holds another type. The
// operator alone writes status, so tightening a bound refuses no user's
// object (and the API server's ratcheting keeps stored values).
func statusBreaks(old, new []api.Field) []Break {
	var breaks []Break
	for _, was := range old {
		i := slices.IndexFunc(new, func(f api.Field) bool { return f.Name == was.Name })
		switch {
		case i < 0:
			breaks = append(breaks, Break{"remove-status-field", was.Name, "removing a status field breaks the clients that read it"})
		case new[i].Type != was.Type:
			breaks = append(breaks, Break{"status-field", was.Name, fmt.Sprintf("its type changes from %s to %s: the clients that read it would fail", was.Type, new[i].Type)})
		}
	}
	return breaks
}

// narrowings are the ways the new definition of a field accepts less, or
// reads stored objects differently, than the old one.
func narrowings(was, is api.Field) []string {
	if was.Type != is.Type {
		return []string{fmt.Sprintf("its type changes from %s to %s: values stored in it no longer fit", was.Type, is.Type)}
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if is.Required && !was.Required && is.Default == nil {
		add("it becomes required without a default: objects already stored may lack it")
	}
	switch {
	case was.Default != nil && is.Default == nil:
		add("its default %q goes: objects stored without the field would read back without it", *was.Default)
	case was.Default == nil && is.Default != nil:
		add("it gets the default %q: objects stored without the field would read back with it", *is.Default)
	case was.Default != nil && *was.Default != *is.Default:
		add("its default changes from %q to %q: objects stored without the field would read back differently", *was.Default, *is.Default)
	}
	if len(is.Enum) > 0 {
		if len(was.Enum) == 0 {
			add("it gets an enum: values already accepted outside it would be refused")
		} else if gone := missing(was.Enum, is.Enum); len(gone) > 0 {
			add("its enum loses %s: objects holding it would be refused", strings.Join(gone, ", "))
		}
	}
	bounds := []struct {
		name     string
		was, is  *int64
		stricter func(was, is int64) bool
	}{
		{"min", was.Min, is.Min, func(w, i int64) bool { return i > w }},
		{"max", was.Max, is.Max, func(w, i int64) bool { return i < w }},
		{"minLength", was.MinLength, is.MinLength, func(w, i int64) bool { return i > w }},
		{"maxLength", was.MaxLength, is.MaxLength, func(w, i int64) bool { return i < w }},
		{"minItems", was.MinItems, is.MinItems, func(w, i int64) bool { return i > w }},
		{"maxItems", was.MaxItems, is.MaxItems, func(w, i int64) bool { return i < w }},
		{"minProperties", was.MinProperties, is.MinProperties, func(w, i int64) bool { return i > w }},
		{"maxProperties", was.MaxProperties, is.MaxProperties, func(w, i int64) bool { return i < w }},
	}
	for _, b := range bounds {
		switch {
		case b.is == nil:
		case b.was == nil:
			add("it gets %s=%d: values already accepted beyond it would be refused", b.name, *b.is)
		case b.stricter(*b.was, *b.is):
			add("its %s goes from %d to %d: values already accepted between them would be refused", b.name, *b.was, *b.is)
		}
	}
	if is.Pattern != "" && is.Pattern != was.Pattern {
		add("its pattern changes: values the old one accepted may not match")
	}
	if is.Format != "" && is.Format != was.Format {
		add("its format changes to %s: values the old one accepted may not be", is.Format)
	}
	if is.ListType != was.ListType || !slices.Equal(is.MapKeys, was.MapKeys) {
		add("its list type changes: server-side apply would merge the lists already stored otherwise (and a set refuses repeated items)")
	}
	for _, r := range is.ItemRules {
		if !slices.ContainsFunc(was.ItemRules, func(o api.Rule) bool { return o.Rule == r.Rule }) {
			add("its items get the rule %q: values already accepted may be refused", r.Rule)
		}
	}
	if is.Immutable && !was.Immutable {
		add("it becomes immutable: updates that change it would be refused")
	}
	for _, r := range is.Rules {
		if !slices.ContainsFunc(was.Rules, func(o api.Rule) bool { return o.Rule == r.Rule }) {
			add("it gets the rule %q: values already accepted may be refused", r.Rule)
		}
	}
	return out
}

// missing lists the values of was that is lacks.
func missing(was, is []string) []string {
	var out []string
	for _, v := range was {
		if !slices.Contains(is, v) {
			out = append(out, v)
		}
	}
	return out
}

// objectPaths are the objects fields sit in: "" (the spec) and each dotted
// prefix of a field's name.
func objectPaths(fields []api.Field) map[string]bool {
	out := map[string]bool{"": true}
	for _, f := range fields {
		for p := parent(f.Name); p != ""; p = parent(p) {
			out[p] = true
		}
	}
	return out
}

// parent is the object a dotted name sits in ("" for the spec).
func parent(name string) string {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return ""
	}
	return name[:i]
}
