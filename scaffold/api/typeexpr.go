package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A field's type is an expression: a scalar of the type table (string,
// int32, quantity...), a list of any type ([]T), a map from strings to any
// type (map[string]T), an object (object: its fields are the fields named
// below it, or, with none, any object), any JSON value (any), or a
// Kubernetes type by name (core/v1.ResourceRequirements). Lists and maps
// nest: map[string][]quantity.

// exprKind is what a type expression is at its top.
type exprKind int

const (
	exprScalar exprKind = iota
	exprList
	exprMap
	exprObject
	exprAny
	exprKube
	// exprRaw is a field's own schema (TypeSchema).
	exprRaw
)

// typeExpr is a parsed FieldType.
type typeExpr struct {
	kind exprKind
	// row is a scalar's row of the type table.
	row typeRow
	// elem is a list's item or a map's value.
	elem *typeExpr
	// kube is a Kubernetes type's row.
	kube kubeType
}

const (
	listPrefix = "[]"
	mapPrefix  = "map[string]"
	// TypeObject is an object: the fields named below it (issuerRef.name)
	// are its properties; without any, it holds any object (free-form
	// configuration, x-kubernetes-preserve-unknown-fields).
	TypeObject FieldType = "object"
	// TypeAny is any JSON value.
	TypeAny FieldType = "any"
	// TypeSchema is a field whose schema is its own (Field.Schema), taken
	// whole from a CRD.
	TypeSchema FieldType = "schema"
)

// typeAliases are other spellings of a type, as users of other tools
// write them; a field holds the canonical one.
var typeAliases = map[string]FieldType{"json": TypeAny, "float": TypeNumber, "float64": TypeNumber}

// parse reads the type expression t.
func (t FieldType) parse() (typeExpr, error) {
	s := string(t)
	switch {
	case strings.HasPrefix(s, listPrefix):
		elem, err := FieldType(s[len(listPrefix):]).parse()
		return typeExpr{kind: exprList, elem: &elem}, err
	case strings.HasPrefix(s, mapPrefix):
		elem, err := FieldType(s[len(mapPrefix):]).parse()
		return typeExpr{kind: exprMap, elem: &elem}, err
	case t == TypeObject:
		return typeExpr{kind: exprObject}, nil
	case t == TypeAny:
		return typeExpr{kind: exprAny}, nil
	case t == TypeSchema:
		return typeExpr{kind: exprRaw}, nil
	}
	if a, ok := typeAliases[s]; ok {
		return a.parse()
	}
	for _, r := range fieldTypeTable {
		if r.t == t {
			return typeExpr{kind: exprScalar, row: r}, nil
		}
	}
	if k, ok := lookupKubeType(s); ok {
		return typeExpr{kind: exprKube, kube: k}, nil
	}
	return typeExpr{}, fmt.Errorf("unknown type %q (%s)", s, typesHelp())
}

// Canonical is the type as a field holds it: aliases (json,
// corev1.ResourceRequirements) spelled as opctl spells them (any,
// core/v1.ResourceRequirements).
func (t FieldType) Canonical() FieldType {
	s := string(t)
	var prefix string
	for {
		switch {
		case strings.HasPrefix(s, listPrefix):
			prefix, s = prefix+listPrefix, s[len(listPrefix):]
			continue
		case strings.HasPrefix(s, mapPrefix):
			prefix, s = prefix+mapPrefix, s[len(mapPrefix):]
			continue
		}
		break
	}
	if a, ok := typeAliases[s]; ok {
		return FieldType(prefix) + a
	}
	if k, ok := lookupKubeType(s); ok {
		return FieldType(prefix + k.Name)
	}
	return t
}

// innermost is the scalar, object, any or Kubernetes type at the bottom of
// lists and maps.
func (e typeExpr) innermost() typeExpr {
	for e.elem != nil {
		e = *e.elem
	}
	return e
}

// container reports whether the type is a list or a map.
func (e typeExpr) container() bool { return e.kind == exprList || e.kind == exprMap }

// IsList reports whether fields of the type are lists.
func (t FieldType) IsList() bool { return strings.HasPrefix(string(t), listPrefix) }

// IsMap reports whether fields of the type are maps.
func (t FieldType) IsMap() bool { return strings.HasPrefix(string(t), mapPrefix) }

// Elem is the type of a list's items or a map's values ("" for others).
func (t FieldType) Elem() FieldType {
	switch {
	case t.IsList():
		return t[len(listPrefix):]
	case t.IsMap():
		return t[len(mapPrefix):]
	}
	return ""
}

// IsObject reports whether fields of the type are objects (TypeObject).
func (t FieldType) IsObject() bool { return t == TypeObject }

// Kube is the Kubernetes type at the bottom of the type's lists and maps,
// if it is one (core/v1.Toleration for []core/v1.Toleration).
func (t FieldType) Kube() (KubeType, bool) {
	e, err := t.parse()
	if err != nil || e.innermost().kind != exprKube {
		return KubeType{}, false
	}
	k := e.innermost().kube
	return KubeType{Name: k.Name, Package: k.Package, GoName: k.GoName}, true
}

// Scalar is the scalar type at the bottom of the type's lists and maps,
// if there is one (quantity for map[string]quantity).
func (t FieldType) Scalar() (FieldType, bool) {
	e, err := t.parse()
	if err != nil || e.innermost().kind != exprScalar {
		return "", false
	}
	return e.innermost().row.t, true
}

// typesHelp describes the types for an error that lists them.
func typesHelp() string {
	return "types: " + joinTypes() + ", object, any, []TYPE, map[string]TYPE, or a Kubernetes type such as " + exampleKubeTypes()
}

// UnmarshalJSON reads a type as a field holds it (Canonical), from a
// project file or a --from file.
func (t *FieldType) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = FieldType(s).Canonical()
	return nil
}
