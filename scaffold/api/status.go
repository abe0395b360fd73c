package api

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/opctl/opctl/scaffold/naming"
)

// StatusStarter says what the starter status code of every style reports,
// so that every style writes the same and conformance cases can expect it:
// an unconstrained string status field gets the name of the kind's first
// child (the object's own name when it owns none); the other status fields
// are left to the user's code, which the starter's comment names.
type StatusStarter struct {
	// Set are the fields the starter sets, Unset the others.
	Set, Unset []Field
	// Child is the kind of the child whose name Set fields hold ("" for the
	// object's own name), Suffix what that name adds to the object's name
	// ("-configmap").
	Child, Suffix string
}

// ScaleSelector is the status field the scale subresource reads the
// kind's pods' label selector from.
const ScaleSelector = "selector"

// StatusFields are the kind's status fields beyond observedGeneration and
// conditions: its own, then those of its scale subresource (the replicas
// and the selector), which every style writes itself.
func (a API) StatusFields() []Field {
	out := slices.Clone(a.Status)
	if a.ScaleReplicas != "" {
		out = append(out, Field{Name: a.ScaleReplicas, Type: TypeInt32, Description: naming.UpperFirst(a.ScaleReplicas) + " is the replicas the scale subresource reports: the spec's."},
			Field{Name: ScaleSelector, Type: TypeString, Description: "Selector is the label selector of the pods, for the scale subresource."})
	}
	return out
}

// ScaleStatus is the status of the scale subresource of an object named
// name with spec: its spec's replicas (1 where it sets none, the
// workloads' own default) and the selector of the labels its workloads
// select their pods by; nil for a kind without one.
func (a API) ScaleStatus(project, name string, spec map[string]any) map[string]any {
	if a.ScaleReplicas == "" {
		return nil
	}
	replicas, ok := spec[a.ScaleReplicas]
	if !ok || replicas == nil {
		replicas = int64(1)
	}
	return map[string]any{a.ScaleReplicas: replicas, ScaleSelector: labels.SelectorFromSet(a.SelectorLabels(project, name)).String()}
}

// SelectorLabels are the labels by which the workloads of the object name
// select their pods, and its children carry.
func (a API) SelectorLabels(project, name string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": a.Singular(), "app.kubernetes.io/instance": name, "app.kubernetes.io/managed-by": project}
}

// StatusStarter is what the starter status code of the kind reports.
func (a API) StatusStarter() StatusStarter {
	var s StatusStarter
	if owned := a.OwnedKinds(); len(owned) > 0 {
		s.Child, s.Suffix = owned[0].Kind, "-"+owned[0].Suffix()
	}
	for _, f := range a.Status {
		if f.Type == TypeString && f.Enum == nil && f.Pattern == "" && f.MinLength == nil && f.MaxLength == nil {
			s.Set = append(s.Set, f)
		} else {
			s.Unset = append(s.Unset, f)
		}
	}
	return s
}

// Status is the status the starter reports for the object named name.
func (s StatusStarter) Status(name string) map[string]any {
	out := map[string]any{}
	for _, f := range s.Set {
		out[f.Name] = name + s.Suffix
	}
	return out
}
