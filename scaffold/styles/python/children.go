package python

import (
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
)

// Leaf is one spec field as a child builder reads it, written out in
// Python for the fields the kind has.
type Leaf struct {
	api.Field
	// In is the dict holding the field (spec, or spec_backup for a field
	// of the object backup); Key its key there.
	In, Key string
	// Value is the field's value (spec["replicas"]); Text the value as the
	// children hold it (render.FieldText).
	Value, Text string
}

// Guard is the condition under which the object sets the field.
func (l Leaf) Guard() string { return `"` + l.Key + `" in ` + l.In }

// entryGuard is the guard of the field's entry in a Dict: none for a
// required field outside optional objects, which goes in its literal.
func (l Leaf) entryGuard() string {
	if l.Required && l.In == "spec" {
		return ""
	}
	return l.Guard()
}

// Get is the field's value, else otherwise (a Python expression).
func (l Leaf) Get(otherwise string) string {
	return l.In + `.get("` + l.Key + `", ` + otherwise + `)`
}

// Object is a nested object's dict variable and how it is read.
type Object struct {
	Var, From string
}

// Child is an owned kind's builder: a user-owned module of the package
// with one function.
type Child struct {
	api.ChildKind
	// Module is the builder's module (database_configmap), Func its
	// function (config_map).
	Module, Func string
	// Scaled: the owner's HorizontalPodAutoscaler sets its replicas.
	Scaled bool
	// Target is the workload an autoscaler scales.
	Target api.ChildKind
}

// Snake is a kind in snake_case: ConfigMap is config_map.
func Snake(kind string) string {
	var b strings.Builder
	for i, r := range kind {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pythonReserved are names a kind's variable must not take in its
// builders: Python's keywords and the names the builders use.
var pythonReserved = []string{
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
	"elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
	"spec", "data", "env", "text", "container", "template", "resources", "rule", "minimum", "maximum", "name",
	"value", "command", "labels", "base64", "json", "CHILD_IMAGE", "pod_template",
}

// Var is the name of a kind's object in its builders: the kind in
// snake_case (database), unless that name is taken.
func Var(kind string) string {
	v := Snake(kind)
	if slices.Contains(pythonReserved, v) {
		return v + "_obj"
	}
	return v
}

// builder is what a kind's builders read: its fields, the nested objects
// holding them and its conventions.
type builder struct {
	Var     string
	Leaves  []Leaf
	Objects []Object
	// DataText is the ConfigMap's and Secret's data, EnvText the workloads'
	// SPEC_ variables (the pyDict partial).
	DataText, EnvText Dict
	Conv              api.ConventionsOf[Leaf]
	Children          []Child
	// Workloads: the kind owns a kind that runs pods.
	Workloads bool
}

func newBuilder(a api.API) builder {
	b := builder{Var: Var(a.Kind)}
	seen := map[string]bool{}
	for _, f := range a.Values() {
		path := f.Path()
		in := "spec"
		for _, seg := range path[:len(path)-1] {
			next := in + "_" + Snake(seg)
			// The objects of values the builders read: those in the data
			// (conventions are top-level fields).
			if !seen[next] && f.InData() {
				seen[next] = true
				b.Objects = append(b.Objects, Object{Var: next, From: in + `.get("` + seg + `", {})`})
			}
			in = next
		}
		key := path[len(path)-1]
		l := Leaf{Field: f, In: in, Key: key, Value: in + `["` + key + `"]`}
		l.Text = l.Value
		if f.Type.Text() != api.TextString {
			l.Text = "text(" + l.Value + ")"
		}
		b.Leaves = append(b.Leaves, l)
	}
	var envLeaves []Leaf
	b.Conv, envLeaves = api.ConventionLeaves(a, b.Leaves, func(l Leaf) string { return l.Name })
	b.DataText = Dict{Var: "data"}
	for _, l := range b.Leaves {
		if !l.InData() {
			continue
		}
		b.DataText.Entries = append(b.DataText.Entries, Entry{Key: l.Name, Guard: l.entryGuard(), Text: l.Text})
	}
	b.EnvText = Dict{Var: "env"}
	for _, l := range envLeaves {
		b.EnvText.Entries = append(b.EnvText.Entries, Entry{Key: l.EnvName(), Guard: l.entryGuard(), Text: l.Text})
	}
	for _, ck := range a.OwnedKinds() {
		child := Child{ChildKind: ck, Module: a.Singular() + "_" + ck.Suffix(), Func: Snake(ck.Kind), Scaled: ck.Kind == a.ScaledKind()}
		if ck.Kind == "HorizontalPodAutoscaler" {
			child.Target, _ = api.LookupChildKind(a.ScaledKind())
		}
		b.Children = append(b.Children, child)
		b.Workloads = b.Workloads || ck.Workload
	}
	return b
}

// ChildData is the template data of one child builder: its kind's and its
// own.
type ChildData struct {
	API
	Child Child
}

// Dict is a dict variable a builder declares, and its entries (the pyDict
// partial).
type Dict struct {
	Var     string
	Entries []Entry
}

// Entry is one key of a Dict, set when Guard holds.
type Entry struct {
	Key, Guard, Text string
}

// UsesText reports whether an entry's value goes through text().
func (d Dict) UsesText() bool {
	return slices.ContainsFunc(d.Entries, func(e Entry) bool { return strings.HasPrefix(e.Text, "text(") })
}
