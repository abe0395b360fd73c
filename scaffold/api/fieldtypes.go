package api

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// FieldType is the type of one spec field, as written on the command line.
type FieldType string

// The field types a spec field can have.
const (
	TypeString    FieldType = "string"
	TypeBool      FieldType = "bool"
	TypeInt32     FieldType = "int32"
	TypeInt64     FieldType = "int64"
	TypeQuantity  FieldType = "quantity"
	TypeIntOrStr  FieldType = "int-or-string"
	TypeDuration  FieldType = "duration"
	TypeDatetime  FieldType = "datetime"
	TypeStringArr FieldType = "[]string"
	TypeInt32Arr  FieldType = "[]int32"
	TypeStringMap FieldType = "map[string]string"
	// TypeObjectList is a list of objects as one value (API.Values): its
	// objects' fields are fields of their own (users[].name).
	TypeObjectList FieldType = "[]object"
)

// typeRow is everything opctl knows about one field type: the table below
// is the only place that tells the types apart.
type typeRow struct {
	t FieldType
	// help explains the type where its name does not (prompt help).
	help string
	// modifiers it takes besides required (see modifiers).
	modifiers []string
	// schema sets the type's part of the field's OpenAPI schema.
	schema func(f Field, s *apiextensionsv1.JSONSchemaProps)
	// column is the printer column type.
	column string
	// parseDefault checks a default and returns it as the JSON value the
	// schema declares.
	parseDefault func(f Field, d string) (any, error)
	// sample is the sample's value without a default; ok is false when
	// none fits the field's constraints.
	sample func(f Field) (v any, ok bool)
	// check holds the type's own rules for a field, beyond its modifiers'.
	check  func(f Field) error
	goType GoType
}

// GoType is a field type in Go: its name, how DeepCopyInto copies it as a
// value (required fields) and behind a pointer (optional ones; "" is a
// plain copy), and whether it is nil when unset (then an optional field
// needs no pointer).
type GoType struct {
	Name, ValueCopy, PtrCopy string
	Nilable                  bool
}

var (
	scalarModifiers = []string{"default", "column"}
	stringModifiers = []string{"default", "column", "key", "enum", "minLength", "maxLength", "pattern"}
	intModifiers    = []string{"default", "column", "key", "min", "max"}
)

func setType(typ, format string) func(Field, *apiextensionsv1.JSONSchemaProps) {
	return func(_ Field, s *apiextensionsv1.JSONSchemaProps) { s.Type, s.Format = typ, format }
}

func always(v any) func(Field) (any, bool) { return func(Field) (any, bool) { return v, true } }

// stringDefault accepts a default that parse accepts, with what to call it.
func stringDefault(parse func(string) bool, what string) func(Field, string) (any, error) {
	return func(_ Field, d string) (any, error) {
		if !parse(d) {
			return nil, fmt.Errorf("default %q is not %s", d, what)
		}
		return d, nil
	}
}

func intRow(t FieldType, bits int) typeRow {
	return typeRow{t: t, modifiers: intModifiers, column: "integer", goType: GoType{Name: string(t), PtrCopy: "ptr"},
		schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
			s.Type, s.Format = "integer", string(f.Type)
			s.Minimum, s.Maximum = toFloat(f.Min), toFloat(f.Max)
		},
		parseDefault: func(f Field, d string) (any, error) {
			n, err := strconv.ParseInt(d, 10, bits)
			if err != nil {
				return nil, fmt.Errorf("default %q is not an %s", d, f.Type)
			}
			if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
				return nil, fmt.Errorf("default %d is outside min/max", n)
			}
			return n, nil
		},
		sample: func(f Field) (any, bool) {
			switch {
			case f.Min != nil:
				return *f.Min, true
			case f.Max != nil && *f.Max < 1:
				return *f.Max, true
			}
			return int64(1), true
		},
		check: func(f Field) error {
			for _, b := range []*int64{f.Min, f.Max} {
				if b != nil && bits == 32 && (*b < math.MinInt32 || *b > math.MaxInt32) {
					return fmt.Errorf("bound %d is outside int32", *b)
				}
			}
			if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
				return fmt.Errorf("min %d is greater than max %d", *f.Min, *f.Max)
			}
			return nil
		},
	}
}

// fieldTypeTable is typeTable, built once: a lookup of a type's row is
// made for every field of every file.
var fieldTypeTable = typeTable()

// typeTable has one row per field type, in the order help shows them.
func typeTable() []typeRow {
	return []typeRow{
		{t: TypeString, modifiers: stringModifiers, column: "string", goType: GoType{Name: "string", PtrCopy: "ptr"},
			schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "string"
				for _, e := range f.Enum {
					s.Enum = append(s.Enum, jsonString(e))
				}
				s.MinLength, s.MaxLength, s.Pattern = f.MinLength, f.MaxLength, f.Pattern
			},
			parseDefault: func(f Field, d string) (any, error) { return d, validateStringDefault(f, d) },
			sample:       sampleString,
			check:        checkStringModifiers,
		},
		{t: TypeBool, modifiers: scalarModifiers, column: "boolean", goType: GoType{Name: "bool", PtrCopy: "ptr"},
			schema: setType("boolean", ""),
			parseDefault: func(_ Field, d string) (any, error) {
				if d != "true" && d != "false" {
					return nil, fmt.Errorf("default %q is not true or false", d)
				}
				return d == "true", nil
			},
			sample: always(false),
		},
		intRow(TypeInt32, 32),
		intRow(TypeInt64, 64),
		{t: TypeQuantity, help: "int-or-string like 10Gi", modifiers: scalarModifiers, column: "string",
			goType: GoType{Name: "resource.Quantity", ValueCopy: "quantity", PtrCopy: "ptrQuantity"},
			schema: func(_ Field, s *apiextensionsv1.JSONSchemaProps) {
				s.AnyOf = []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}
				s.Pattern = quantityPattern
				s.XIntOrString = true
			},
			parseDefault: stringDefault(func(d string) bool {
				_, err := resource.ParseQuantity(d)
				return err == nil && quantityRE().MatchString(d)
			}, "a quantity (e.g. 10Gi, 500m)"),
			sample: always("1Gi"),
		},
		{t: TypeIntOrStr, help: "an integer or a string, like a port (8080 or http) or a share (25%)", modifiers: scalarModifiers, column: "string",
			goType: GoType{Name: "intstr.IntOrString", PtrCopy: "ptrValue"},
			schema: func(_ Field, s *apiextensionsv1.JSONSchemaProps) {
				s.AnyOf = []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}
				s.XIntOrString = true
			},
			// A default that reads as an integer is one, as in Kubernetes'
			// own IntOrString.
			parseDefault: func(_ Field, d string) (any, error) {
				if n, err := strconv.ParseInt(d, 10, 32); err == nil {
					return n, nil
				}
				return d, nil
			},
			sample: always(int64(1)),
		},
		{t: TypeDuration, modifiers: scalarModifiers, column: "string", goType: GoType{Name: "metav1.Duration", PtrCopy: "ptr"},
			schema: setType("string", ""),
			parseDefault: stringDefault(func(d string) bool {
				_, err := time.ParseDuration(d)
				return err == nil
			}, "a duration (e.g. 30s, 1h)"),
			sample: always("30s"),
		},
		{t: TypeDatetime, help: "RFC 3339", modifiers: scalarModifiers, column: "date",
			goType: GoType{Name: "metav1.Time", ValueCopy: "time", PtrCopy: "ptrTime"},
			schema: setType("string", "date-time"),
			// The API server's own date-time check: Go's RFC 3339 parser also
			// takes one-digit hours, which the CRD's schema refuses.
			parseDefault: stringDefault(strfmt.IsDateTime, "an RFC 3339 date-time"),
			sample:       always("2025-01-01T00:00:00Z"),
		},
		{t: TypeStringArr, column: "string", goType: GoType{Name: "[]string", ValueCopy: "slice", Nilable: true},
			schema: func(_ Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "array"
				s.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}
			},
			sample: func(Field) (any, bool) { return []any{"example"}, true },
		},
		{t: TypeInt32Arr, column: "string", goType: GoType{Name: "[]int32", ValueCopy: "slice", Nilable: true},
			schema: func(_ Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "array"
				s.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32"}}
			},
			sample: func(Field) (any, bool) { return []any{int64(1)}, true },
		},
		{t: TypeStringMap, column: "string", goType: GoType{Name: "map[string]string", ValueCopy: "map", Nilable: true},
			schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "object"
				s.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}
			},
			sample: func(Field) (any, bool) { return map[string]any{"example": "value"}, true },
		},
	}
}

// FieldRules are the CEL rules of a field's schema (x-kubernetes-validations).
func FieldRules(f Field) apiextensionsv1.ValidationRules { return fieldSchema(f).XValidations }

// row is the type's row of the table; ok is false for an unknown type.
func (t FieldType) row() (typeRow, bool) {
	for _, r := range fieldTypeTable {
		if r.t == t {
			return r, true
		}
	}
	return typeRow{}, false
}

func (t FieldType) known() bool {
	_, ok := t.row()
	return ok
}

// FieldTypes returns every field type in the order help text shows them.
func FieldTypes() []FieldType {
	var out []FieldType
	for _, r := range fieldTypeTable {
		out = append(out, r.t)
	}
	return out
}

// FieldTypeHelp explains the types whose names do not explain themselves.
func FieldTypeHelp() string {
	var out []string
	for _, r := range fieldTypeTable {
		if r.help != "" {
			out = append(out, fmt.Sprintf("%s is %s", r.t, r.help))
		}
	}
	return strings.Join(out, "; ")
}

// everyTypeModifiers are the modifiers every type takes.
var everyTypeModifiers = []string{"required", "immutable", "rule"}

// Allows reports whether fields of the type take a modifier.
func (t FieldType) Allows(modifier string) bool {
	r, _ := t.row()
	return slices.Contains(everyTypeModifiers, modifier) || slices.Contains(r.modifiers, modifier)
}

// Go is the field type in Go.
func (t FieldType) Go() GoType {
	if t == TypeObjectList {
		return GoType{Nilable: true}
	}
	r, _ := t.row()
	return r.goType
}
