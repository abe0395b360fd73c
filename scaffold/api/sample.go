package api

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"

	"github.com/opctl/opctl/scaffold/objpath"
)

// BuildSample returns a custom resource that exercises every field: the
// default where there is one, else the first enum value, else a value that
// satisfies the field's bounds. An optional string no value could be made
// for is left out (validation refuses such a required one). The sample is
// checked against the CRD schema.
func BuildSample(domain string, a API) (map[string]any, error) {
	return SampleOf(domain, a, NewKindValidator(BuildCRD(domain, a)))
}

// SampleOf is buildSample with the checks of the kind's CRD at hand.
func SampleOf(domain string, a API, validator *KindValidator) (map[string]any, error) {
	spec := map[string]any{}
	conv := a.Conventions()
	for i, f := range a.Fields {
		if HasBelow(a.Fields, f.Name) {
			continue // a declared object or list: its fields make it
		}
		v, ok := sampleValue(f)
		if own := &a.Fields[i]; (own == conv.Requests || own == conv.Limits) && f.Default == nil {
			// The workloads' container resources: quantities.
			v, ok = map[string]any{"cpu": "100m", "memory": "64Mi"}, true
		}
		if ok {
			objpath.Set(spec, f.Path(), v)
		}
	}
	for _, f := range a.Fields {
		// A required object none of whose fields the sample sets.
		if _, there := objpath.Value(spec, f.Path()); HasBelow(a.Fields, f.Name) && f.Required && !there && !f.InList() {
			empty := any(map[string]any{})
			if f.Type == TypeObjectList {
				empty = []any{map[string]any{}}
			}
			objpath.Set(spec, f.Path(), empty)
		}
	}
	obj := map[string]any{
		"apiVersion": a.FullGroup(domain) + "/" + a.Version,
		"kind":       a.Kind,
		"metadata":   map[string]any{"name": SampleName(a)},
		"spec":       spec,
	}
	for {
		errs := validator.Object(obj)
		if len(errs) == 0 {
			return obj, nil
		}
		// An optional field whose sample value breaks its own CEL rules (or
		// a schema of its own that the sample cannot meet) is left out: no
		// value can be made for every rule.
		dropped := false
		for _, f := range a.Fields {
			if !f.Required && (len(f.Rules) > 0 || f.Type == TypeSchema) && slices.ContainsFunc(errs, func(e *field.Error) bool { return at(e.Field, "spec."+f.Name) }) {
				dropped = objpath.Delete(obj["spec"].(map[string]any), f.Path()) || dropped
			}
		}
		if !dropped && !keepObjectRules(a, obj, validator, errs) {
			return nil, &sampleError{kind: a.Kind, errs: errs}
		}
	}
}

// at reports whether an error's path is the field's or below it.
func at(path, field string) bool {
	rest, ok := strings.CutPrefix(path, field)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// keepObjectRules leaves out of obj's spec optional fields (without a
// default) below an object whose rule obj breaks, the last first, each
// where it lessens what the validator finds: a rule that at most one of
// them be set ("exactly one of") keeps the first. It reports whether it
// left any out.
func keepObjectRules(a API, obj map[string]any, validator *KindValidator, errs field.ErrorList) bool {
	var objects []string
	for _, e := range errs {
		if e.Type == field.ErrorTypeInvalid && (e.Field == "spec" || strings.HasPrefix(e.Field, "spec.")) {
			objects = append(objects, strings.TrimPrefix(strings.TrimPrefix(e.Field, "spec"), "."))
		}
	}
	dropped := false
	for i := len(a.Fields) - 1; i >= 0; i-- {
		f := a.Fields[i]
		under := slices.ContainsFunc(objects, func(o string) bool { return o == "" || strings.HasPrefix(f.Name, o+".") })
		spec := obj["spec"].(map[string]any)
		if _, there := objpath.Value(spec, f.Path()); f.Required || f.Default != nil || !under || !there || f.InList() {
			continue
		}
		// Left out with the objects it leaves empty: has() sees an empty
		// object.
		without := runtime.DeepCopyJSON(spec)
		path := f.Path()
		for objpath.Delete(without, path) && len(path) > 1 {
			path = path[:len(path)-1]
			if v, _ := objpath.Value(without, path); v == nil || len(v.(map[string]any)) > 0 {
				break
			}
		}
		obj["spec"] = without
		if fewer := validator.Object(obj); len(fewer) < len(errs) {
			errs, dropped = fewer, true
			continue
		}
		obj["spec"] = spec
	}
	return dropped
}

// sampleError is a sample its CRD refuses: a required field's value, or
// the spec, breaking a CEL rule (which validation reports as the user's),
// or else a bug.
type sampleError struct {
	kind string
	errs field.ErrorList
}

func (e *sampleError) Error() string {
	return fmt.Sprintf("internal error: sample %s does not match its CRD: %v", e.kind, e.errs.ToAggregate())
}

// SampleName is the name of a kind's sample.
func SampleName(a API) string { return a.Singular() + "-sample" }

// validateObject checks a custom resource against the CRD's schema and its
// CEL rules the way the API server does.
func validateObject(crd *apiextensionsv1.CustomResourceDefinition, obj map[string]any) field.ErrorList {
	return NewKindValidator(crd).Object(obj)
}

// KindValidator prepares the checks of validateObject once, for a CRD whose
// objects are checked many times (the conformance cases).
type KindValidator struct {
	openapi    *spec.Schema
	object     apivalidation.SchemaValidator
	structural *structuralschema.Structural
	rules      *cel.Validator
	err        error
	// values are Value's checks, by the field's path.
	values map[string]valueValidator
}

type valueValidator struct {
	schema     apivalidation.SchemaCreateValidator
	structural *structuralschema.Structural
	rules      *cel.Validator
}

func NewKindValidator(crd *apiextensionsv1.CustomResourceDefinition) *KindValidator {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return &KindValidator{err: err}
	}
	object, openapi, err := apivalidation.NewSchemaValidator(&internal)
	if err != nil {
		return &KindValidator{err: err}
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return &KindValidator{err: err}
	}
	return &KindValidator{openapi: openapi, object: object, structural: structural,
		rules: cel.NewValidator(structural, true, celconfig.PerCallLimit), values: map[string]valueValidator{}}
}

// Object checks a whole object, its integers int64 as the API server
// decodes them.
func (v *KindValidator) Object(obj map[string]any) field.ErrorList {
	if v.err != nil {
		return field.ErrorList{field.InternalError(nil, v.err)}
	}
	errs := apivalidation.ValidateCustomResource(nil, obj, v.object)
	celErrs, _ := v.rules.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// Value checks the value of the spec's field at path (no list on the way)
// alone, with the same messages as Object. It is what Object finds in an
// object that passed it but for this value, where nothing above the field
// looks at it: no CEL rule but transition rules (which need an old
// object), no count of properties, every object on the way there before.
// Checking only the value spares the schema's every other field.
func (v *KindValidator) Value(path []string, value any) field.ErrorList {
	if v.err != nil {
		return field.ErrorList{field.InternalError(nil, v.err)}
	}
	fldPath := field.NewPath("spec", path...)
	check, ok := v.values[fldPath.String()]
	if !ok {
		schema, structural := v.openapi.Properties["spec"], v.structural.Properties["spec"]
		for _, seg := range path {
			schema, structural = schema.Properties[seg], structural.Properties[seg]
		}
		check = valueValidator{
			schema:     apivalidation.NewRatchetingSchemaValidator(&schema, nil, fldPath.String(), strfmt.Default),
			structural: &structural,
			rules:      cel.NewValidator(&structural, false, celconfig.PerCallLimit),
		}
		v.values[fldPath.String()] = check
	}
	errs := apivalidation.ValidateCustomResource(nil, value, check.schema)
	celErrs, _ := check.rules.Validate(context.Background(), fldPath, check.structural, value, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// StructuralOf is the structural schema of the CRD's version, the API
// server's own form of it.
func StructuralOf(crd *apiextensionsv1.CustomResourceDefinition) (*structuralschema.Structural, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(&internal)
}

func sampleValue(f Field) (any, bool) {
	if f.Default != nil {
		return TypedDefault(f), true
	}
	e, err := f.Type.parse()
	if err != nil {
		return nil, false
	}
	return compositeSample(e, f, true)
}

// TypedDefault is the default as the JSON type the schema declares.
func TypedDefault(f Field) any {
	v, _ := parseDefault(f)
	return v
}

// conventionalSample is a sample value of a top-level field the children
// take by convention where "example" would not do, or "".
func conventionalSample(name string) string {
	switch name {
	case "schedule":
		return "@hourly"
	case "host":
		return "example.com"
	}
	return ""
}

// sampleString is the first enum value, else a common word or, failing
// those, a string built from the pattern, fitted to the length bounds.
func sampleString(f Field) (any, bool) {
	if len(f.Enum) > 0 {
		return f.Enum[0], true
	}
	candidates := []string{"example", "a", "1", "example-1", "example.com", "A"}
	if c := conventionalSample(f.Name); c != "" {
		// The children take the field by convention: a value they accept.
		candidates = append([]string{c}, candidates...)
	}
	if example, ok := patternExample(f.Pattern); ok && f.Pattern != "" {
		candidates = append(candidates, example)
	}
	for _, c := range candidates {
		if f.MinLength != nil && int64(len(c)) < *f.MinLength {
			c += strings.Repeat("x", int(*f.MinLength)-len(c))
		}
		if r := []rune(c); f.MaxLength != nil && int64(len(r)) > *f.MaxLength {
			c = string(r[:*f.MaxLength])
		}
		n := int64(utf8.RuneCountInString(c))
		if (f.MinLength != nil && n < *f.MinLength) || (f.MaxLength != nil && n > *f.MaxLength) {
			continue
		}
		if f.Pattern == "" || regexp.MustCompile(f.Pattern).MatchString(c) {
			return c, true
		}
	}
	return nil, false
}
