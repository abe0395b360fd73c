package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/opctl/opctl/scaffold/naming"
	"github.com/opctl/opctl/scaffold/objpath"
)

// quantityPattern is the pattern Kubernetes (and controller-gen) use for
// resource.Quantity.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// ReadyConditionJSONPath selects the status of the Ready condition.
const readyConditionJSONPath = `.status.conditions[?(@.type=="Ready")].status`

// BuildCRD derives the CustomResourceDefinition of one API. It is the
// contract every style shares, so it depends on nothing but the model.
func BuildCRD(domain string, a API) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: a.CRDName(domain)},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: a.FullGroup(domain),
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind:       a.Kind,
				ListKind:   a.Kind + "List",
				Plural:     a.Plural,
				Singular:   a.Singular(),
				ShortNames: a.ShortNames,
				Categories: a.Categories,
			},
			Scope:    apiextensionsv1.ResourceScope(a.Scope()),
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{crdVersion(a, true)},
		},
	}
	// Older versions after, in Kubernetes' priority order as discovery
	// lists them; None conversion (the default) converts between them.
	for i := len(a.Served) - 1; i >= 0; i-- {
		crd.Spec.Versions = append(crd.Spec.Versions, crdVersion(a.At(a.Served[i]), false))
	}
	return crd
}

// crdVersion is the CRD's version of a as it is in that version.
func crdVersion(a API, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
	return apiextensionsv1.CustomResourceDefinitionVersion{
		Name:    a.Version,
		Served:  true,
		Storage: storage,
		Schema: &apiextensionsv1.CustomResourceValidation{
			OpenAPIV3Schema: rootSchema(a),
		},
		Subresources:             subresources(a),
		AdditionalPrinterColumns: a.PrinterColumns(),
	}
}

// subresources are the kind's status and, where it has one, its scale.
func subresources(a API) *apiextensionsv1.CustomResourceSubresources {
	s := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	if a.ScaleReplicas != "" {
		selector := ".status." + ScaleSelector
		s.Scale = &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec." + a.ScaleReplicas,
			StatusReplicasPath: ".status." + a.ScaleReplicas, LabelSelectorPath: &selector}
	}
	return s
}

// ValidateCRD runs the API server's own CRD validation.
func ValidateCRD(crd *apiextensionsv1.CustomResourceDefinition) error {
	errs, err := crdErrors(crd)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("CRD %s is invalid: %v", crd.Name, errs.ToAggregate())
	}
	return nil
}

// crdErrors are what the API server's validation of a new CRD reports,
// CEL compilation and cost estimates included.
func crdErrors(crd *apiextensionsv1.CustomResourceDefinition) (field.ErrorList, error) {
	defaulted := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(defaulted)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(defaulted, &internal, nil); err != nil {
		return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
	}
	return validation.ValidateCustomResourceDefinition(context.Background(), &internal), nil
}

func rootSchema(a API) *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{
		Description: fmt.Sprintf("%s is the Schema for the %s API.", a.Kind, a.Plural),
		Type:        "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string", Description: "APIVersion defines the versioned schema of this representation of an object."},
			"kind":       {Type: "string", Description: "Kind is a string value representing the REST resource this object represents."},
			"metadata":   {Type: "object"},
			"spec":       withExtra(withDescription(specSchema(a), fmt.Sprintf("%sSpec defines the desired state of %s.", a.Kind, a.Kind)), a.SpecSchema),
			"status":     withExtra(statusSchema(a), a.StatusSchema),
		},
		Required: specRequired(a),
	}
}

func specRequired(a API) []string {
	if a.SpecOptional {
		return nil
	}
	return []string{"spec"}
}

// withExtra is s with what extra sets that s does not.
func withExtra(s apiextensionsv1.JSONSchemaProps, extra *apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	if extra == nil {
		return s
	}
	var to, from map[string]json.RawMessage
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &to)
	b, _ = json.Marshal(extra)
	_ = json.Unmarshal(b, &from)
	for k, v := range from {
		if _, set := to[k]; !set {
			to[k] = v
		}
	}
	b, _ = json.Marshal(to)
	var out apiextensionsv1.JSONSchemaProps
	_ = json.Unmarshal(b, &out)
	return out
}

func withDescription(s apiextensionsv1.JSONSchemaProps, d string) apiextensionsv1.JSONSchemaProps {
	s.Description = d
	return s
}

// specSchema is the spec's schema: its fields, and the kind's rules.
func specSchema(a API) apiextensionsv1.JSONSchemaProps {
	s := objectSchema(a.Fields)
	s.XValidations = a.SpecRules()
	return s
}

// SpecRules are the CEL rules on the spec object: the immutability of its
// optional fields, then the kind's own rules.
func (a API) SpecRules() apiextensionsv1.ValidationRules {
	return append(ObjectRules(a.Fields), celRules(a.Rules)...)
}

// ObjectRules are the CEL rules on an object of fields (names relative to
// it): an optional immutable field can be neither set nor unset once the
// resource exists (self == oldSelf on the field itself, which runs only
// when both values exist, cannot see that).
func ObjectRules(fields []Field) apiextensionsv1.ValidationRules {
	var rules apiextensionsv1.ValidationRules
	for _, node := range GroupFields(fields) {
		if f := node.Field; f != nil && f.Immutable && !f.Required {
			rules = append(rules, apiextensionsv1.ValidationRule{
				Rule:    fmt.Sprintf("has(self.%s) == has(oldSelf.%s)", node.Name, node.Name),
				Message: fmt.Sprintf("%s is immutable: it cannot be set or unset once the resource exists", node.Name),
			})
		}
	}
	return rules
}

func celRules(rules []Rule) apiextensionsv1.ValidationRules {
	var out apiextensionsv1.ValidationRules
	for _, r := range rules {
		out = append(out, apiextensionsv1.ValidationRule{Rule: r.Rule, Message: r.Message})
	}
	return out
}

// objectSchema builds an object from fields whose dotted names are relative
// to it; a prefix shared by several fields becomes a nested object (or a
// list of them), which a field of type object ([]object) of its name may
// declare: required, with rules, bounds or a default.
func objectSchema(fields []Field) apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{Type: "object", XValidations: ObjectRules(fields)}
	for _, node := range GroupFields(fields) {
		if s.Properties == nil {
			s.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		}
		if node.Field != nil && node.Field.Required {
			s.Required = append(s.Required, node.Name)
		}
		if node.Leaf() {
			s.Properties[node.Name] = fieldSchema(*node.Field)
			continue
		}
		nested := objectSchema(node.Children)
		if node.List {
			list := listSchema(nested, ListKeys(node.Children))
			if node.Field != nil {
				list = declaredSchema(list, *node.Field)
			}
			s.Properties[node.Name] = list
			continue
		}
		if DefaultsToEmpty(node.Children) && (node.Field == nil || node.Field.Default == nil) {
			empty := jsonValue("{}")
			nested.Default = &empty
		}
		if node.Field != nil {
			nested = declaredSchema(nested, *node.Field)
		}
		s.Properties[node.Name] = nested
	}
	return s
}

// declaredSchema is the schema of an object, or a list of objects, with
// what its declaration (a field of type object or []object) adds.
func declaredSchema(s apiextensionsv1.JSONSchemaProps, f Field) apiextensionsv1.JSONSchemaProps {
	s.Description = f.Description
	if s.Type == "array" {
		s.MinItems, s.MaxItems = f.MinItems, f.MaxItems
		item := *s.Items.Schema
		item.Description = f.ItemDescription
		item.XValidations = append(item.XValidations, celRules(f.ItemRules)...)
		s.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}
	} else {
		s.MinProperties, s.MaxProperties = f.MinProperties, f.MaxProperties
	}
	if f.Default != nil {
		b, _ := json.Marshal(TypedDefault(f))
		s.Default = &apiextensionsv1.JSON{Raw: b}
	}
	s.XValidations = append(s.XValidations, fieldRules(f)...)
	return s
}

// DefaultsToEmpty reports whether a nested object of these fields gets
// `default: {}`: it has a default to apply (its own fields' or a nested
// object's) and no required field of its own, so {} is valid, and the
// nested defaults apply even when the user leaves the object out (the API
// server applies a field's default only inside an object that is present).
func DefaultsToEmpty(fields []Field) bool {
	found := false
	for _, node := range GroupFields(fields) {
		if node.Field != nil && node.Field.Required {
			return false
		}
		if node.Leaf() {
			found = found || node.Field.Default != nil
			continue
		}
		// A list stays out when left out: its objects' defaults apply in
		// the objects given.
		found = found || !node.List && (node.Field != nil && node.Field.Default != nil || DefaultsToEmpty(node.Children))
	}
	return found
}

// FieldNode is one property of an object: a field, or a nested object
// holding the fields below it (with names relative to it), or a list of
// objects (List) holding them; Field is the field of its name, if any (the
// declaration of an object or list of objects that has fields below it).
type FieldNode struct {
	Name     string
	List     bool
	Field    *Field
	Children []Field
}

// Leaf reports whether the node is a field with no fields below it.
func (n FieldNode) Leaf() bool { return len(n.Children) == 0 }

// ListKeys are the keys by which server-side apply merges the objects of
// a list with these fields: those marked key, else a required name, as in
// Kubernetes' own lists (containers, env, volumes); none for a list
// replaced whole (atomic).
func ListKeys(fields []Field) []string {
	var keys []string
	name := false
	for _, node := range GroupFields(fields) {
		if f := node.Field; f != nil && node.Leaf() {
			if f.Key {
				keys = append(keys, node.Name)
			}
			name = name || node.Name == "name" && f.Required && f.Type == TypeString
		}
	}
	if keys == nil && name {
		keys = []string{"name"}
	}
	return keys
}

// listSchema is a list of items, a map keyed by keys where it has keys.
func listSchema(item apiextensionsv1.JSONSchemaProps, keys []string) apiextensionsv1.JSONSchemaProps {
	listType := "atomic"
	if keys != nil {
		listType = "map"
	}
	return apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item},
		XListType: &listType, XListMapKeys: keys}
}

// GroupFields splits fields into the direct properties of one object, in
// the order of first appearance.
func GroupFields(fields []Field) []FieldNode {
	var nodes []FieldNode
	index := map[string]int{}
	for _, f := range fields {
		head, rest, nested := strings.Cut(f.Name, ".")
		name, list := strings.CutSuffix(head, objpath.ListSuffix)
		i, ok := index[name]
		if !ok {
			i = len(nodes)
			index[name] = i
			nodes = append(nodes, FieldNode{Name: name})
		}
		if !nested {
			f := f
			nodes[i].Field = &f
			continue
		}
		nodes[i].List = nodes[i].List || list
		child := f
		child.Name = rest
		nodes[i].Children = append(nodes[i].Children, child)
	}
	return nodes
}

// fieldSchema is the schema of a field with no fields below it.
func fieldSchema(f Field) apiextensionsv1.JSONSchemaProps {
	e, _ := f.Type.parse()
	s := exprSchema(e, f, true)
	if f.Description != "" || e.kind != exprKube && e.kind != exprRaw {
		s.Description = f.Description
	}
	if f.Default != nil {
		b, _ := json.Marshal(TypedDefault(f))
		s.Default = &apiextensionsv1.JSON{Raw: b}
	}
	s.XValidations = append(s.XValidations, fieldRules(f)...)
	return s
}

// RulesOf are the CEL rules of an object or list of objects that a field
// of type object ([]object) declares: its own, then its immutability.
func RulesOf(f Field) apiextensionsv1.ValidationRules { return fieldRules(f) }

// ItemRules are the CEL rules of each item of a list or value of a map.
func ItemRules(f Field) apiextensionsv1.ValidationRules { return celRules(f.ItemRules) }

// fieldRules are a field's own CEL rules, then its immutability.
func fieldRules(f Field) apiextensionsv1.ValidationRules {
	rules := celRules(f.Rules)
	if f.Immutable {
		rules = append(rules, apiextensionsv1.ValidationRule{Rule: "self == oldSelf", Message: f.Leaf() + " is immutable"})
	}
	return rules
}

// exprSchema is the schema of a value of type e in field f: the field's
// modifiers apply to the scalars at the bottom of its lists and maps
// (enum, bounds, pattern), and to the list or map itself at the top
// (items, keys, item rules).
func exprSchema(e typeExpr, f Field, top bool) apiextensionsv1.JSONSchemaProps {
	var s apiextensionsv1.JSONSchemaProps
	switch e.kind {
	case exprScalar:
		e.row.schema(f, &s)
	case exprList, exprMap:
		item := exprSchema(*e.elem, f, false)
		if top {
			item.XValidations = append(item.XValidations, celRules(f.ItemRules)...)
			if f.ItemDescription != "" {
				item.Description = f.ItemDescription
			}
		}
		if e.kind == exprMap {
			s = apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &item}}
			if top {
				s.MinProperties, s.MaxProperties = f.MinProperties, f.MaxProperties
			}
			break
		}
		s = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &item}}
		if top {
			s.MinItems, s.MaxItems = f.MinItems, f.MaxItems
			if f.ListType != "" || f.MapKeys != nil {
				listType := cmp.Or(f.ListType, "map")
				s.XListType, s.XListMapKeys = &listType, f.MapKeys
			}
		}
	case exprObject:
		keep := true
		s = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}
		if top {
			s.MinProperties, s.MaxProperties = f.MinProperties, f.MaxProperties
		}
	case exprAny:
		keep := true
		s = apiextensionsv1.JSONSchemaProps{XPreserveUnknownFields: &keep}
	case exprKube:
		s, _ = KubeSchema(e.kube.Name) // a missing schema fails validation (checkField)
	case exprRaw:
		if f.Schema != nil {
			s = *f.Schema.DeepCopy()
		}
	}
	return s
}

func jsonValue(raw string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(raw)} }

func jsonString(s string) apiextensionsv1.JSON {
	b, _ := json.Marshal(s)
	return apiextensionsv1.JSON{Raw: b}
}

func toFloat(n *int64) *float64 {
	if n == nil {
		return nil
	}
	f := float64(*n)
	return &f
}

// statusSchema is the status contract shared by every style: the
// generation last reconciled and metav1.Condition entries keyed by type,
// then the kind's own status fields.
func statusSchema(a API) apiextensionsv1.JSONSchemaProps {
	s := commonStatusSchema(a.Kind)
	for name, p := range objectSchema(a.StatusFields()).Properties {
		s.Properties[name] = p
	}
	return s
}

func commonStatusSchema(kind string) apiextensionsv1.JSONSchemaProps {
	str := func(extra apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
		extra.Type = "string"
		return extra
	}
	i64 := func(n int64) *int64 { return &n }
	zero := 0.0
	condition := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"lastTransitionTime": str(apiextensionsv1.JSONSchemaProps{Format: "date-time"}),
			"message":            str(apiextensionsv1.JSONSchemaProps{MaxLength: i64(32768)}),
			"observedGeneration": {Type: "integer", Format: "int64", Minimum: &zero},
			"reason": str(apiextensionsv1.JSONSchemaProps{
				MaxLength: i64(1024), MinLength: i64(1),
				Pattern: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`,
			}),
			"status": str(apiextensionsv1.JSONSchemaProps{
				Enum: []apiextensionsv1.JSON{jsonValue(`"True"`), jsonValue(`"False"`), jsonValue(`"Unknown"`)},
			}),
			"type": str(apiextensionsv1.JSONSchemaProps{
				MaxLength: i64(316),
				Pattern:   `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`,
			}),
		},
		Required: []string{"lastTransitionTime", "message", "reason", "status", "type"},
	}
	mapKeys := []string{"type"}
	listType := "map"
	return apiextensionsv1.JSONSchemaProps{
		Description: fmt.Sprintf("%sStatus defines the observed state of %s.", kind, kind),
		Type:        "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"observedGeneration": {Type: "integer", Format: "int64", Description: "ObservedGeneration is the metadata.generation last reconciled."},
			"conditions": {
				Type:         "array",
				Description:  "Conditions hold the Ready condition.",
				Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &condition},
				XListType:    &listType,
				XListMapKeys: mapKeys,
			},
		},
	}
}

// PrinterColumns are the spec and status fields flagged with the column
// modifier, then Ready and Age.
func (a API) PrinterColumns() []apiextensionsv1.CustomResourceColumnDefinition {
	var cols []apiextensionsv1.CustomResourceColumnDefinition
	for _, part := range []struct {
		path   string
		fields []Field
	}{{".spec.", a.Fields}, {".status.", a.Status}} {
		for _, f := range part.fields {
			if f.Column {
				cols = append(cols, apiextensionsv1.CustomResourceColumnDefinition{
					Name: columnName(f), Type: columnType(f.Type), JSONPath: part.path + f.Name,
				})
			}
		}
	}
	return append(cols,
		apiextensionsv1.CustomResourceColumnDefinition{Name: "Ready", Type: "string", JSONPath: readyConditionJSONPath},
		apiextensionsv1.CustomResourceColumnDefinition{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	)
}

// columnName titles the field's last segment: "storageClass" → "StorageClass".
func columnName(f Field) string { return naming.UpperFirst(f.Leaf()) }

func columnType(t FieldType) string {
	row, _ := t.row()
	return row.column
}
