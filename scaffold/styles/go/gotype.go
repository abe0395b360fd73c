package golang

import (
	"fmt"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
)

// goType is a field's type in Go, as kubebuilder projects declare it:
// the scalars as the type table says, lists as slices, maps as maps, an
// object with no fields of its own as runtime.RawExtension, any value (and
// a field of type schema) as apiextensionsv1.JSON, and a Kubernetes type as itself (corev1.Toleration).
type goType struct {
	// Name is the type in Go.
	Name string
	// copy is how a value of it is deep-copied.
	copy copyKind
	// elem is a slice's item or a map's value, elem0 its name as the
	// type's name ends with it.
	elem  *goType
	elem0 string
	// scalar: the type of a scalar of the type table ([]byte too).
	scalar bool
	// Imports are the packages it names.
	Imports []goImport
}

// copyKind is how a value is deep-copied.
type copyKind int

const (
	// copyPlain: assignment copies it (a string, an IntOrString).
	copyPlain copyKind = iota
	// copyValue: x.DeepCopy() returns a copy (a resource.Quantity).
	copyValue
	// copyInto: x.DeepCopyInto(&y) copies it (a struct of pointers).
	copyInto
	copySlice
	copyMap
)

// Nilable reports whether the type is nil when unset (a slice, a map): an
// optional field of it needs no pointer.
func (t goType) Nilable() bool { return t.copy == copySlice || t.copy == copyMap }

// newGoType is the Go type of a field type.
func newGoType(t api.FieldType) goType {
	switch {
	case t.IsList():
		elem := newGoType(t.Elem())
		return goType{Name: "[]" + elem.Name, copy: copySlice, elem: &elem, elem0: elem.Name, Imports: elem.Imports}
	case t.IsMap():
		elem := newGoType(t.Elem())
		return goType{Name: "map[string]" + elem.Name, copy: copyMap, elem: &elem, elem0: elem.Name, Imports: elem.Imports}
	case t.IsObject():
		return goType{Name: "runtime.RawExtension", copy: copyInto, Imports: []goImport{{"", "k8s.io/apimachinery/pkg/runtime"}}}
	case t == api.TypeAny, t == api.TypeSchema:
		// A schema taken whole from a CRD is held as its JSON: the CRD
		// opctl writes keeps the schema, which the API server checks.
		return goType{Name: "apiextensionsv1.JSON", copy: copyInto, Imports: []goImport{{"apiextensionsv1", "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"}}}
	}
	if k, ok := t.Kube(); ok {
		return goType{Name: k.GoAlias() + "." + k.GoName, copy: copyInto, Imports: []goImport{{k.GoAlias(), k.Package}}}
	}
	s, _ := t.GoScalar()
	g := goType{Name: s.Name, scalar: true}
	switch s.ValueCopy {
	case "quantity":
		g.copy = copyValue
	case "deepCopyInto":
		g.copy = copyInto
	case "slice":
		byteType := goType{Name: "byte"}
		g.copy, g.elem = copySlice, &byteType
	}
	if s.Import != "" {
		alias := ""
		if strings.HasSuffix(s.Import, "/meta/v1") {
			alias = "metav1"
		}
		g.Imports = []goImport{{alias, s.Import}}
	}
	return g
}

// fieldCopy is the code DeepCopyInto copies a field with, in.F to out.F,
// where ptr says the field is a pointer to t; "" when *out = *in has.
func fieldCopy(name string, t goType, ptr bool) string {
	in, out := "in."+name, "out."+name
	var b strings.Builder
	switch {
	case ptr:
		// As controller-gen writes them.
		fmt.Fprintf(&b, "\tif %s != nil {\n\t\tin, out := &%s, &%s\n", in, in, out)
		switch t.copy {
		case copyValue:
			b.WriteString("\t\tx := (*in).DeepCopy()\n\t\t*out = &x\n")
		case copyInto:
			fmt.Fprintf(&b, "\t\t*out = new(%s)\n\t\t(*in).DeepCopyInto(*out)\n", t.Name)
		default:
			fmt.Fprintf(&b, "\t\t*out = new(%s)\n", t.Name)
			writeCopy(&b, "**out", "**in", t, 2, 0)
		}
		b.WriteString("\t}\n")
	case t.copy == copyPlain:
		return ""
	case t.copy == copySlice || t.copy == copyMap:
		fmt.Fprintf(&b, "\tif %s != nil {\n\t\tin, out := &%s, &%s\n", in, in, out)
		writeCopy(&b, "*out", "*in", t, 2, 0)
		b.WriteString("\t}\n")
	default:
		writeCopy(&b, out, in, t, 1, 0)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// writeCopy writes the statements that copy src, a non-nil value of type
// t, into dst, indented by tabs; depth names the loop variables apart.
func writeCopy(b *strings.Builder, dst, src string, t goType, tabs, depth int) {
	ind := strings.Repeat("\t", tabs)
	switch t.copy {
	case copyPlain:
		fmt.Fprintf(b, "%s%s = %s\n", ind, dst, src)
	case copyValue:
		fmt.Fprintf(b, "%s%s = %s.DeepCopy()\n", ind, dst, paren(src))
	case copyInto:
		fmt.Fprintf(b, "%s%s.DeepCopyInto(&%s)\n", ind, paren(src), dst)
	case copySlice:
		fmt.Fprintf(b, "%s%s = make(%s, len(%s))\n", ind, dst, t.Name, src)
		if t.elem.copy == copyPlain {
			fmt.Fprintf(b, "%scopy(%s, %s)\n", ind, dst, src)
			return
		}
		i := loopVar("i", depth)
		fmt.Fprintf(b, "%sfor %s := range %s {\n", ind, i, src)
		item := func(s string) string { return paren(s) + "[" + i + "]" }
		if t.elem.Nilable() {
			fmt.Fprintf(b, "%s\tif %s != nil {\n", ind, item(src))
			writeCopy(b, item(dst), item(src), *t.elem, tabs+2, depth+1)
			fmt.Fprintf(b, "%s\t}\n", ind)
		} else {
			writeCopy(b, item(dst), item(src), *t.elem, tabs+1, depth+1)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	case copyMap:
		key, val := loopVar("key", depth), loopVar("val", depth)
		fmt.Fprintf(b, "%s%s = make(%s, len(%s))\n", ind, dst, t.Name, src)
		fmt.Fprintf(b, "%sfor %s, %s := range %s {\n", ind, key, val, src)
		entry := paren(dst) + "[" + key + "]"
		switch t.elem.copy {
		case copyPlain:
			fmt.Fprintf(b, "%s\t%s = %s\n", ind, entry, val)
		case copyValue:
			fmt.Fprintf(b, "%s\t%s = %s.DeepCopy()\n", ind, entry, val)
		case copyInto:
			fmt.Fprintf(b, "%s\t%s = *%s.DeepCopy()\n", ind, entry, val)
		default:
			outVal := loopVar("outVal", depth)
			fmt.Fprintf(b, "%s\tvar %s %s\n%s\tif %s != nil {\n", ind, outVal, t.elem.Name, ind, val)
			writeCopy(b, outVal, val, *t.elem, tabs+2, depth+1)
			fmt.Fprintf(b, "%s\t}\n%s\t%s = %s\n", ind, ind, entry, outVal)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

// paren parenthesizes a dereference that an index or a selector follows.
func paren(s string) string {
	if strings.HasPrefix(s, "*") {
		return "(" + s + ")"
	}
	return s
}

// loopVar is a loop variable's name at depth: i, i1, i2.
func loopVar(name string, depth int) string {
	if depth == 0 {
		return name
	}
	return fmt.Sprintf("%s%d", name, depth)
}
