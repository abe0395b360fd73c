package apicompat

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/opctl/opctl/scaffold/api"
)

// NoneBreaks lists what keeps the API server from converting objects
// between two versions of a kind by changing their apiVersion alone (None
// conversion, the only kind every runtime can serve): it reads an object
// of one version as the other as it is, so the two schemas may differ only
// by fields with defaults, which the other version fills in or prunes. Each
// Break names the flag of edit api that made the difference.
func NoneBreaks(older, newer api.API) []Break {
	var breaks []Break
	for _, was := range older.Fields {
		i := slices.IndexFunc(newer.Fields, func(f api.Field) bool { return f.Name == was.Name })
		switch {
		case i < 0 && was.Default == nil:
			breaks = append(breaks, Break{"remove-field", was.Name, fmt.Sprintf("it has no default: objects of %s would lose it when read as %s", older.Version, newer.Version)})
		case i >= 0:
			if why := differs(older.Version, newer.Version, was, newer.Fields[i]); why != "" {
				breaks = append(breaks, Break{"field", was.Name, why})
			}
		}
	}
	for _, f := range newer.Fields {
		if f.Default == nil && !slices.ContainsFunc(older.Fields, func(o api.Field) bool { return o.Name == f.Name }) {
			breaks = append(breaks, Break{"field", f.Name, fmt.Sprintf("it is new and has no default: objects written as %s would lose it", older.Version)})
		}
	}
	for _, r := range newer.Rules {
		if !slices.Contains(older.Rules, r) {
			breaks = append(breaks, Break{"rule", r.Rule, fmt.Sprintf("%s lacks it: an object %s accepts, %s may refuse", older.Version, older.Version, newer.Version)})
		}
	}
	for _, r := range older.Rules {
		if !slices.Contains(newer.Rules, r) {
			breaks = append(breaks, Break{"remove-rule", r.Rule, fmt.Sprintf("%s lacks it: an object %s accepts, %s may refuse", newer.Version, newer.Version, older.Version)})
		}
	}
	if older.ScaleReplicas != newer.ScaleReplicas {
		breaks = append(breaks, Break{"scale-replicas", newer.ScaleReplicas, fmt.Sprintf("the scale subresource differs from %s's", older.Version)})
	}
	// A status field may come (the operator writes status in the new
	// version), not go or change: clients of the old one read it.
	return append(breaks, statusBreaks(older.Status, newer.Status)...)
}

// differs says how a field present in two versions differs in what it
// accepts or how it reads, "" if it does not: its description and printer
// column may differ.
func differs(older, newer string, was, is api.Field) string {
	if w := narrowings(was, is); len(w) > 0 {
		return fmt.Sprintf("from %s to %s %s", older, newer, w[0])
	}
	if w := narrowings(is, was); len(w) > 0 {
		return fmt.Sprintf("from %s back to %s %s", newer, older, w[0])
	}
	was.Description, is.Description, was.Column, is.Column = "", "", false, false
	if !reflect.DeepEqual(was, is) {
		return "its definition differs between the versions"
	}
	return ""
}
