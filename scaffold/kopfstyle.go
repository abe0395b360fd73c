package scaffold

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/opctl/opctl/checklist"
)

// kopfCommand runs every handlers module of the project in standalone mode
// (no peering objects), watching all namespaces, with Kopf's liveness
// endpoint on port 8080.
func kopfCommand(p Project) []string {
	return []string{"kopf", "run", "--standalone", "--all-namespaces",
		"--liveness=http://0.0.0.0:8080/healthz", "-m", PythonPackage(p) + ".operator"}
}

func kopfStyle() Style {
	return Style{
		Name: "kopf",
		Checklist: checklist.Profile{
			Comparison: checklist.Comparison{Language: "Python", LearningCurve: "gentle: decorated Python functions",
				Expressiveness: "anything Python can do", Performance: "moderate: one Python process, higher memory",
				Idempotency: "you: handlers must be idempotent; Kopf retries and records progress",
				Maturity:    "mature, single-maintainer project", BestFit: "Python teams, glue to Python SDKs and external APIs"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -1, "stage=prototype": 2, "scale=small": 1, "scale=large": 1,
				"language=python": 4, "logic=declarative": -1, "logic=imperative": 2},
			MaintainerPoints: map[string]int{"python": 4},
		},
		Summary: "Python handlers run by Kopf: quick to write, for Python teams and glue to Python SDKs",
		Access: Access{
			// Kopf lists, watches and patches its own annotations; a child's
			// event handler gets its owner.
			Parent:     []string{"get", "list", "patch", "watch"},
			Status:     []string{"patch"},
			Finalizers: []string{"update"},
			// apply.py gets, creates and merge-patches; the child handlers watch.
			Child: func(ChildKind) []string { return []string{"create", "get", "list", "patch", "watch"} },
			Extra: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
				// Cluster-wide Kopf observes CRDs and namespaces.
				{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list", "watch"}},
				{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list", "watch"}},
			},
		},
		Runtime: func(p Project) Runtime {
			cmd := kopfCommand(p)
			return Runtime{
				Command:       cmd,
				Env:           []corev1.EnvVar{{Name: "PYTHONDONTWRITEBYTECODE", Value: "1"}},
				Ports:         []corev1.ContainerPort{{Name: "health", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				HealthPort:    8080,
				LivenessPath:  "/healthz",
				ReadinessPath: "/healthz",
				WritableDirs:  []string{"/tmp"},
			}
		},
		Files: kopfFiles,
	}
}

// PythonPackage is the project's Python package: the name with dashes as
// underscores ("db-operator" → "db_operator").
func PythonPackage(p Project) string {
	pkg := strings.ReplaceAll(p.Name, "-", "_")
	if pkg[0] >= '0' && pkg[0] <= '9' {
		pkg = "operator_" + pkg
	}
	return pkg
}

// pythonAPI is the template data of one kind in the Python styles.
type pythonAPI struct {
	API
	FullGroup     string
	Package       string
	SamplePath    string
	Owned         []ChildKind
	OwnsConfigMap bool
}

type pythonData struct {
	Project    Project
	V          Versions
	Package    string
	Command    []string
	APIs       []pythonAPI
	Decorators []Decorator
}

func newPythonData(p Project) pythonData {
	d := pythonData{Project: p, V: p.Versions, Package: PythonPackage(p), Decorators: p.Decorators}
	for _, a := range p.APIs {
		pa := pythonAPI{API: a, FullGroup: a.FullGroup(p.Domain), Package: d.Package, SamplePath: samplePath(p, a), Owned: a.OwnedKinds()}
		for _, c := range pa.Owned {
			pa.OwnsConfigMap = pa.OwnsConfigMap || c.Kind == "ConfigMap"
		}
		d.APIs = append(d.APIs, pa)
	}
	return d
}

// addPythonPackage adds the package files the Python styles share: the
// generated kinds table and the pure children rules.
func addPythonPackage(r *renderer, d pythonData) {
	pkg := d.Package + "/"
	r.file(pkg+"__init__.py", "../shared/python/init.py.tmpl", UserOwned, d)
	r.file(pkg+"kinds.py", "../shared/python/kinds.py.tmpl", Generated, d)
	r.file(pkg+"children.py", "../shared/python/children.py.tmpl", UserOwned, d)
}

func kopfFiles(p Project, t *Tree) error {
	d := newPythonData(p)
	d.Command = kopfCommand(p)
	r := renderer{style: "kopf", tree: t}
	pkg := d.Package + "/"
	r.file("requirements.txt", "requirements.txt.tmpl", UserOwned, d)
	r.file("requirements-dev.txt", "requirements-dev.txt.tmpl", UserOwned, d)
	r.file("Dockerfile", "Dockerfile.tmpl", UserOwned, d)
	r.file("Makefile", "Makefile.tmpl", UserOwned, d)
	r.file("README.md", "README.md.tmpl", UserOwned, d)
	r.file(".gitignore", "gitignore.tmpl", UserOwned, d)
	r.file(".dockerignore", "dockerignore.tmpl", UserOwned, d)
	addPythonPackage(&r, d)
	r.file(pkg+"operator.py", "pkg/operator.py.tmpl", Generated, d)
	r.file(pkg+"apply.py", "pkg/apply.py.tmpl", UserOwned, d)
	r.file("tests/conftest.py", "../shared/python/conftest.py.tmpl", UserOwned, d)
	r.file("tests/fake_api.py", "tests/fake_api.py.tmpl", UserOwned, d)
	for _, a := range d.APIs {
		r.file(pkg+"handlers_"+a.Singular()+".py", "pkg/handlers.py.tmpl", UserOwned, a)
		r.file("tests/test_"+a.Singular()+".py", "tests/test_kind.py.tmpl", UserOwned, a)
	}
	return r.err
}
