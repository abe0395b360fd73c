package golang

import (
	"encoding/json"
	"fmt"
	"maps"
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

// goNamed is a named type of an API's types file that is not a struct: the
// items of a list or values of a map with modifiers of their own, which
// controller-gen takes from markers on their type.
type goNamed struct {
	Name, Doc, Type string
	Markers         []string
}

// goField is one struct field with the kubebuilder markers that make
// controller-gen produce the same schema as BuildCRD.
type goField struct {
	Name    string
	JSON    string // json tag value
	Type    string
	Doc     string
	Markers []string
	// CopyCode is how DeepCopyInto copies the field ("" when *out = *in
	// has).
	CopyCode string
	// Imports are the packages its type names.
	Imports []goImport
}

// goTypes are the Go types of a kind's spec: the spec struct followed by
// one struct per nested object, depth first, and the named types of items
// with modifiers of their own.
type goTypes struct {
	Structs []goStruct
	Named   []goNamed
}

// imports are the packages the types name.
func (t goTypes) imports() []goImport {
	var out []goImport
	for _, s := range t.Structs {
		for _, f := range s.Fields {
			out = append(out, f.Imports...)
		}
	}
	return out
}

// newGoTypes returns the Go types of an API's spec.
func newGoTypes(a api.API) goTypes {
	var out goTypes
	var walk func(name, doc, of string, fields []api.Field, decl *api.Field)
	walk = func(name, doc, of string, fields []api.Field, decl *api.Field) {
		rules := api.ObjectRules(fields)
		if name == a.Kind+"Spec" {
			rules = a.SpecRules()
		}
		if decl != nil && decl.Type == api.TypeObjectList {
			// Each object's own rules.
			rules = append(rules, api.ItemRules(*decl)...)
		}
		s := goStruct{Name: name, Doc: doc, Markers: ruleMarkers(rules)}
		i := len(out.Structs)
		out.Structs = append(out.Structs, s)
		prefix := name
		if name == a.Kind+"Spec" {
			prefix = a.Kind
		}
		for _, node := range api.GroupFields(fields) {
			if node.Leaf() {
				s.Fields = append(s.Fields, out.leafField(*node.Field, node.Name, of, prefix))
				continue
			}
			goName := naming.GoField(node.Name)
			decl := node.Field
			if node.List {
				// DatabaseUser, each object of the list users.
				child := prefix + naming.GoField(singular(node.Name))
				markers := []string{"+optional", "+listType=atomic"}
				if keys := api.ListKeys(node.Children); keys != nil {
					markers = []string{"+optional", "+listType=map"}
					for _, k := range keys {
						markers = append(markers, "+listMapKey="+k)
					}
				}
				g := goField{Name: goName, JSON: node.Name, Type: "[]" + child,
					Doc: fmt.Sprintf("%s holds the %s objects.", goName, node.Name)}
				if decl != nil {
					g = declaredField(g, *decl, markers)
				} else {
					g.Markers = markers
				}
				// No omitempty, as other lists: an empty list stays [].
				g.CopyCode = fieldCopy(goName, goType{Name: g.Type, copy: copySlice, elem: &goType{Name: child, copy: copyInto}}, false)
				s.Fields = append(s.Fields, g)
				walk(child, fmt.Sprintf("%s is one object of the %s list of %s.", child, node.Name, name), "each "+singular(node.Name), node.Children, decl)
				continue
			}
			child := prefix + goName
			markers := []string{"+optional"}
			if api.DefaultsToEmpty(node.Children) && (decl == nil || decl.Default == nil) {
				markers = append(markers, "+kubebuilder:default={}")
			}
			g := goField{Name: goName, JSON: node.Name + ",omitempty", Type: "*" + child,
				Doc: fmt.Sprintf("%s holds the %s settings.", goName, node.Name)}
			ptr := true
			if decl != nil {
				g = declaredField(g, *decl, markers)
				if decl.Required {
					g.JSON, g.Type, ptr = node.Name, child, false
				}
			} else {
				g.Markers = markers
			}
			g.CopyCode = fieldCopy(goName, goType{Name: child, copy: copyInto}, ptr)
			s.Fields = append(s.Fields, g)
			walk(child, fmt.Sprintf("%s is the %s object of %s.", child, node.Name, name), of, node.Children, decl)
		}
		out.Structs[i] = s
	}
	walk(a.Kind+"Spec", fmt.Sprintf("%sSpec defines the desired state of %s.", a.Kind, a.Kind), "the resource", a.Fields, nil)
	return out
}

// declaredField is the field of an object or list of objects that a field
// of type object ([]object) declares: required, bounded, with rules or a
// default.
func declaredField(g goField, f api.Field, markers []string) goField {
	if f.Description != "" {
		g.Doc = goDoc(f.Description)
	}
	if f.Required {
		markers[0] = "+required"
	}
	g.Markers = append(markers, boundMarkers(f)...)
	g.Markers = append(g.Markers, ruleMarkers(api.RulesOf(f))...)
	if f.Default != nil {
		g.Markers = append(g.Markers, "+kubebuilder:default="+markerValue(api.TypedDefault(f)))
	}
	return g
}

// leafField is the field f (named jsonName in its object) of the resource,
// or of each object of a list (of says which); the struct it is in is
// named prefix.
func (t *goTypes) leafField(f api.Field, jsonName, of, prefix string) goField {
	typ := newGoType(f.Type)
	goName := naming.GoField(jsonName)
	g := goField{Name: goName, Doc: goDoc(f.Description)}
	if g.Doc == "" {
		g.Doc = fmt.Sprintf("%s is the %s of %s.", g.Name, jsonName, of)
	}
	if itemMarkers := valueMarkers(f); f.Type.IsList() || f.Type.IsMap() {
		// The items' own modifiers go on a type of their own, named for
		// them: controller-gen reads markers of a map's values nowhere else.
		if len(itemMarkers) > 0 {
			typ = t.named(typ, prefix+goName+"Item", fmt.Sprintf("%s is one item of %s.", prefix+goName+"Item", goName), itemMarkers, false)
		}
		if rules := ruleMarkers(api.ItemRules(f)); len(rules) > 0 {
			typ = t.named(typ, prefix+goName+"Entry", fmt.Sprintf("%s is one item of %s.", prefix+goName+"Entry", goName), rules, true)
		}
		itemMarkers = nil
	} else {
		g.Markers = itemMarkers
	}
	ptr := false
	switch {
	case f.Required:
		g.JSON = jsonName
		g.Markers = append([]string{"+required"}, g.Markers...)
	case typ.Nilable():
		// No omitempty: an empty list stays [] on the way to the children,
		// as in every other style, while an absent one is null, which the
		// API server prunes and specValues skips.
		g.JSON = jsonName
		g.Markers = append([]string{"+optional"}, g.Markers...)
	default:
		g.JSON, ptr = jsonName+",omitempty", true
		g.Markers = append([]string{"+optional"}, g.Markers...)
	}
	g.Type, g.Imports = typ.Name, typ.Imports
	if ptr {
		g.Type = "*" + typ.Name
	}
	g.CopyCode = fieldCopy(goName, typ, ptr)
	g.Markers = append(g.Markers, boundMarkers(f)...)
	g.Markers = append(g.Markers, ruleMarkers(api.FieldRules(f))...)
	if f.Default != nil {
		g.Markers = append(g.Markers, "+kubebuilder:default="+markerValue(api.TypedDefault(f)))
	}
	return g
}

// named replaces, in typ, the scalar at its bottom (direct: its item)
// with a type of its own named name with markers, which it declares.
func (t *goTypes) named(typ goType, name, doc string, markers []string, direct bool) goType {
	var swap func(g goType, top bool) goType
	swap = func(g goType, top bool) goType {
		if direct && !top || !direct && g.scalar {
			t.Named = append(t.Named, goNamed{Name: name, Doc: doc, Type: g.Name, Markers: markers})
			g.Name = name // a named slice or map copies as one
			return g
		}
		elem := swap(*g.elem, false)
		g.elem = &elem
		g.Name = strings.TrimSuffix(g.Name, g.elem0) + elem.Name
		return g
	}
	return swap(typ, true)
}

// valueMarkers are the markers of a field's scalar modifiers (enum,
// bounds, pattern, format).
func valueMarkers(f api.Field) []string {
	var out []string
	v := "+kubebuilder:validation:"
	if f.Enum != nil {
		var values []string
		for _, e := range f.Enum {
			if strings.ContainsAny(e, " :=") {
				e = strconv.Quote(e)
			}
			values = append(values, e)
		}
		out = append(out, v+"Enum="+strings.Join(values, ";"))
	}
	if f.Min != nil {
		out = append(out, v+"Minimum="+strconv.FormatInt(*f.Min, 10))
	}
	if f.Max != nil {
		out = append(out, v+"Maximum="+strconv.FormatInt(*f.Max, 10))
	}
	if f.MinLength != nil {
		out = append(out, v+"MinLength="+strconv.FormatInt(*f.MinLength, 10))
	}
	if f.MaxLength != nil {
		out = append(out, v+"MaxLength="+strconv.FormatInt(*f.MaxLength, 10))
	}
	if f.Pattern != "" {
		out = append(out, v+"Pattern=`"+f.Pattern+"`")
	}
	if f.Format != "" {
		out = append(out, v+"Format="+f.Format)
	}
	return out
}

// boundMarkers are the markers of a list's or a map's own modifiers.
func boundMarkers(f api.Field) []string {
	var out []string
	v := "+kubebuilder:validation:"
	for _, b := range []struct {
		name string
		n    *int64
	}{{"MinItems", f.MinItems}, {"MaxItems", f.MaxItems}, {"MinProperties", f.MinProperties}, {"MaxProperties", f.MaxProperties}} {
		if b.n != nil {
			out = append(out, v+b.name+"="+strconv.FormatInt(*b.n, 10))
		}
	}
	switch {
	case f.MapKeys != nil:
		out = append(out, "+listType=map")
		for _, k := range f.MapKeys {
			out = append(out, "+listMapKey="+k)
		}
	case f.ListType != "":
		out = append(out, "+listType="+f.ListType)
	}
	return out
}

// markerValue is a default as controller-gen's default marker takes it:
// JSON, but a list in braces.
func markerValue(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case []any:
		var items []string
		for _, x := range t {
			items = append(items, markerValue(x))
		}
		return "{" + strings.Join(items, ",") + "}"
	case map[string]any:
		var entries []string
		for _, k := range slices.Sorted(maps.Keys(t)) {
			entries = append(entries, strconv.Quote(k)+":"+markerValue(t[k]))
		}
		return "{" + strings.Join(entries, ",") + "}"
	}
	b, _ := json.Marshal(v)
	return string(b)
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
func goStatusFields(a api.API, t *goTypes) []goField {
	var out []goField
	for _, f := range a.StatusFields() {
		g := t.leafField(f, f.Name, "the resource", a.Kind+"Status")
		switch elem := strings.TrimPrefix(g.Type, "*"); {
		case slices.Contains([]string{"string", "bool", "int32", "int64", "float64"}, elem):
			g.Type, g.CopyCode = elem, ""
		case newGoType(f.Type).Nilable():
			g.JSON += ",omitempty"
		}
		out = append(out, g)
	}
	return out
}

// goDoc is a description as one line of a Go comment: a CRD's may span
// lines, which the types file's comments do not.
func goDoc(description string) string { return strings.Join(strings.Fields(description), " ") }

// singular names one object of a list: users → user; a name that is no
// plural gets Item (data → dataItem).
func singular(list string) string {
	if one := inflect.Singularize(list); one != list {
		return one
	}
	return list + "Item"
}
