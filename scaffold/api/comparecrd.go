package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Difference is one way the CRD opctl writes for a kind taken from a CRD
// differs from that CRD: where, the two values (compact JSON), and why
// opctl writes its own; Reason is "" for a difference opctl should not
// make (a field's type, validation, default, list type or required-ness).
type Difference struct {
	Path   string `json:"path"`
	Was    string `json:"was"`
	Now    string `json:"now"`
	Reason string `json:"reason,omitempty"`
}

// Unexplained reports whether the difference is one opctl should not make.
func (d Difference) Unexplained() bool { return d.Reason == "" }

func (d Difference) String() string {
	reason := d.Reason
	if reason == "" {
		reason = "unexplained"
	}
	return fmt.Sprintf("%s: %s -> %s (%s)", d.Path, clip(d.Was), clip(d.Now), reason)
}

// The reasons of the differences opctl makes on purpose.
const (
	reasonDescription = "descriptions: opctl writes its own for the object, its spec and status, and Kubernetes' types carry the pinned k8s.io/api's"
	reasonStatus      = "status: opctl's operators write observedGeneration and Ready conditions (metav1.Condition) themselves"
	reasonColumns     = "printer columns: opctl shows Ready, Age and the spec fields marked column"
	reasonVersions    = "one version is taken: older ones come back with edit api --new-version"
	reasonSubresource = "subresources: opctl's kinds have status, and scale on a top-level spec field"
	reasonRoot        = "the object's own properties (apiVersion, kind, metadata) are opctl's"
	reasonStatusReq   = "status.required: opctl's starters write status before the team's code sets such fields"
)

// CompareCRD lists the differences between a CRD (version: the one a
// kind was taken from, "" for its storage version) and the CRD opctl
// writes for the kind, in the order of their paths.
func CompareCRD(orig, ours *apiextensionsv1.CustomResourceDefinition, version string) []Difference {
	var out []Difference
	add := func(path string, was, now any, reason string) {
		out = append(out, Difference{Path: path, Was: compactJSON(was), Now: compactJSON(now), Reason: reason})
	}
	if orig.Spec.Group != ours.Spec.Group || orig.Spec.Scope != ours.Spec.Scope || !reflect.DeepEqual(orig.Spec.Names, ours.Spec.Names) {
		add("names", []any{orig.Spec.Group, orig.Spec.Scope, orig.Spec.Names}, []any{ours.Spec.Group, ours.Spec.Scope, ours.Spec.Names}, "")
	}
	v, err := crdVersionOf(orig, version)
	if err != nil {
		return []Difference{{Path: "versions", Was: version, Reason: ""}}
	}
	for _, other := range orig.Spec.Versions {
		if other.Name != v.Name {
			add("versions."+other.Name, other.Name, nil, reasonVersions)
		}
	}
	w, err := crdVersionOf(ours, v.Name)
	if err != nil {
		return append(out, Difference{Path: "versions." + v.Name, Was: v.Name})
	}
	if !reflect.DeepEqual(normalJSON(v.Subresources), normalJSON(w.Subresources)) {
		add("subresources", v.Subresources, w.Subresources, reasonSubresource)
	}
	if !reflect.DeepEqual(normalJSON(v.AdditionalPrinterColumns), normalJSON(w.AdditionalPrinterColumns)) {
		add("additionalPrinterColumns", v.AdditionalPrinterColumns, w.AdditionalPrinterColumns, reasonColumns)
	}
	diffJSON("schema", normalJSON(v.Schema.OpenAPIV3Schema), normalJSON(w.Schema.OpenAPIV3Schema), func(path string, was, now any) {
		add(path, was, now, reasonOf(path))
	})
	slices.SortStableFunc(out, func(a, b Difference) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// reasonOf is why opctl writes its own value at a path of the schema, ""
// where it should not.
func reasonOf(path string) string {
	switch {
	case strings.HasSuffix(path, ".description") || path == "schema.description":
		return reasonDescription
	case path == "schema.properties.status.required":
		return reasonStatusReq
	case strings.HasPrefix(path, "schema.properties.apiVersion"), strings.HasPrefix(path, "schema.properties.kind"), strings.HasPrefix(path, "schema.properties.metadata"):
		return reasonRoot
	}
	for _, own := range append(slices.Clone(statusOwnFields), ScaleSelector) {
		if p := "schema.properties.status.properties." + own; path == p || strings.HasPrefix(path, p+".") {
			return reasonStatus
		}
	}
	return ""
}

// diffJSON calls differ for each path where two JSON values differ: keys
// of objects one by one, anything else whole.
func diffJSON(path string, a, b any, differ func(path string, a, b any)) {
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if !aObj || !bObj {
		if !reflect.DeepEqual(a, b) {
			differ(path, a, b)
		}
		return
	}
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		diffJSON(path+"."+k, am[k], bm[k], differ)
	}
}

// normalJSON is v as JSON values with each list of required properties
// sorted.
func normalJSON(v any) any {
	if s, ok := v.(*apiextensionsv1.JSONSchemaProps); ok && s != nil {
		return normalSchema(*s, false)
	}
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func compactJSON(v any) string {
	if v == nil {
		return "(none)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// clip shortens a value for a one-line message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
