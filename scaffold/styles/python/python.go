// Package python is the Python base the Python styles share: the package
// name, the template data of each kind, the generated kinds table, the
// children rules (also a partial, for styles that embed them elsewhere) and
// the test fixtures.
package python

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/opctl/opctl/scaffold"
)

//go:embed templates
var files embed.FS

//go:embed partials
var partials embed.FS

// Partials holds the named template "pythonChildrenCore": the children
// rules every Python style runs, for a style to embed where it needs them.
func Partials() fs.FS { return scaffold.TemplateDir(partials, "partials") }

// Package is the project's Python package: the name with dashes as
// underscores ("db-operator" → "db_operator").
func Package(p scaffold.Project) string {
	pkg := strings.ReplaceAll(p.Name, "-", "_")
	if pkg[0] >= '0' && pkg[0] <= '9' {
		pkg = "operator_" + pkg
	}
	return pkg
}

// API is the template data of one kind in the Python styles.
type API struct {
	scaffold.API
	FullGroup     string
	Package       string
	SamplePath    string
	Owned         []scaffold.ChildKind
	OwnsConfigMap bool
	// ValidateID and MutateID are the kind's webhook paths without the
	// leading slash (Kopf serves a handler at /<its id>).
	ValidateID, MutateID string
	NameTooLong          string
	MaxNameLength        int
	DefaultedLabel       string
}

// Data is the template data of a Python project.
type Data struct {
	Project    scaffold.Project
	V          scaffold.Versions
	Package    string
	Command    []string
	APIs       []API
	Decorators []scaffold.Decorator
}

// NewData is the template data of p, whose operator runs command.
func NewData(p scaffold.Project, command []string) Data {
	d := Data{Project: p, V: p.Versions, Package: Package(p), Command: command, Decorators: p.Decorators}
	for _, a := range p.APIs {
		pa := API{API: a, FullGroup: a.FullGroup(p.Domain), Package: d.Package, SamplePath: scaffold.SamplePath(p, a), Owned: a.OwnedKinds(),
			ValidateID: strings.TrimPrefix(a.ValidatePath(p.Domain), "/"), MutateID: strings.TrimPrefix(a.MutatePath(p.Domain), "/"),
			NameTooLong: a.NameTooLong(), MaxNameLength: scaffold.MaxNameLength, DefaultedLabel: scaffold.DefaultedLabel}
		for _, c := range pa.Owned {
			pa.OwnsConfigMap = pa.OwnsConfigMap || c.Kind == "ConfigMap"
		}
		d.APIs = append(d.APIs, pa)
	}
	return d
}

// NewRenderer renders a Python style's own templates (fsys) with the
// children rules available as a partial.
func NewRenderer(t *scaffold.Tree, fsys fs.FS) *scaffold.Renderer {
	return scaffold.NewRenderer(t, fsys, Partials())
}

// AddBase adds what every Python project has: the package's __init__.py
// and the tests' conftest.py.
func AddBase(t *scaffold.Tree, d Data) error {
	r := NewRenderer(t, scaffold.TemplateDir(files, "templates"))
	r.File(d.Package+"/__init__.py", "init.py.tmpl", scaffold.UserOwned, d)
	r.File("tests/conftest.py", "conftest.py.tmpl", scaffold.UserOwned, d)
	return r.Err()
}

// AddPackage adds the base and, for projects with their own kinds, the
// generated kinds table, the pure children rules, their test against
// opctl's encoding of spec values and the runner of the conformance cases.
func AddPackage(t *scaffold.Tree, d Data) error {
	if err := AddBase(t, d); err != nil {
		return err
	}
	r := NewRenderer(t, scaffold.TemplateDir(files, "templates"))
	r.File(d.Package+"/kinds.py", "kinds.py.tmpl", scaffold.Generated, d)
	r.File(d.Package+"/children.py", "children.py.tmpl", scaffold.UserOwned, d)
	r.File("tests/test_spec_values.py", "test_spec_values.py.tmpl", scaffold.UserOwned, d)
	if len(d.APIs) > 0 {
		r.File("tests/test_conformance.py", "test_conformance.py.tmpl", scaffold.Generated, d)
	}
	return r.Err()
}
