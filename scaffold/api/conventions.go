package api

import (
	"slices"
	"strings"
)

// ConventionsOf are the fields of a kind the starter children read by name
// and type, as T (a style's expression of a field); each is nil when the
// kind has no such field.
type ConventionsOf[T any] struct {
	Image, Port, Replicas, MinReplicas, MaxReplicas, Host, Schedule *T
	Env, Requests, Limits                                           *T
	// Kubernetes' own types, as their pod spec holds them: the container's
	// resources and environment (EnvVars), the pod's tolerations,
	// affinity and node selector.
	Resources, EnvVars, Tolerations, Affinity, NodeSelector *T
}

// ConventionLeaves are the kind's conventions and its EnvFields as leaves,
// a style's expressions of its fields: each the one of leaves that name
// gives the field's name.
func ConventionLeaves[T any](a API, leaves []T, name func(T) string) (ConventionsOf[T], []T) {
	leaf := func(f *Field) *T {
		if f == nil {
			return nil
		}
		return &leaves[slices.IndexFunc(leaves, func(l T) bool { return name(l) == f.Name })]
	}
	c := a.Conventions()
	conv := ConventionsOf[T]{
		Image: leaf(c.Image), Port: leaf(c.Port), Replicas: leaf(c.Replicas), MinReplicas: leaf(c.MinReplicas),
		MaxReplicas: leaf(c.MaxReplicas), Host: leaf(c.Host), Schedule: leaf(c.Schedule),
		Env: leaf(c.Env), Requests: leaf(c.Requests), Limits: leaf(c.Limits),
		Resources: leaf(c.Resources), EnvVars: leaf(c.EnvVars), Tolerations: leaf(c.Tolerations),
		Affinity: leaf(c.Affinity), NodeSelector: leaf(c.NodeSelector),
	}
	var env []T
	for _, f := range a.EnvFields() {
		env = append(env, *leaf(&f))
	}
	return conv, env
}

// Conventions finds the kind's conventional fields.
func (a API) Conventions() ConventionsOf[Field] {
	find := func(name string, types ...FieldType) *Field {
		i := slices.IndexFunc(a.Fields, func(f Field) bool { return f.Name == name && slices.Contains(types, f.Type) })
		if i < 0 {
			return nil
		}
		return &a.Fields[i]
	}
	integer := []FieldType{TypeInt32, TypeInt64}
	return ConventionsOf[Field]{
		Image: find("image", TypeString), Port: find("port", integer...),
		Replicas: find("replicas", integer...), MinReplicas: find("minReplicas", integer...), MaxReplicas: find("maxReplicas", integer...),
		Host: find("host", TypeString), Schedule: find("schedule", TypeString),
		Env: find("env", TypeStringMap), Requests: find("resources.requests", TypeStringMap), Limits: find("resources.limits", TypeStringMap),
		Resources: find("resources", "core/v1.ResourceRequirements"), EnvVars: find("env", "[]core/v1.EnvVar"),
		Tolerations: find("tolerations", "[]core/v1.Toleration"), Affinity: find("affinity", "core/v1.Affinity"),
		NodeSelector: find("nodeSelector", TypeStringMap),
	}
}

// EnvFields are the values the workloads get as SPEC_ variables: every
// value (a list of objects whole) in the data (InData) but the container's
// own image, environment and resources.
func (a API) EnvFields() []Field {
	c := a.Conventions()
	own := map[string]bool{}
	for _, f := range []*Field{c.Image, c.Env, c.Requests, c.Limits, c.NodeSelector} {
		if f != nil {
			own[f.Name] = true
		}
	}
	var out []Field
	for _, f := range a.Values() {
		if !own[f.Name] && f.InData() {
			out = append(out, f)
		}
	}
	return out
}

// EnvName is the SPEC_ variable of a field: backup.schedule is
// SPEC_BACKUP_SCHEDULE.
func (f Field) EnvName() string {
	return "SPEC_" + strings.ToUpper(strings.ReplaceAll(f.Name, ".", "_"))
}

// PodValue is a spec value a workload's pod spec takes whole, under Key.
type PodValue[T any] struct {
	Key  string
	Leaf *T
}

// PodValues are the conventions the pod spec takes whole, those the kind
// has, in a fixed order.
func (c ConventionsOf[T]) PodValues() []PodValue[T] {
	var out []PodValue[T]
	for _, v := range []PodValue[T]{{"tolerations", c.Tolerations}, {"affinity", c.Affinity}, {"nodeSelector", c.NodeSelector}} {
		if v.Leaf != nil {
			out = append(out, v)
		}
	}
	return out
}
