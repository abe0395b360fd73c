package api

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// What the type table does for a scalar, this file does for the other
// types: lists, maps, objects, any value and Kubernetes types.

// listTypes are the values of listType.
var listTypes = []string{"atomic", "set", "map"}

// checkContainer checks a field's type's own rules: its scalar's (the
// items' enum, bounds, pattern), then its list's or map's.
func checkContainer(f Field) error {
	e, err := f.Type.parse()
	if err != nil {
		return err
	}
	if inner := e.innermost(); inner.kind == exprScalar && inner.row.check != nil {
		if err := inner.row.check(f); err != nil {
			return err
		}
	}
	for _, b := range []struct {
		min, max   *int64
		minN, maxN string
	}{{f.MinItems, f.MaxItems, "minItems", "maxItems"}, {f.MinProperties, f.MaxProperties, "minProperties", "maxProperties"}} {
		for _, n := range []*int64{b.min, b.max} {
			if n != nil && *n < 0 {
				return fmt.Errorf("%s and %s must not be negative", b.minN, b.maxN)
			}
		}
		if b.min != nil && b.max != nil && *b.min > *b.max {
			return fmt.Errorf("%s %d is greater than %s %d", b.minN, *b.min, b.maxN, *b.max)
		}
	}
	if f.ListType != "" && !slices.Contains(listTypes, f.ListType) {
		return fmt.Errorf("listType %q is not one of %s", f.ListType, strings.Join(listTypes, ", "))
	}
	if e.kind != exprList {
		return nil
	}
	switch item := *e.elem; {
	case f.ListType == "set" && item.kind != exprScalar:
		return fmt.Errorf("listType set holds scalars (strings, numbers), not %s: use map with mapKeys, or atomic", item.typeName())
	case f.ListType == "map" && f.MapKeys == nil:
		return fmt.Errorf("listType map needs mapKeys (the fields that tell its objects apart: mapKeys=name)")
	case f.MapKeys != nil && f.ListType != "" && f.ListType != "map":
		return fmt.Errorf("mapKeys makes the list a map: drop listType=%s", f.ListType)
	}
	if item := *e.elem; item.kind == exprKube {
		s, err := KubeSchema(item.kube.Name)
		if err != nil {
			return err
		}
		for _, k := range f.MapKeys {
			if _, ok := s.Properties[k]; !ok {
				return fmt.Errorf("mapKeys: %s has no field %s", item.kube.Name, k)
			}
		}
	}
	return nil
}

// typeName is the type expression as a field names it.
func (e typeExpr) typeName() string {
	switch e.kind {
	case exprScalar:
		return string(e.row.t)
	case exprList:
		return listPrefix + e.elem.typeName()
	case exprMap:
		return mapPrefix + e.elem.typeName()
	case exprObject:
		return string(TypeObject)
	case exprAny:
		return string(TypeAny)
	case exprRaw:
		return string(TypeSchema)
	}
	return e.kube.Name
}

// parseDefault checks a field's default and returns it as the JSON value
// the schema declares: a scalar's as its row parses it, any other type's
// as JSON that the field's schema accepts.
func parseDefault(f Field) (any, error) {
	e, err := f.Type.parse()
	if err != nil {
		return nil, err
	}
	if e.kind == exprScalar {
		return e.row.parseDefault(f, *f.Default)
	}
	var v any
	if err := utiljson.Unmarshal([]byte(*f.Default), &v); err != nil {
		return nil, fmt.Errorf("default %s is not JSON (a %s's default is JSON: %s)", *f.Default, e.typeName(), jsonExample(e))
	}
	s := exprSchema(e, f, true)
	s.XValidations = nil // rules are checked with the object's (validateRules)
	if errs := validateValue(s, v); len(errs) > 0 {
		return nil, fmt.Errorf("default %s does not fit the type: %s", *f.Default, strings.TrimPrefix(errs[0].Error(), "<nil>: "))
	}
	return v, nil
}

// jsonExample is an example of JSON of a type, for the message of a
// default that is not.
func jsonExample(e typeExpr) string {
	switch e.kind {
	case exprList:
		return `["a","b"]`
	case exprMap:
		return `{"key":"value"}`
	}
	return `{"name":"value"}`
}

// validateValue checks v against schema s as the API server checks a
// custom resource's value.
func validateValue(s apiextensionsv1.JSONSchemaProps, v any) []error {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&s, &internal, nil); err != nil {
		return []error{err}
	}
	validator, _, err := apivalidation.NewSchemaValidator(&internal)
	if err != nil {
		return []error{err}
	}
	var out []error
	for _, e := range apivalidation.ValidateCustomResource(nil, v, validator) {
		out = append(out, e)
	}
	return out
}

// compositeSample is a sample value of a type that is not a scalar (or a
// scalar in a list or a map), within the field's bounds.
func compositeSample(e typeExpr, f Field, top bool) (any, bool) {
	switch e.kind {
	case exprScalar:
		return e.row.sample(f)
	case exprList:
		item, ok := compositeSample(*e.elem, f, false)
		if !ok {
			return nil, false
		}
		n := int64(1)
		if top && f.MinItems != nil {
			n = max(n, *f.MinItems)
		}
		if top && f.MaxItems != nil {
			n = min(n, *f.MaxItems)
		}
		items := make([]any, 0, n)
		for i := range n {
			items = append(items, sampleVariant(item, f, i))
		}
		return items, true
	case exprMap:
		v, ok := compositeSample(*e.elem, f, false)
		if !ok {
			return nil, false
		}
		if v == "example" {
			v = "value" // an example key to an example value
		}
		n := int64(1)
		if top && f.MinProperties != nil {
			n = max(n, *f.MinProperties)
		}
		if top && f.MaxProperties != nil {
			n = min(n, *f.MaxProperties)
		}
		out := map[string]any{}
		for i := range n {
			out[fmt.Sprintf("example%s", suffix(i))] = v
		}
		return out, true
	case exprObject, exprAny:
		return map[string]any{"example": "value"}, true
	case exprRaw:
		if f.Schema == nil {
			return nil, false
		}
		return schemaSample(*f.Schema), true
	}
	return kubeSample(e.kube.Name), true
}

// sampleVariant is the i-th item of a sample list: the enum's i-th value
// where the items have an enum, so a set's items differ, else item.
func sampleVariant(item any, f Field, i int64) any {
	if _, isString := item.(string); isString && len(f.Enum) > 0 {
		return f.Enum[int(i)%len(f.Enum)]
	}
	if s, isString := item.(string); isString && f.ListType == "set" && i > 0 {
		return s + suffix(i)
	}
	return item
}

func suffix(i int64) string {
	if i == 0 {
		return ""
	}
	return fmt.Sprint(i + 1)
}

// kubeSamples are sample values of the Kubernetes types a sample shows
// best with something in them; the others get what their schema requires.
var kubeSamples = map[string]string{
	"core/v1.ResourceRequirements":      `{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}`,
	"core/v1.Toleration":                `{"key":"example.com/dedicated","operator":"Exists","effect":"NoSchedule"}`,
	"core/v1.Affinity":                  `{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"topologyKey":"kubernetes.io/hostname"}}]}}`,
	"core/v1.EnvVar":                    `{"name":"EXAMPLE","value":"example"}`,
	"core/v1.PersistentVolumeClaimSpec": `{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}`,
	"core/v1.LocalObjectReference":      `{"name":"example"}`,
	"core/v1.SecretKeySelector":         `{"name":"example","key":"password"}`,
	"core/v1.ConfigMapKeySelector":      `{"name":"example","key":"config"}`,
	"core/v1.ContainerPort":             `{"name":"http","containerPort":8080}`,
	"core/v1.ServicePort":               `{"name":"http","port":80}`,
	"core/v1.VolumeMount":               `{"name":"data","mountPath":"/data"}`,
	"core/v1.Volume":                    `{"name":"data","emptyDir":{}}`,
	"meta/v1.LabelSelector":             `{"matchLabels":{"app.kubernetes.io/name":"example"}}`,
}

// kubeSample is a sample value of a Kubernetes type.
func kubeSample(name string) any {
	if raw, ok := kubeSamples[name]; ok {
		var v any
		_ = utiljson.Unmarshal([]byte(raw), &v)
		return v
	}
	s, _ := KubeSchema(name)
	return schemaSample(s)
}

// schemaSample is a value of schema s with what it requires: its default,
// else its required properties' samples.
func schemaSample(s apiextensionsv1.JSONSchemaProps) any {
	if s.Default != nil {
		var v any
		_ = utiljson.Unmarshal(s.Default.Raw, &v)
		return v
	}
	switch {
	case len(s.Enum) > 0:
		var v any
		_ = utiljson.Unmarshal(s.Enum[0].Raw, &v)
		return v
	case s.XIntOrString:
		return int64(1)
	}
	switch s.Type {
	case "object":
		out := map[string]any{}
		for _, name := range s.Required {
			out[name] = schemaSample(s.Properties[name])
		}
		return out
	case "array":
		if s.MinItems != nil && *s.MinItems > 0 && s.Items != nil && s.Items.Schema != nil {
			items := make([]any, *s.MinItems)
			for i := range items {
				items[i] = schemaSample(*s.Items.Schema)
			}
			return items
		}
		return []any{}
	case "string":
		return stringSample(s)
	case "integer", "number":
		n := int64(1)
		if s.Minimum != nil {
			n = int64(math.Ceil(*s.Minimum))
			if s.ExclusiveMinimum {
				n++
			}
		}
		if s.Maximum != nil && float64(n) > *s.Maximum {
			n = int64(math.Floor(*s.Maximum))
		}
		return n
	case "boolean":
		return false
	}
	return map[string]any{}
}

// stringSample is a string of schema s: of its format, else made from its
// pattern, within its length bounds.
func stringSample(s apiextensionsv1.JSONSchemaProps) string {
	f := Field{Type: TypeString, Pattern: s.Pattern, MinLength: s.MinLength, MaxLength: s.MaxLength}
	if example, ok := formatSamples[s.Format]; ok {
		return example
	}
	if v, ok := sampleString(f); ok {
		return v.(string)
	}
	return "example"
}

// formatSamples are sample strings of the formats the API server checks.
var formatSamples = map[string]string{
	"byte": "ZXhhbXBsZQ==", "date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "duration": "1h",
	"uri": "https://example.com", "email": "user@example.com", "hostname": "example.com",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "cidr": "192.0.2.0/24", "uuid": "123e4567-e89b-12d3-a456-426614174000",
	"int-or-string": "1",
}
