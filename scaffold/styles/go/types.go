package golang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opctl/opctl/scaffold"
)

// goStruct is one Go struct of an API's types file.
type goStruct struct {
	Name   string
	Doc    string
	Fields []goField
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
func goStructs(a scaffold.API) []goStruct {
	var out []goStruct
	var walk func(name, doc string, fields []scaffold.Field)
	walk = func(name, doc string, fields []scaffold.Field) {
		s := goStruct{Name: name, Doc: doc}
		i := len(out)
		out = append(out, s)
		for _, node := range scaffold.GroupFields(fields) {
			if node.Field != nil {
				s.Fields = append(s.Fields, goScalarField(*node.Field, node.Name))
				continue
			}
			child := name + scaffold.UpperFirst(node.Name)
			if name == a.Kind+"Spec" {
				child = a.Kind + scaffold.UpperFirst(node.Name)
			}
			markers := []string{"+optional"}
			if scaffold.DefaultsToEmpty(node.Children) {
				markers = append(markers, "+kubebuilder:default={}")
			}
			s.Fields = append(s.Fields, goField{
				Name: scaffold.UpperFirst(node.Name), JSON: node.Name + ",omitempty",
				Type: "*" + child, Elem: child, Copy: "ptrStruct",
				Doc:     fmt.Sprintf("%s holds the %s settings.", scaffold.UpperFirst(node.Name), node.Name),
				Markers: markers,
			})
			walk(child, fmt.Sprintf("%s is the %s object of %s.", child, node.Name, name), node.Children)
		}
		out[i] = s
	}
	walk(a.Kind+"Spec", fmt.Sprintf("%sSpec defines the desired state of %s.", a.Kind, a.Kind), a.Fields)
	return out
}

// goTypeOf maps a field type to its Go type and how it is deep-copied, as a
// value (required) or behind a pointer (optional).
func goTypeOf(t scaffold.FieldType) (goType, valueCopy, ptrCopy string) {
	switch t {
	case scaffold.TypeString:
		return "string", "", "ptr"
	case scaffold.TypeBool:
		return "bool", "", "ptr"
	case scaffold.TypeInt32, scaffold.TypeInt64:
		return string(t), "", "ptr"
	case scaffold.TypeQuantity:
		return "resource.Quantity", "quantity", "ptrQuantity"
	case scaffold.TypeDuration:
		return "metav1.Duration", "", "ptr"
	case scaffold.TypeDatetime:
		return "metav1.Time", "time", "ptrTime"
	case scaffold.TypeStringArr:
		return "[]string", "strings", "strings"
	case scaffold.TypeStringMap:
		return "map[string]string", "map", "map"
	}
	panic("unknown field type " + string(t))
}

func goScalarField(f scaffold.Field, jsonName string) goField {
	goType, valueCopy, ptrCopy := goTypeOf(f.Type)
	g := goField{Name: scaffold.UpperFirst(jsonName), Doc: f.Description}
	if g.Doc == "" {
		g.Doc = fmt.Sprintf("%s is the %s of the resource.", g.Name, jsonName)
	}
	collection := f.Type == scaffold.TypeStringArr || f.Type == scaffold.TypeStringMap
	switch {
	case f.Required:
		g.JSON, g.Type, g.Copy = jsonName, goType, valueCopy
		g.Markers = append(g.Markers, "+required")
	case collection:
		g.JSON, g.Type, g.Copy = jsonName+",omitempty", goType, valueCopy
		g.Markers = append(g.Markers, "+optional")
	default:
		g.JSON, g.Type, g.Elem, g.Copy = jsonName+",omitempty", "*"+goType, goType, ptrCopy
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
	if f.Default != nil {
		d := strconv.Quote(*f.Default)
		if f.Type == scaffold.TypeBool || f.Type.IsInt() {
			d = *f.Default
		}
		g.Markers = append(g.Markers, "+kubebuilder:default="+d)
	}
	return g
}

// kindMarkers are the type-level markers of the root kind.
func kindMarkers(a scaffold.API) []string {
	m := []string{
		"+kubebuilder:object:root=true",
		"+kubebuilder:subresource:status",
		fmt.Sprintf("+kubebuilder:resource:path=%s,scope=%s", a.Plural, a.Scope()),
	}
	for _, c := range scaffold.PrinterColumns(a) {
		m = append(m, fmt.Sprintf("+kubebuilder:printcolumn:name=%q,type=%s,JSONPath=`%s`", c.Name, c.Type, c.JSONPath))
	}
	return m
}

// usesType reports whether any field of the API has type t.
func usesType(a scaffold.API, t scaffold.FieldType) bool {
	for _, f := range a.Fields {
		if f.Type == t {
			return true
		}
	}
	return false
}
