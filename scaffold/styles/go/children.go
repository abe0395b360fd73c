package golang

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/naming"
)

// goLeaf is one spec field as a child builder reads it, written out for
// the kind's Go types.
type goLeaf struct {
	api.Field
	// Guard is when the object sets the field ("" when it always does:
	// a required field outside optional objects).
	Guard string
	// Expr is the field in the object (database.Spec.Backup.Schedule),
	// Value its value (*database.Spec.Backup.Schedule), Int32 an integer's
	// value as an int32, and Text the value as the children hold it
	// (render.FieldText).
	Expr, Value, Int32, Text string
	// Filled is when the object sets a list or a map and it is not empty.
	Filled string
}

// goChild is an owned kind's builder: a user-owned file of the kind's
// controller package.
type goChild struct {
	api.ChildKind
	// Func builds the child (databaseConfigMap); Var holds it in the
	// generated wiring (configMap); File is the builder's file.
	Func, Var, File string
	// GoPkg is the import alias of the kind's Go package (goPackage);
	// Unstructured: it has none in client-go (a ServiceMonitor), so its
	// builder returns an unstructured object.
	GoPkg        string
	Unstructured bool
	// CreateOnce: the child's spec cannot change once created (a Job).
	CreateOnce bool
	// Scaled: the owner's HorizontalPodAutoscaler sets its replicas.
	Scaled bool
	// Target is the workload an autoscaler scales.
	Target api.ChildKind
	// New is a Go expression of an empty object of the kind, List of an
	// empty list of it.
	New, List string
}

// goReserved are names a kind's variable must not take in the controller
// package: Go's keywords and predeclared names, the packages its files
// import, and the names its templates use.
var goReserved = []string{
	"any", "append", "bool", "byte", "cap", "clear", "close", "complex", "copy", "delete", "error", "false",
	"float32", "float64", "imag", "int", "int8", "int16", "int32", "int64", "iota", "len", "make", "max", "min",
	"new", "nil", "panic", "print", "println", "real", "recover", "rune", "string", "true", "uint", "uint8",
	"uint16", "uint32", "uint64", "uintptr",
	"appsv1", "appsv1ac", "autoscalingv2", "autoscalingv2ac", "batchv1", "batchv1ac", "builder", "bytes", "client",
	"context", "corev1", "corev1ac", "ctrl", "errors", "fmt", "intstr", "json", "meta", "metav1", "metav1ac",
	"networkingv1", "networkingv1ac", "policyv1", "policyv1ac", "ptr", "resource", "runtime", "sort", "strconv",
	"strings", "time", "unstructured", "apierrors",
	"child", "command", "container", "ctx", "data", "env", "err", "errs", "labels", "name", "obj", "owner", "r",
	"req", "requests", "limits", "resources", "spec", "template", "value", "values", "port", "targetPort",
}

// goVar is the name of a kind's object in its builders: the kind in
// lowerCamelCase (database), unless that name is taken.
func goVar(kind string) string {
	v := strings.ToLower(kind[:1]) + kind[1:]
	if token.IsKeyword(v) || slices.Contains(goReserved, v) {
		return v + "Obj"
	}
	return v
}

// goLeaves are the kind's values (a list of objects whole) as its
// builders read them from v.
func goLeaves(a api.API, v string) []goLeaf {
	var out []goLeaf
	for _, f := range a.Values() {
		out = append(out, newGoLeaf(a, f, v))
	}
	return out
}

func newGoLeaf(a api.API, f api.Field, v string) goLeaf {
	path := f.Path()
	expr := v + ".Spec"
	var guards []string
	for i, seg := range path[:len(path)-1] {
		expr += "." + naming.GoField(seg)
		// Nested objects are pointers (goTypes), but those declared
		// required.
		name := strings.Join(path[:i+1], ".")
		if !slices.ContainsFunc(a.Fields, func(d api.Field) bool { return d.Name == name && d.Required }) {
			guards = append(guards, expr+" != nil")
		}
	}
	expr += "." + naming.GoField(path[len(path)-1])
	l := goLeaf{Field: f, Expr: expr, Value: expr, Filled: strings.Join(append(slices.Clone(guards), "len("+expr+") > 0"), " && ")}
	switch {
	case f.Required:
	case newGoType(f.Type).Nilable():
		guards = append(guards, expr+" != nil")
	default:
		guards = append(guards, expr+" != nil")
		l.Value = "*" + expr
	}
	l.Guard = strings.Join(guards, " && ")
	l.Int32 = l.Value
	switch f.Type {
	case api.TypeString:
		l.Text = l.Value
	case api.TypeBool:
		l.Text = fmt.Sprintf("strconv.FormatBool(%s)", l.Value)
	case api.TypeInt32:
		l.Text = fmt.Sprintf("strconv.FormatInt(int64(%s), 10)", l.Value)
	case api.TypeInt64:
		l.Text = fmt.Sprintf("strconv.FormatInt(%s, 10)", l.Value)
		l.Int32 = fmt.Sprintf("int32(%s)", l.Value)
	case api.TypeQuantity, api.TypeIntOrStr:
		l.Text = expr + ".String()"
	case api.TypeDuration:
		l.Text = expr + ".Duration.String()"
	case api.TypeDatetime:
		l.Text = expr + ".UTC().Format(time.RFC3339)"
	case api.TypeBytes:
		l.Text = fmt.Sprintf("base64.StdEncoding.EncodeToString(%s)", l.Value)
	default: // numbers, lists, maps, objects: compact JSON
		l.Text = fmt.Sprintf("jsonText(%s)", l.Value)
	}
	return l
}

// goPackage is the import alias of a child kind's package in client-go,
// k8s.io/api/<group>/<version>, as kubebuilder names them (corev1,
// appsv1, networkingv1), or "" for a kind it has none of: one of a group
// outside Kubernetes' own (those have no dot or end in .k8s.io), a CRD's.
func goPackage(c api.ChildKind) string {
	switch {
	case c.Group == "":
		return "core" + c.Version
	case strings.Contains(c.Group, ".") && !strings.HasSuffix(c.Group, ".k8s.io"):
		return ""
	}
	group, _, _ := strings.Cut(c.Group, ".")
	return group + c.Version
}

// goChildren are the builders of the kind's owned kinds.
func goChildren(a api.API) []goChild {
	var out []goChild
	for _, c := range a.OwnedKinds() {
		g := goChild{ChildKind: c, Func: strings.ToLower(a.Kind[:1]) + a.Kind[1:] + c.Kind, Var: strings.ToLower(c.Kind[:1]) + c.Kind[1:],
			File: a.Singular() + "_" + c.Suffix() + ".go", GoPkg: goPackage(c), CreateOnce: !c.Mutable,
			Scaled: c.Kind == a.ScaledKind()}
		g.Unstructured = g.GoPkg == ""
		g.New, g.List = "&"+g.GoPkg+"."+c.Kind+"{}", "&"+g.GoPkg+"."+c.Kind+"List{}"
		if g.Unstructured {
			g.New = fmt.Sprintf(`&unstructured.Unstructured{Object: map[string]any{"apiVersion": %q, "kind": %q}}`, c.APIVersion(), c.Kind)
			g.List = fmt.Sprintf(`&unstructured.UnstructuredList{Object: map[string]any{"apiVersion": %q, "kind": %q}}`, c.APIVersion(), c.Kind+"List")
		}
		if c.Kind == "HorizontalPodAutoscaler" {
			g.Target, _ = api.LookupChildKind(a.ScaledKind())
		}
		out = append(out, g)
	}
	return out
}

// ownsWorkload reports whether the kind owns a kind that runs pods.
func ownsWorkload(a api.API) bool {
	return slices.ContainsFunc(a.OwnedKinds(), func(c api.ChildKind) bool { return c.Workload })
}

// goMapLines is a map[string]string variable a builder declares, and its
// entries (the goMapLines partial).
type goMapLines struct {
	Var     string
	Entries []goEntry
}

// goEntry is one key of a goMapLines, set when Guard holds; Pad aligns an
// entry of the literal (no Guard) as gofmt does.
type goEntry struct {
	Key, Guard, Text, Pad string
}

// Literal reports whether the map's literal has entries (else it is {}).
func (m goMapLines) Literal() bool {
	return slices.ContainsFunc(m.Entries, func(e goEntry) bool { return e.Guard == "" })
}

// aligned sets the padding of the literal's entries.
func (m goMapLines) aligned() goMapLines {
	var keys []string
	var at []int
	for i, e := range m.Entries {
		if e.Guard == "" {
			keys = append(keys, `"`+e.Key+`"`) // as the partial writes it
			at = append(at, i)
		}
	}
	for j, pad := range gofmtKeyPadding(keys) {
		m.Entries[at[j]].Pad = strings.Repeat(" ", pad)
	}
	return m
}

// goInt32 is an int32 variable a builder declares: Leaf's value when the
// object sets it, else Otherwise (the goInt32 partial).
type goInt32 struct {
	Name      string
	Leaf      *goLeaf
	Otherwise int
}

// goResources is a section of the container's resources (Requests,
// Limits) and the field that holds it.
type goResources struct {
	Section string
	Leaf    *goLeaf
}

// setChildren fills in what the kind's builders read.
func (a *goAPI) setChildren() {
	a.Var = goVar(a.Kind)
	leaves := goLeaves(a.API, a.Var)
	var envLeaves []goLeaf
	a.Conv, envLeaves = api.ConventionLeaves(a.API, leaves, func(l goLeaf) string { return l.Name })
	a.Children = goChildren(a.API)
	a.Workloads = ownsWorkload(a.API)
	a.DataText = goMapLines{Var: "data"}
	for _, l := range leaves {
		if !l.InData() {
			continue
		}
		a.DataText.Entries = append(a.DataText.Entries, goEntry{Key: l.Name, Guard: l.Guard, Text: l.Text})
	}
	a.DataText = a.DataText.aligned()
	a.EnvText = goMapLines{Var: "env"}
	for _, l := range envLeaves {
		a.EnvText.Entries = append(a.EnvText.Entries, goEntry{Key: l.EnvName(), Guard: l.Guard, Text: l.Text})
	}
	a.EnvText = a.EnvText.aligned()
	a.ContainerPort = goInt32{Name: "containerPort", Leaf: a.Conv.Port, Otherwise: 8080}
	a.Replicas = goInt32{Name: "replicas", Leaf: a.Conv.Replicas, Otherwise: 1}
	for _, r := range []goResources{{"Requests", a.Conv.Requests}, {"Limits", a.Conv.Limits}} {
		if r.Leaf != nil {
			a.Resources = append(a.Resources, r)
		}
	}
}

// TypedChild is the first of the kind's builders whose child is of a
// client-go type, which a fake client holds without a scheme of the
// test's own, or nil.
func (a goAPI) TypedChild() *goChild {
	for i, c := range a.Children {
		if !c.Unstructured {
			return &a.Children[i]
		}
	}
	return nil
}
