package api

import (
	"encoding/base64"
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

// FieldType is the type of one spec field, as written on the command line:
// a type expression (typeexpr.go).
type FieldType string

// The scalar field types, and the lists and maps of them that have names
// of their own in opctl's code.
const (
	TypeString    FieldType = "string"
	TypeBool      FieldType = "bool"
	TypeInt32     FieldType = "int32"
	TypeInt64     FieldType = "int64"
	TypeNumber    FieldType = "number"
	TypeQuantity  FieldType = "quantity"
	TypeIntOrStr  FieldType = "int-or-string"
	TypeDuration  FieldType = "duration"
	TypeDatetime  FieldType = "datetime"
	TypeBytes     FieldType = "bytes"
	TypeStringArr FieldType = "[]string"
	TypeInt32Arr  FieldType = "[]int32"
	TypeStringMap FieldType = "map[string]string"
	// TypeObjectList is a list of objects: its objects' fields are fields
	// of their own (users[].name).
	TypeObjectList FieldType = "[]object"
)

// TextKind is how the children hold a value of a type as text (FieldText):
// a string as it is, true or false, an integer in decimal, an integer or a
// string as it is, anything else as compact JSON.
type TextKind string

// The text kinds.
const (
	TextString      TextKind = "string"
	TextBool        TextKind = "bool"
	TextInteger     TextKind = "integer"
	TextIntOrString TextKind = "int-or-string"
	TextJSON        TextKind = "json"
)

// typeRow is everything opctl knows about one scalar type: the table below
// and the type expressions over it (typeexpr.go) are the only places that
// tell the types apart.
type typeRow struct {
	t FieldType
	// help explains the type where its name does not (prompt help).
	help string
	// modifiers it takes besides required, immutable and rule (see
	// modifiers); those of itemModifiers apply to each item of a list or
	// value of a map of it.
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
	text   TextKind
}

// GoType is a scalar type in Go: its name, how DeepCopyInto copies it as a
// value ("" is a plain copy), and its package ("" for none).
type GoType struct {
	Name, ValueCopy, Import string
}

var (
	scalarModifiers = []string{"default", "column"}
	stringModifiers = []string{"default", "column", "key", "enum", "minLength", "maxLength", "pattern", "format"}
	intModifiers    = []string{"default", "column", "key", "min", "max"}
	// itemModifiers are the modifiers that, on a list or a map, apply to
	// each of its items (its values).
	itemModifiers = []string{"enum", "min", "max", "minLength", "maxLength", "pattern", "format"}
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

// exactBound is the largest bound a CRD holds exactly: its minimum and
// maximum are JSON numbers, which the API server reads as float64.
const exactBound = 1 << 53

// checkBounds checks min and max: within bits (0 for no limit) and where a
// CRD holds them exactly, and min not above max.
func checkBounds(f Field, bits int) error {
	for _, b := range []*int64{f.Min, f.Max} {
		switch {
		case b != nil && bits == 32 && (*b < math.MinInt32 || *b > math.MaxInt32):
			return fmt.Errorf("bound %d is outside int32", *b)
		case b != nil && (*b < -exactBound || *b > exactBound):
			return fmt.Errorf("bound %d is beyond ±%d (2^53): a CRD's bounds are JSON numbers, exact only up to that", *b, exactBound)
		}
	}
	if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
		return fmt.Errorf("min %d is greater than max %d", *f.Min, *f.Max)
	}
	return nil
}

// sampleInBounds is 1, else the bound that keeps the value in them.
func sampleInBounds(f Field) int64 {
	switch {
	case f.Min != nil:
		return *f.Min
	case f.Max != nil && *f.Max < 1:
		return *f.Max
	}
	return 1
}

func intRow(t FieldType, bits int) typeRow {
	return typeRow{t: t, help: fmt.Sprintf("a %d-bit integer", bits), modifiers: intModifiers, column: "integer", goType: GoType{Name: string(t)}, text: TextInteger,
		schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
			s.Type, s.Format = "integer", string(t)
			s.Minimum, s.Maximum = toFloat(f.Min), toFloat(f.Max)
		},
		parseDefault: func(f Field, d string) (any, error) {
			n, err := strconv.ParseInt(d, 10, bits)
			if err != nil {
				return nil, fmt.Errorf("default %q is not an %s", d, t)
			}
			if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
				return nil, fmt.Errorf("default %d is outside min/max", n)
			}
			return n, nil
		},
		sample: func(f Field) (any, bool) { return sampleInBounds(f), true },
		check:  func(f Field) error { return checkBounds(f, bits) },
	}
}

// fieldTypeTable is typeTable, built once: a lookup of a type's row is
// made for every field of every file.
var fieldTypeTable = typeTable()

// typeTable has one row per scalar type, in the order help shows them.
func typeTable() []typeRow {
	return []typeRow{
		{t: TypeString, help: "text", modifiers: stringModifiers, column: "string", goType: GoType{Name: "string"}, text: TextString,
			schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "string"
				for _, e := range f.Enum {
					s.Enum = append(s.Enum, jsonString(e))
				}
				s.MinLength, s.MaxLength, s.Pattern, s.Format = f.MinLength, f.MaxLength, f.Pattern, f.Format
			},
			parseDefault: func(f Field, d string) (any, error) { return d, validateStringDefault(f, d) },
			sample:       sampleString,
			check:        checkStringModifiers,
		},
		{t: TypeBool, help: "true or false", modifiers: scalarModifiers, column: "boolean", goType: GoType{Name: "bool"}, text: TextBool,
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
		{t: TypeNumber, help: "a floating-point number (0.5)", modifiers: []string{"default", "column", "min", "max"}, column: "number",
			goType: GoType{Name: "float64"}, text: TextJSON,
			schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type = "number"
				s.Minimum, s.Maximum = toFloat(f.Min), toFloat(f.Max)
			},
			parseDefault: func(f Field, d string) (any, error) {
				n, err := strconv.ParseFloat(d, 64)
				if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
					return nil, fmt.Errorf("default %q is not a number", d)
				}
				if (f.Min != nil && n < float64(*f.Min)) || (f.Max != nil && n > float64(*f.Max)) {
					return nil, fmt.Errorf("default %s is outside min/max", d)
				}
				if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
					return int64(n), nil // as the API server decodes a whole number
				}
				return n, nil
			},
			sample: func(f Field) (any, bool) {
				if (f.Min == nil || *f.Min <= 0) && (f.Max == nil || *f.Max >= 1) {
					return 0.5, true
				}
				return sampleInBounds(f), true
			},
			check: func(f Field) error { return checkBounds(f, 0) },
		},
		{t: TypeQuantity, help: "a resource quantity, like 10Gi or 500m", modifiers: scalarModifiers, column: "string",
			goType: GoType{Name: "resource.Quantity", ValueCopy: "quantity", Import: "k8s.io/apimachinery/pkg/api/resource"}, text: TextIntOrString,
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
			goType: GoType{Name: "intstr.IntOrString", Import: "k8s.io/apimachinery/pkg/util/intstr"}, text: TextIntOrString,
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
		{t: TypeDuration, help: "a duration, like 30s or 1h", modifiers: scalarModifiers, column: "string",
			goType: GoType{Name: "metav1.Duration", Import: "k8s.io/apimachinery/pkg/apis/meta/v1"}, text: TextString,
			schema: setType("string", ""),
			parseDefault: stringDefault(func(d string) bool {
				_, err := time.ParseDuration(d)
				return err == nil
			}, "a duration (e.g. 30s, 1h)"),
			sample: always("30s"),
		},
		{t: TypeDatetime, help: "a date and time (RFC 3339)", modifiers: scalarModifiers, column: "date",
			goType: GoType{Name: "metav1.Time", ValueCopy: "deepCopyInto", Import: "k8s.io/apimachinery/pkg/apis/meta/v1"}, text: TextString,
			schema: setType("string", "date-time"),
			// The API server's own date-time check: Go's RFC 3339 parser also
			// takes one-digit hours, which the CRD's schema refuses.
			parseDefault: stringDefault(strfmt.IsDateTime, "an RFC 3339 date-time"),
			sample:       always("2025-01-01T00:00:00Z"),
		},
		{t: TypeBytes, help: "binary data, base64 in JSON (format: byte)", modifiers: []string{"default", "minLength", "maxLength"}, column: "string",
			goType: GoType{Name: "[]byte", ValueCopy: "slice"}, text: TextString,
			schema: func(f Field, s *apiextensionsv1.JSONSchemaProps) {
				s.Type, s.Format = "string", "byte"
				s.MinLength, s.MaxLength = f.MinLength, f.MaxLength
			},
			parseDefault: stringDefault(func(d string) bool {
				_, err := base64.StdEncoding.DecodeString(d)
				return err == nil
			}, "base64 (e.g. ZXhhbXBsZQ==)"),
			sample: always(base64.StdEncoding.EncodeToString([]byte("example"))),
		},
	}
}

// FieldRules are the CEL rules of a field's schema (x-kubernetes-validations).
func FieldRules(f Field) apiextensionsv1.ValidationRules { return fieldSchema(f).XValidations }

// row is the type's row of the table, if it is a scalar.
func (t FieldType) row() (typeRow, bool) {
	for _, r := range fieldTypeTable {
		if r.t == t {
			return r, true
		}
	}
	return typeRow{}, false
}

func (t FieldType) known() bool {
	_, err := t.parse()
	return err == nil
}

// FieldTypes returns the types prompts offer, in the order help shows
// them: the scalar types, then the common lists, maps, objects and
// Kubernetes types.
func FieldTypes() []FieldType {
	var out []FieldType
	for _, r := range fieldTypeTable {
		out = append(out, r.t)
	}
	return append(out, TypeStringArr, TypeInt32Arr, TypeStringMap, TypeObject, TypeObjectList, TypeAny,
		"core/v1.ResourceRequirements", "[]core/v1.Toleration", "core/v1.Affinity", "[]core/v1.EnvVar",
		"meta/v1.LabelSelector")
}

// ScalarType is a scalar type and what it is.
type ScalarType struct {
	Name FieldType
	Help string
}

// ScalarTypes are the scalar types, in the order help shows them, each
// with what it is.
func ScalarTypes() []ScalarType {
	var out []ScalarType
	for _, r := range fieldTypeTable {
		out = append(out, ScalarType{Name: r.t, Help: r.help})
	}
	return out
}

// FieldTypeHelp explains the types whose names do not explain themselves.
func FieldTypeHelp() string {
	var out []string
	for _, r := range fieldTypeTable {
		if !strings.Contains(r.help, string(r.t)) && r.t != TypeString && r.t != TypeBool && r.t != TypeInt32 && r.t != TypeInt64 {
			out = append(out, fmt.Sprintf("%s is %s", r.t, r.help))
		}
	}
	out = append(out, "object holds the fields named below it (issuerRef.name), or with none any object",
		"any is any JSON value", "[]TYPE and map[string]TYPE nest", "a Kubernetes type by name (core/v1.ResourceRequirements) has its own schema")
	return strings.Join(out, "; ")
}

// everyTypeModifiers are the modifiers every type takes.
var everyTypeModifiers = []string{"required", "immutable", "rule"}

// modifierNames are the modifiers fields of the type take besides those
// every type takes.
func (t FieldType) modifierNames() []string {
	e, err := t.parse()
	if err != nil {
		return nil
	}
	switch e.kind {
	case exprScalar:
		return e.row.modifiers
	case exprObject:
		return []string{"default", "minProperties", "maxProperties"}
	case exprAny, exprKube:
		return []string{"default"}
	case exprRaw:
		return nil // its schema says all
	}
	out := []string{"default", "itemRule"}
	if e.kind == exprList {
		out = append(out, "minItems", "maxItems", "listType")
		if k := e.elem.kind; k == exprObject || k == exprKube {
			out = append(out, "mapKeys")
		}
	} else {
		out = append(out, "minProperties", "maxProperties")
	}
	if inner := e.innermost(); inner.kind == exprScalar {
		for _, m := range inner.row.modifiers {
			if slices.Contains(itemModifiers, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Allows reports whether fields of the type take a modifier.
func (t FieldType) Allows(modifier string) bool {
	return slices.Contains(everyTypeModifiers, modifier) || slices.Contains(t.modifierNames(), modifier)
}

// Text is how the children hold a value of the type as text.
func (t FieldType) Text() TextKind {
	if r, ok := t.row(); ok {
		return r.text
	}
	return TextJSON
}

// GoScalar is a scalar type in Go; ok is false for other types.
func (t FieldType) GoScalar() (GoType, bool) {
	r, ok := t.row()
	return r.goType, ok
}
