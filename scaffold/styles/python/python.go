// Package python is the Python base the Python styles share: the package
// Name, the template data of each kind, the generated kinds table and
// status rules, each owned kind's child builder (a user-owned module) and
// the runner of the conformance cases.
package python

import (
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

//go:embed templates
var files embed.FS

// Package is the project's Python package: the name with dashes as
// underscores ("db-operator" → "db_operator").
func Package(p scaffold.Project) string {
	pkg := strings.ReplaceAll(p.Name, "-", "_")
	if pkg[0] >= '0' && pkg[0] <= '9' {
		pkg = "operator_" + pkg
	}
	return pkg
}

// CheckName refuses a project name whose package would shadow a module
// the project imports: Python finds the project's package first, so a
// project named json (or pytest) would break its own code and tests.
func CheckName(name string) error {
	pkg := Package(scaffold.Project{Name: name})
	if slices.Contains(projectDirs, pkg) {
		return fmt.Errorf("its Python package %s would be the project's own %s directory, and the image would hold what that directory holds; choose another name", pkg, pkg)
	}
	if slices.Contains(importedModules, pkg) {
		return fmt.Errorf("its Python package %s would shadow the module %s the project imports; choose another name", pkg, pkg)
	}
	return nil
}

// projectDirs are the top-level directories a Python project of opctl's
// has besides its package: the manifests, the chart, the conformance
// cases and e2e test, the unit tests.
var projectDirs = []string{"config", "dist", "test", "tests"}

// importedModules are the top-level modules a Python project of opctl's
// may import: Python's own (sys.stdlib_module_names, 3.11 to 3.13), those
// its requirements install, and its tests' helpers.
var importedModules = strings.Fields(`abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit
audioop base64 bdb binascii bisect builtins bz2 calendar cgi cgitb chunk cmath cmd code codecs codeop
collections colorsys compileall concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes
curses dataclasses datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno
faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath getopt getpass gettext
glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress
itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap
modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator
optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath
pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline
reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd
smtplib sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics
string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile
termios textwrap this threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty
turtle turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser
winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo
kopf kubernetes yaml pytest pyflakes aiohttp
conftest fake_api kopf_stand_in observed tests`)

// API is the template data of one kind in the Python styles.
type API struct {
	api.API
	builder
	FullGroup  string
	Package    string
	SamplePath string
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
	V          pins.Versions
	Package    string
	Command    []string
	APIs       []API
	Decorators []scaffold.Decorator
	// Runtime is the style's module that makes a resource's children, as
	// its runtime gets them (desired_children), and its tests read.
	Runtime string
	// KopfStandIn: the tests run the code with a stand-in for Kopf when
	// Kopf is not installed.
	KopfStandIn bool
	// Modules are the child builders' modules; ChildResources the kinds
	// the children are of, CreateOnceKinds those whose spec cannot change
	// once created.
	Modules         []string
	ChildResources  []api.ChildKind
	CreateOnceKinds []string
}

// NewData is the template data of p, whose operator runs command, with
// runtime the module that makes a resource's children.
func NewData(p scaffold.Project, command []string, runtime string) Data {
	d := Data{Project: p, V: p.Versions, Package: Package(p), Command: command, Decorators: p.Decorators, Runtime: runtime}
	for _, a := range p.APIs {
		pa := API{API: a, builder: newBuilder(a), FullGroup: a.FullGroup(p.Domain), Package: d.Package, SamplePath: render.SamplePath(p, a),
			ValidateID: strings.TrimPrefix(a.ValidatePath(p.Domain), "/"), MutateID: strings.TrimPrefix(a.MutatePath(p.Domain), "/"),
			NameTooLong: a.NameTooLong(), MaxNameLength: api.MaxNameLength, DefaultedLabel: scaffold.DefaultedLabel}
		for _, c := range pa.Children {
			d.Modules = append(d.Modules, c.Module)
		}
		if len(a.Status) > 0 {
			d.Modules = append(d.Modules, a.Singular()+"_status")
		}
		d.APIs = append(d.APIs, pa)
	}
	for _, c := range api.ChildKinds() {
		if slices.ContainsFunc(p.APIs, func(a api.API) bool { return slices.Contains(a.Owns, c.Kind) }) {
			d.ChildResources = append(d.ChildResources, c)
			if !c.Mutable {
				d.CreateOnceKinds = append(d.CreateOnceKinds, c.Kind)
			}
		}
	}
	return d
}

// AddBase adds what every Python project has: the package's __init__.py
// and the tests' conftest.py.
func AddBase(t *machinery.Tree, d Data) error {
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"))
	r.File(d.Package+"/__init__.py", "init.py.tmpl", machinery.UserOwned, d)
	r.File("tests/conftest.py", "conftest.py.tmpl", machinery.UserOwned, d)
	return r.Err()
}

// AddPackage adds the base and, for projects with their own kinds, the
// generated kinds table and status rules, the builders of each kind's
// children (yours) and the runner of the conformance cases. compare is
// where the comparison of children with what the API server has goes: a
// module of the package, or of the tests.
func AddPackage(t *machinery.Tree, d Data, compare string) error {
	if err := AddBase(t, d); err != nil {
		return err
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"), machinery.TemplateDir(files, "templates/partials"))
	pkg := d.Package + "/"
	r.File(pkg+"kinds.py", "kinds.py.tmpl", machinery.Generated, d)
	r.File(pkg+"common.py", "common.py.tmpl", machinery.Generated, d)
	r.File(pkg+"status.py", "status.py.tmpl", machinery.Generated, d)
	r.File(compare, "compare.py.tmpl", machinery.Generated, d)
	if len(d.APIs) > 0 {
		r.File("tests/test_conformance.py", "test_conformance.py.tmpl", machinery.Generated, d)
	}
	for _, a := range d.APIs {
		if a.Workloads {
			r.File(pkg+a.Singular()+"_pods.py", "pods.py.tmpl", machinery.UserOwned, a)
		}
		for _, c := range a.Children {
			r.File(pkg+c.Module+".py", "child_"+c.Shape()+".py.tmpl", machinery.UserOwned, ChildData{a, c})
		}
		if len(a.Status) > 0 {
			r.File(pkg+a.Singular()+"_status.py", "own_status.py.tmpl", machinery.UserOwned, a)
		}
	}
	return r.Err()
}

// Language is the team language of the Python styles, for the checklist.
func Language() checklist.Language {
	return checklist.Language{Value: "python", Label: "Python", Reason: "a Python team: a style in Python can call your Python SDKs"}
}
