package golang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/opctl/opctl/inflect"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/naming"
)

// goStruct is one Go struct of an API's types file.
type goStruct struct {
	Name    string
	Doc     string
	Markers []string // type-level: the object's CEL rules
	Fields  []goField
}

// goField is one struct field with the kubebuilder markers that make
// controller-gen produce the same schema as BuildCRD.
type goField struct {
	Name    string
	JSON    string // json tag value
	Type    string
	Elem    string // element type for pointers
	Doc     string
	Markers []string
	// Copy says how DeepCopyInto copies the field; "" is a plain value copy.
	Copy string
}

// goStructs returns the spec struct of an API followed by one struct per
// nested object, depth first.
func goStructs(a api.API) []goStruct {
	var out []goStruct
	var walk func(name, doc, of string, fields []api.Field)
	walk = func(name, doc, of string, fields []api.Field) {
		rules := api.ObjectRules(fields)
		if name == a.Kind+"Spec" {
			rules = a.SpecRules()
		}
		s := goStruct{Name: name, Doc: doc, Markers: ruleMarkers(rules)}
		i := len(out)
		out = append(out, s)
		for _, node := range api.GroupFields(fields) {
			if node.Field != nil {
				s.Fields = append(s.Fields, goScalarField(*node.Field, node.Name, of))
				continue
			}
			prefix := name
			if name == a.Kind+"Spec" {
				prefix = a.Kind
			}
			child := prefix + naming.UpperFirst(node.Name)
			if node.List {
				// DatabaseUser, each object of the list users.
				child = prefix + naming.UpperFirst(singular(node.Name))
				markers := []string{"+optional", "+listType=atomic"}
				if keys := api.ListKeys(node.Children); keys != nil {
					markers = []string{"+optional", "+listType=map"}
					for _, k := range keys {
						markers = append(markers, "+listMapKey="+k)
					}
				}
				// No omitempty, as other lists: an empty list stays [].
				s.Fields = append(s.Fields, goField{
					Name: naming.UpperFirst(node.Name), JSON: node.Name,
					Type: "[]" + child, Elem: child, Copy: "structSlice",
					Doc:     fmt.Sprintf("%s holds the %s objects.", naming.UpperFirst(node.Name), node.Name),
					Markers: markers,
				})
				walk(child, fmt.Sprintf("%s is one object of the %s list of %s.", child, node.Name, name), "each "+singular(node.Name), node.Children)
				continue
			}
			markers := []string{"+optional"}
			if api.DefaultsToEmpty(node.Children) {
				markers = append(markers, "+kubebuilder:default={}")
			}
			s.Fields = append(s.Fields, goField{
				Name: naming.UpperFirst(node.Name), JSON: node.Name + ",omitempty",
				Type: "*" + child, Elem: child, Copy: "ptrStruct",
				Doc:     fmt.Sprintf("%s holds the %s settings.", naming.UpperFirst(node.Name), node.Name),
				Markers: markers,
			})
			walk(child, fmt.Sprintf("%s is the %s object of %s.", child, node.Name, name), of, node.Children)
		}
		out[i] = s
	}
	walk(a.Kind+"Spec", fmt.Sprintf("%sSpec defines the desired state of %s.", a.Kind, a.Kind), "the resource", a.Fields)
	return out
}

// goScalarField is the field f of the resource, or of each object of a list
// (of says which).
func goScalarField(f api.Field, jsonName, of string) goField {
	goType := f.Type.Go()
	g := goField{Name: naming.UpperFirst(jsonName), Doc: f.Description}
	if g.Doc == "" {
		g.Doc = fmt.Sprintf("%s is the %s of %s.", g.Name, jsonName, of)
	}
	switch {
	case f.Required:
		g.JSON, g.Type, g.Copy = jsonName, goType.Name, goType.ValueCopy
		g.Markers = append(g.Markers, "+required")
	case goType.Nilable:
		// No omitempty: an empty list stays [] on the way to the children,
		// as in every other style, while an absent one is null, which the
		// API server prunes and specValues skips.
		g.JSON, g.Type, g.Copy = jsonName, goType.Name, goType.ValueCopy
		g.Markers = append(g.Markers, "+optional")
	default:
		g.JSON, g.Type, g.Elem, g.Copy = jsonName+",omitempty", "*"+goType.Name, goType.Name, goType.PtrCopy
		g.Markers = append(g.Markers, "+optional")
	}
	v := "+kubebuilder:validation:"
	if f.Enum != nil {
		g.Markers = append(g.Markers, v+"Enum="+strings.Join(f.Enum, ";"))
	}
	if f.Min != nil {
		g.Markers = append(g.Markers, v+"Minimum="+strconv.FormatInt(*f.Min, 10))
	}
	if f.Max != nil {
		g.Markers = append(g.Markers, v+"Maximum="+strconv.FormatInt(*f.Max, 10))
	}
	if f.MinLength != nil {
		g.Markers = append(g.Markers, v+"MinLength="+strconv.FormatInt(*f.MinLength, 10))
	}
	if f.MaxLength != nil {
		g.Markers = append(g.Markers, v+"MaxLength="+strconv.FormatInt(*f.MaxLength, 10))
	}
	if f.Pattern != "" {
		g.Markers = append(g.Markers, v+"Pattern=`"+f.Pattern+"`")
	}
	g.Markers = append(g.Markers, ruleMarkers(api.FieldRules(f))...)
	if f.Default != nil {
		d := fmt.Sprint(api.TypedDefault(f))
		if s, ok := api.TypedDefault(f).(string); ok {
			d = strconv.Quote(s)
		}
		g.Markers = append(g.Markers, "+kubebuilder:default="+d)
	}
	return g
}

// ruleMarkers are the XValidation markers of CEL rules.
func ruleMarkers(rules apiextensionsv1.ValidationRules) []string {
	var out []string
	for _, r := range rules {
		m := "+kubebuilder:validation:XValidation:rule=" + strconv.Quote(r.Rule)
		if r.Message != "" {
			m += ",message=" + strconv.Quote(r.Message)
		}
		out = append(out, m)
	}
	return out
}

// kindMarkers are the type-level markers of the root kind.
func kindMarkers(a api.API) []string {
	resource := fmt.Sprintf("+kubebuilder:resource:path=%s,scope=%s", a.Plural, a.Scope())
	if len(a.ShortNames) > 0 {
		resource += ",shortName=" + strings.Join(a.ShortNames, ";")
	}
	if len(a.Categories) > 0 {
		resource += ",categories=" + strings.Join(a.Categories, ";")
	}
	m := []string{"+kubebuilder:object:root=true", "+kubebuilder:subresource:status", resource}
	if f := a.ScaleReplicas; f != "" {
		m = append(m, fmt.Sprintf("+kubebuilder:subresource:scale:specpath=.spec.%s,statuspath=.status.%s,selectorpath=.status.%s", f, f, api.ScaleSelector))
	}
	if a.Converts() {
		// The hub of the versions is the one the API server stores.
		m = append(m, "+kubebuilder:storageversion")
	}
	for _, c := range a.PrinterColumns() {
		m = append(m, fmt.Sprintf("+kubebuilder:printcolumn:name=%q,type=%s,JSONPath=`%s`", c.Name, c.Type, c.JSONPath))
	}
	return m
}

// goStatusFields are the kind's own status fields, as Kubernetes' own
// status types write them: strings, numbers and booleans as plain values
// that omitempty leaves out, the struct types (which omitempty cannot
// leave out) behind pointers.
func goStatusFields(a api.API) []goField {
	var out []goField
	for _, f := range a.StatusFields() {
		g := goScalarField(f, f.Name, "the resource")
		switch {
		case slices.Contains([]string{"string", "bool", "int32", "int64"}, g.Elem):
			g.Type, g.Elem, g.Copy = g.Elem, "", ""
		case f.Type.Go().Nilable:
			g.JSON += ",omitempty"
		}
		out = append(out, g)
	}
	return out
}

// usesType reports whether any spec or status field of the API has type t.
func usesType(a api.API, t api.FieldType) bool {
	return slices.ContainsFunc(slices.Concat(a.Fields, a.Status), func(f api.Field) bool { return f.Type == t })
}

// singular names one object of a list: users → user; a name that is no
// plural gets Item (data → dataItem).
func singular(list string) string {
	if one := inflect.Singularize(list); one != list {
		return one
	}
	return list + "Item"
}
