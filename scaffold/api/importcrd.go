package api

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/opctl/opctl/scaffold/objpath"
)

// FromCRD takes a kind back from one version of a CRD (its storage
// version when version is ""), so that the CRD opctl writes for it is the
// original: each field in the field language where that writes its schema
// exactly (a string with a pattern, a list of Tolerations, an object with
// fields), else of type schema with the original's (oneOf, a list of
// objects without a list type). Compare lists what still differs.
func FromCRD(crd *apiextensionsv1.CustomResourceDefinition, version, domain string) (API, error) {
	v, err := crdVersionOf(crd, version)
	if err != nil {
		return API{}, err
	}
	names := crd.Spec.Names
	a := API{Kind: names.Kind, Plural: names.Plural, Version: v.Name, Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		ShortNames: names.ShortNames, Categories: names.Categories}
	if a.Group, a.Domain = splitGroup(crd.Spec.Group, domain); a.Group == "" {
		return API{}, fmt.Errorf("CRD %s: group %q has no domain (a group is GROUP.DOMAIN)", crd.Name, crd.Spec.Group)
	}
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return API{}, fmt.Errorf("CRD %s: version %s has no schema", crd.Name, v.Name)
	}
	root := v.Schema.OpenAPIV3Schema
	a.SpecOptional = !slices.Contains(root.Required, "spec")
	spec := root.Properties["spec"]
	fields, bad := objectFields(spec)
	if bad != "" {
		return API{}, fmt.Errorf("CRD %s: spec field %q: a field's name is letters, digits and underscores", crd.Name, bad)
	}
	a.Fields = fields
	a.Rules = rulesOf(spec.XValidations)
	a.SpecSchema = extraOf(spec, "properties", "type", "description", "required", "x-kubernetes-validations")
	if status, ok := root.Properties["status"]; ok {
		// Not required: opctl's starters write status before the team's
		// code sets such fields.
		a.StatusSchema = extraOf(status, "properties", "type", "description", "required")
		for _, name := range sortedKeys(status.Properties) {
			if !slices.Contains(statusOwnFields, name) && name != ScaleSelector {
				a.Status = append(a.Status, statusFieldOf(name, status.Properties[name]))
			}
		}
	}
	if s := v.Subresources; s != nil && s.Scale != nil {
		if name, ok := strings.CutPrefix(s.Scale.SpecReplicasPath, ".spec."); ok && !strings.Contains(name, ".") {
			a.ScaleReplicas = name
			a.Status = slices.DeleteFunc(a.Status, func(f Field) bool { return f.Name == name })
		}
	}
	for _, c := range v.AdditionalPrinterColumns {
		for prefix, fields := range map[string][]Field{".spec.": a.Fields, ".status.": a.Status} {
			name, ok := strings.CutPrefix(c.JSONPath, prefix)
			if i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name }); ok && i >= 0 && fields[i].Type.Allows("column") {
				fields[i].Column = true
			}
		}
	}
	return a, nil
}

// TakenBack is the kind as from, taken from a CRD of it, has it, with
// what a CRD does not say kept from a (owned kinds, access, admission,
// style options, older versions), and its fields and status fields in a's
// order, new ones after.
func (a API) TakenBack(from API) (API, error) {
	if from.Group != a.Group || from.Domain != a.Domain || from.Version != a.Version {
		return a, fmt.Errorf("the CRD is of %s.%s/%s, the kind of %s.%s/%s", from.Group, from.Domain, from.Version, a.Group, a.Domain, a.Version)
	}
	from.Owns, from.RBAC, from.Admission, from.Options, from.Served = a.Owns, a.RBAC, a.Admission, a.Options, a.Served
	from.Fields, from.Status = inOrderOf(a.Fields, from.Fields), inOrderOf(a.Status, from.Status)
	return from, nil
}

// inOrderOf is fields in the order of the fields of the same names in
// old, the others after, in their own order.
func inOrderOf(old, fields []Field) []Field {
	rank := func(f Field) int {
		if i := slices.IndexFunc(old, func(o Field) bool { return o.Name == f.Name }); i >= 0 {
			return i
		}
		return len(old)
	}
	out := slices.Clone(fields)
	slices.SortStableFunc(out, func(x, y Field) int { return rank(x) - rank(y) })
	return out
}

// extraOf is what schema s has beyond the keys opctl writes itself, nil
// for nothing.
func extraOf(s apiextensionsv1.JSONSchemaProps, own ...string) *apiextensionsv1.JSONSchemaProps {
	var m map[string]json.RawMessage
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &m)
	for _, k := range own {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil
	}
	b, _ = json.Marshal(m)
	var out apiextensionsv1.JSONSchemaProps
	_ = json.Unmarshal(b, &out)
	return &out
}

// crdVersionOf is the CRD's version named version, else its storage one.
func crdVersionOf(crd *apiextensionsv1.CustomResourceDefinition, version string) (apiextensionsv1.CustomResourceDefinitionVersion, error) {
	var names []string
	for _, v := range crd.Spec.Versions {
		if v.Name == version || version == "" && v.Storage {
			return v, nil
		}
		names = append(names, v.Name)
	}
	if version == "" {
		return apiextensionsv1.CustomResourceDefinitionVersion{}, fmt.Errorf("CRD %s has no storage version", crd.Name)
	}
	return apiextensionsv1.CustomResourceDefinitionVersion{}, fmt.Errorf("CRD %s has no version %s (it has %s)", crd.Name, version, strings.Join(names, ", "))
}

// splitGroup splits a CRD's group into opctl's group and, where it is not
// under the project's domain, the kind's own domain (cert-manager and io).
func splitGroup(full, domain string) (group, own string) {
	if g, ok := strings.CutSuffix(full, "."+domain); ok && domain != "" {
		return g, ""
	}
	group, own, _ = strings.Cut(full, ".")
	if own == "" {
		return "", ""
	}
	return group, own
}

// objectFields are the fields of an object schema, named relative to it,
// in the order of their names; bad names a property no field can be (a
// name with a dash), which only its object's schema can hold.
func objectFields(s apiextensionsv1.JSONSchemaProps) (fields []Field, bad string) {
	for _, name := range sortedKeys(s.Properties) {
		if !fieldNameRE().MatchString(name) {
			return nil, name
		}
		fields = append(fields, fieldsFor(name, s.Properties[name], slices.Contains(s.Required, name))...)
	}
	return fields, ""
}

// fieldsFor writes property name of schema s in the field language: a
// field of its own, or an object's (a list of objects') declaration with
// the fields below it, each where opctl writes s back exactly; else one
// field of type schema that holds s.
func fieldsFor(name string, s apiextensionsv1.JSONSchemaProps, required bool) []Field {
	if f, ok := leafOf(name, s, required); ok {
		return []Field{f}
	}
	decl := Field{Name: name, Required: required, Description: s.Description, Default: defaultText(s.Default, false),
		Rules: rulesOf(s.XValidations)}
	object, sep := s, "."
	if s.Type == "array" && s.Items != nil && s.Items.Schema != nil {
		object, sep = *s.Items.Schema, objpath.ListSuffix+"."
		decl.Type, decl.MinItems, decl.MaxItems = TypeObjectList, s.MinItems, s.MaxItems
		decl.ItemRules, decl.ItemDescription = rulesOf(object.XValidations), object.Description
	} else {
		decl.Type, decl.MinProperties, decl.MaxProperties = TypeObject, s.MinProperties, s.MaxProperties
	}
	if object.Type == "object" && len(object.Properties) > 0 && object.AdditionalProperties == nil {
		if children, bad := objectFields(object); bad == "" {
			var out []Field
			if !plainDeclaration(decl) {
				out = append(out, decl)
			}
			for _, c := range children {
				c.Key = c.Name != "" && !strings.Contains(c.Name, ".") && slices.Contains(s.XListMapKeys, c.Name)
				c.Name = name + sep + c.Name
				out = append(out, c)
			}
			if writesBack(out, name, s) {
				return out
			}
		}
	}
	raw := s
	return []Field{{Name: name, Type: TypeSchema, Required: required, Schema: &raw}}
}

// plainDeclaration reports whether an object's (a list of objects')
// declaration adds nothing to the fields below it, which make it.
func plainDeclaration(f Field) bool {
	f.Type = ""
	return reflect.DeepEqual(f, Field{Name: f.Name})
}

// leafOf is property name of schema s as one field with no fields below
// it, if the field language writes s exactly: a scalar with modifiers, a
// list or map of them, a free-form object, any value or a Kubernetes type.
func leafOf(name string, s apiextensionsv1.JSONSchemaProps, required bool) (Field, bool) {
	f := Field{Name: name, Required: required, Description: s.Description, Rules: rulesOf(s.XValidations),
		MinItems: s.MinItems, MaxItems: s.MaxItems, MinProperties: s.MinProperties, MaxProperties: s.MaxProperties, MapKeys: s.XListMapKeys}
	if s.XListType != nil {
		f.ListType = *s.XListType
	}
	inner := s
	if elem := elemOf(s); elem != nil {
		f.ItemRules, f.ItemDescription = rulesOf(elem.XValidations), elem.Description
		for e := elem; e != nil; e = elemOf(*e) {
			inner = *e
		}
	}
	f.Pattern, f.Format, f.MinLength, f.MaxLength = inner.Pattern, inner.Format, inner.MinLength, inner.MaxLength
	f.Min, f.Max = wholeNumber(inner.Minimum), wholeNumber(inner.Maximum)
	for _, e := range inner.Enum {
		f.Enum = append(f.Enum, *defaultText(&e, true))
	}
	var found []Field
	for _, t := range typeCandidates(s) {
		c := f
		c.Type = t
		_, scalar := t.row()
		c.Default = defaultText(s.Default, scalar)
		// What the type writes itself (a quantity's pattern) is no modifier.
		for _, m := range modifierTable() {
			if m.used(c) && !t.Allows(m.name) {
				clearModifier(&c, m.name)
			}
		}
		ownDescriptions(&c)
		if checkField(nested(c)) == nil && sameSchema(fieldSchema(c), s, t.kubeOnly()) {
			found = append(found, c)
		}
	}
	// Where types write the same schema (bytes, and string with
	// format=byte), the one that needs the fewest modifiers.
	if len(found) == 0 {
		return Field{}, false
	}
	return slices.MinFunc(found, func(a, b Field) int { return usedModifiers(a) - usedModifiers(b) }), true
}

// usedModifiers counts the modifiers f uses.
func usedModifiers(f Field) int {
	n := 0
	for _, m := range modifierTable() {
		if m.used(f) {
			n++
		}
	}
	return n
}

// ownDescriptions drops f's descriptions that its type writes itself (a
// Kubernetes type's).
func ownDescriptions(f *Field) {
	plain := *f
	plain.Description, plain.ItemDescription = "", ""
	s := fieldSchema(plain)
	if f.Description == s.Description {
		f.Description = ""
	}
	if elem := elemOf(s); elem != nil && f.ItemDescription == elem.Description {
		f.ItemDescription = ""
	}
}

// nested is f below an object, for the checks of a field's own (a
// top-level field may not be called kind; a field of an object may).
func nested(f Field) Field {
	f.Name = "x." + f.Name
	return f
}

// clearModifier unsets a value modifier of f.
func clearModifier(f *Field, name string) {
	switch name {
	case "default":
		f.Default = nil
	case "enum":
		f.Enum = nil
	case "min":
		f.Min = nil
	case "max":
		f.Max = nil
	case "minLength":
		f.MinLength = nil
	case "maxLength":
		f.MaxLength = nil
	case "pattern":
		f.Pattern = ""
	case "format":
		f.Format = ""
	case "minItems":
		f.MinItems = nil
	case "maxItems":
		f.MaxItems = nil
	case "listType":
		f.ListType = ""
	case "mapKeys":
		f.MapKeys = nil
	case "minProperties":
		f.MinProperties = nil
	case "maxProperties":
		f.MaxProperties = nil
	case "itemRule":
		f.ItemRules = nil
	}
}

// kubeOnly reports whether the type is a Kubernetes type whose schema,
// descriptions aside, is what a CRD has: its descriptions are those of the
// pinned k8s.io/api, a CRD's those of the version it was made with.
func (t FieldType) kubeOnly() bool {
	_, ok := t.Kube()
	return ok
}

// elemOf is a list's item or a map's value schema, nil for others.
func elemOf(s apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	switch {
	case s.Type == "array" && s.Items != nil:
		return s.Items.Schema
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil:
		return s.AdditionalProperties.Schema
	}
	return nil
}

// typeCandidates are the type expressions that may write s, the likely
// first.
func typeCandidates(s apiextensionsv1.JSONSchemaProps) []FieldType {
	if elem := elemOf(s); elem != nil {
		prefix := listPrefix
		if s.Type == "object" {
			prefix = mapPrefix
		}
		var out []FieldType
		for _, t := range typeCandidates(*elem) {
			out = append(out, FieldType(prefix)+t)
		}
		return out
	}
	keep := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case keep && s.Type == "" && len(s.Properties) == 0:
		return []FieldType{TypeAny}
	case keep && s.Type == "object" && len(s.Properties) == 0:
		return []FieldType{TypeObject}
	case s.Type == "object" || s.Type == "array":
		var out []FieldType
		for _, k := range kubeTypeTable {
			if ks, err := KubeSchema(k.Name); err == nil && slices.Equal(sortedKeys(ks.Properties), sortedKeys(s.Properties)) {
				out = append(out, FieldType(k.Name))
			}
		}
		return out
	}
	var out []FieldType
	for _, r := range fieldTypeTable {
		out = append(out, r.t)
	}
	return out
}

// writesBack reports whether opctl writes property name of an object
// from fields (named relative to the object) as schema s.
func writesBack(fields []Field, name string, s apiextensionsv1.JSONSchemaProps) bool {
	var below []Field
	for _, f := range fields {
		below = append(below, nested(f))
	}
	if ValidateFields(nil, below) != nil {
		return false
	}
	return sameSchema(objectSchema(fields).Properties[name], s, false)
}

// sameSchema reports whether two schemas are the same but for the order
// of required properties (and descriptions, when ignoring them).
func sameSchema(a, b apiextensionsv1.JSONSchemaProps, ignoreDescriptions bool) bool {
	return reflect.DeepEqual(normalSchema(a, ignoreDescriptions), normalSchema(b, ignoreDescriptions))
}

// normalSchema is s as JSON values, each list of required properties
// sorted and, when ignoring them, without descriptions.
func normalSchema(s apiextensionsv1.JSONSchemaProps, ignoreDescriptions bool) any {
	b, _ := json.Marshal(s)
	var v any
	_ = json.Unmarshal(b, &v)
	var walk func(v any, key string) any
	walk = func(v any, key string) any {
		switch x := v.(type) {
		case map[string]any:
			if ignoreDescriptions && key != "properties" {
				delete(x, "description")
			}
			for k, e := range x {
				x[k] = walk(e, k)
			}
		case []any:
			if key == "required" {
				slices.SortFunc(x, func(a, b any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			}
			for i, e := range x {
				x[i] = walk(e, "")
			}
		}
		return v
	}
	return walk(v, "")
}

// statusFieldOf is a status property as a status field: typed where a
// status field of the language writes it, else of type schema.
func statusFieldOf(name string, s apiextensionsv1.JSONSchemaProps) Field {
	if f, ok := leafOf(name, s, false); ok && f.Default == nil && len(f.Rules) == 0 {
		return f
	}
	raw := s
	return Field{Name: name, Type: TypeSchema, Schema: &raw}
}

// rulesOf are a schema's CEL rules as the model holds them.
func rulesOf(rules apiextensionsv1.ValidationRules) []Rule {
	var out []Rule
	for _, r := range rules {
		out = append(out, Rule{Rule: r.Rule, Message: r.Message})
	}
	return out
}

// defaultText is a default (an enum value) as a field holds it: a
// scalar's as the user writes it (a string bare), any other as JSON.
func defaultText(v *apiextensionsv1.JSON, scalar bool) *string {
	if v == nil {
		return nil
	}
	text := string(v.Raw)
	var s string
	if scalar && json.Unmarshal(v.Raw, &s) == nil {
		text = s
	}
	return &text
}

// wholeNumber is a bound as a field holds it, if it is a whole number.
func wholeNumber(f *float64) *int64 {
	if f == nil || *f != float64(int64(*f)) {
		return nil
	}
	n := int64(*f)
	return &n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
