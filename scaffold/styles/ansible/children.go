package ansible

import (
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
)

// jinjaLeaf is one spec field as a child template reads it: spec.<path>
// in Jinja2.
type jinjaLeaf struct {
	api.Field
	// Value is the field's value (spec.backup.schedule); Text the value as
	// the children hold it (render.FieldText), before to_json or
	// b64encode.
	Value, Text string
	// Always: every object sets it (a required field outside objects).
	Always bool
}

// Guard is the Jinja2 test that the object sets the field.
func (l jinjaLeaf) Guard() string { return l.Value + " is defined" }

// Get is the field's value, else otherwise (a Jinja2 expression).
func (l jinjaLeaf) Get(otherwise string) string { return l.Value + " | default(" + otherwise + ")" }

// ansibleChild is an owned kind's template: a user-owned file of the
// kind's role.
type ansibleChild struct {
	api.ChildKind
	// Template is the file under the role's templates/ (configmap.yaml.j2).
	Template string
	// CreateOnce: the child's spec cannot change once created (a Job).
	CreateOnce bool
	// Scaled: the owner's HorizontalPodAutoscaler sets its replicas.
	Scaled bool
	// Target is the workload an autoscaler scales.
	Target api.ChildKind
}

// dictAttributes are names Jinja2 resolves to a dict's own attributes
// before its keys: a field so named is read as spec['name'].
var dictAttributes = []string{"clear", "copy", "fromkeys", "get", "items", "keys", "pop", "popitem", "setdefault",
	"update", "values"}

// jinjaPath is a path in spec as Jinja2 reads it.
func jinjaPath(path []string) string {
	out := "spec"
	for _, seg := range path {
		if slices.Contains(dictAttributes, seg) {
			out += "['" + seg + "']"
		} else {
			out += "." + seg
		}
	}
	return out
}

// templated is what a kind's child templates read.
type templated struct {
	Leaves    []jinjaLeaf
	EnvLeaves []jinjaLeaf
	// DataLeaves are the leaves a data child holds (api.Field.InData).
	DataLeaves []jinjaLeaf
	Conv       api.ConventionsOf[jinjaLeaf]
	Children   []ansibleChild
	// Workloads: the kind owns a kind that runs pods (its templates
	// include pod.yaml.j2); Resources are the container's requests and
	// limits.
	Workloads bool
	Resources []jinjaResources
}

// jinjaResources is a section of the container's resources (requests,
// limits) and the field that holds it.
type jinjaResources struct {
	Section string
	*jinjaLeaf
}

func newTemplated(a api.API) templated {
	var t templated
	for _, f := range a.Values() {
		l := jinjaLeaf{Field: f, Value: jinjaPath(f.Path()), Always: f.Required && !strings.Contains(f.Name, ".")}
		switch f.Type.Text() {
		case api.TextString:
			l.Text = l.Value
		case api.TextBool:
			l.Text = l.Value + " | to_json"
		case api.TextInteger, api.TextIntOrString:
			l.Text = l.Value + " | string"
		default: // lists and maps: compact JSON, keys sorted, UTF-8 as it is
			l.Text = l.Value + " | to_json(separators=(',', ':'), ensure_ascii=False, sort_keys=True)"
		}
		t.Leaves = append(t.Leaves, l)
		if f.InData() {
			t.DataLeaves = append(t.DataLeaves, l)
		}
	}
	t.Conv, t.EnvLeaves = api.ConventionLeaves(a, t.Leaves, func(l jinjaLeaf) string { return l.Name })
	for _, r := range []jinjaResources{{"requests", t.Conv.Requests}, {"limits", t.Conv.Limits}} {
		if r.jinjaLeaf != nil {
			t.Resources = append(t.Resources, r)
		}
	}
	for _, ck := range a.OwnedKinds() {
		child := ansibleChild{ChildKind: ck, Template: ck.Suffix() + ".yaml.j2", CreateOnce: !ck.Mutable, Scaled: ck.Kind == a.ScaledKind()}
		if ck.Kind == "HorizontalPodAutoscaler" {
			child.Target, _ = api.LookupChildKind(a.ScaledKind())
		}
		t.Children = append(t.Children, child)
		t.Workloads = t.Workloads || ck.Workload
	}
	return t
}

// CreatedOnce are the kind's templates of children created once.
func (t templated) CreatedOnce() []ansibleChild {
	return slices.DeleteFunc(slices.Clone(t.Children), func(c ansibleChild) bool { return !c.CreateOnce })
}
