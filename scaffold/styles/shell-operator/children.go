package shelloperator

import (
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
)

// jqLeaf is one spec field as a child template reads it: .spec.<path> in
// jq, null when the object does not set it.
type jqLeaf struct {
	api.Field
	// Value is the field's value (.spec.backup.schedule); Text the value as
	// the children hold it (render.FieldText), null when it is not set.
	Value, Text string
}

// Key is the field's name as a key of a jq object.
func (l jqLeaf) Key() string { return `"` + l.Name + `"` }

// Get is the field's value, else otherwise (a jq expression).
func (l jqLeaf) Get(otherwise string) string { return "(" + l.Value + " // " + otherwise + ")" }

// jqChild is an owned kind's template: a user-owned jq module under
// hooks/lib, which shell-operator never runs as a hook, defining one function.
type jqChild struct {
	api.ChildKind
	// Module is the template's module (lib/databases/configmap), Func its
	// function (configmap).
	Module, Func string
	// Scaled: the owner's HorizontalPodAutoscaler sets its replicas.
	Scaled bool
	// Target is the workload an autoscaler scales.
	Target api.ChildKind
}

// jqKeywords are jq's keywords: a field so named is read as .["name"].
var jqKeywords = []string{"__loc__", "and", "as", "catch", "def", "elif", "else", "end", "foreach", "if", "import",
	"include", "label", "not", "or", "reduce", "then", "try"}

// jqPath is a path in spec as jq reads it.
func jqPath(path []string) string {
	out := ".spec"
	for _, seg := range path {
		out += jqKey(seg)
	}
	return out
}

// jqKey reads the key of an object as jq does: .name, or .["name"] for a
// keyword.
func jqKey(key string) string {
	if slices.Contains(jqKeywords, key) {
		return `["` + key + `"]`
	}
	return "." + key
}

// jqTemplated is what a kind's child templates read.
type jqTemplated struct {
	Leaves    []jqLeaf
	EnvLeaves []jqLeaf
	Conv      api.ConventionsOf[jqLeaf]
	Children  []jqChild
	// Workloads: the kind owns a kind that runs pods (its templates
	// include pod.jq).
	Workloads bool
	// StatusModule is the module of the kind's own status fields
	// (lib/databases/status), "" when it has none.
	StatusModule string
	// ScaleReplicas is the spec field the scale subresource scales.
	ScaleReplicas string
}

func newJQTemplated(a api.API) jqTemplated {
	var t jqTemplated
	for _, f := range a.Values() {
		l := jqLeaf{Field: f, Value: jqPath(f.Path())}
		l.Text = l.Value
		if f.Type.Text() != api.TextString {
			l.Text = "(" + l.Value + " | text)"
		}
		t.Leaves = append(t.Leaves, l)
	}
	t.Conv, t.EnvLeaves = api.ConventionLeaves(a, t.Leaves, func(l jqLeaf) string { return l.Name })
	if len(a.Status) > 0 {
		t.StatusModule = "lib/" + a.Plural + "/status"
	}
	t.ScaleReplicas = a.ScaleReplicas
	for _, ck := range a.OwnedKinds() {
		child := jqChild{ChildKind: ck, Module: "lib/" + a.Plural + "/" + ck.Suffix(), Func: ck.Suffix(), Scaled: ck.Kind == a.ScaledKind()}
		if ck.Kind == "HorizontalPodAutoscaler" {
			child.Target, _ = api.LookupChildKind(a.ScaledKind())
		}
		t.Children = append(t.Children, child)
		t.Workloads = t.Workloads || ck.Workload
	}
	return t
}

// Program is the jq the kind's hook hands lib/reconcile.jq: it includes the
// kind's templates, names the children they make of a resource and the
// kind's own status fields.
func (t jqTemplated) Program() string {
	var b strings.Builder
	var calls []string
	for _, c := range t.Children {
		b.WriteString(`include "` + c.Module + `"; `)
		calls = append(calls, c.Func)
	}
	own := "{}"
	if t.StatusModule != "" {
		// jq takes includes only before definitions.
		b.WriteString(`include "` + t.StatusModule + `"; `)
		own = "status"
	}
	if f := t.ScaleReplicas; f != "" {
		// The scale subresource's: the replicas the spec asks for and the
		// selector of the pods.
		b.WriteString(`include "lib/children"; `)
		own += ` + {"` + f + `": (.spec["` + f + `"] // 1), "` + api.ScaleSelector +
			`": (selector_labels | to_entries | sort_by(.key) | map(.key + "=" + .value) | join(","))}`
	}
	if calls == nil {
		calls = []string{"empty"}
	}
	b.WriteString("def children: " + strings.Join(calls, ", ") + "; def own_status: " + own + ";")
	return b.String()
}

// DataEntries are the entries of a jq object holding each field's text
// under its name, commas between them.
func (t jqTemplated) DataEntries() []string {
	var data []jqLeaf
	for _, l := range t.Leaves {
		if l.InData() {
			data = append(data, l)
		}
	}
	return jqEntries(data, func(l jqLeaf) string { return l.Key() })
}

// EnvEntries are the entries of a jq object holding each SPEC_ variable's
// value, commas between them.
func (t jqTemplated) EnvEntries() []string {
	return jqEntries(t.EnvLeaves, func(l jqLeaf) string { return l.EnvName() })
}

func jqEntries(leaves []jqLeaf, key func(jqLeaf) string) []string {
	var out []string
	for i, l := range leaves {
		entry := key(l) + ": " + l.Text
		if i < len(leaves)-1 {
			entry += ","
		}
		out = append(out, entry)
	}
	return out
}
