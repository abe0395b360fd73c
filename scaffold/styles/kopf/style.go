// Package kopf is the kopf style: Python handlers run by Kopf.
package kopf

import (
	"embed"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles/python"
)

//go:embed all:templates
var files embed.FS

// command runs every handlers module of the project in standalone mode
// (no peering objects), watching all namespaces or, namespace-scoped, the
// Deployment's own, with Kopf's liveness endpoint on port 8080.
func command(p scaffold.Project) []string {
	return []string{"kopf", "run", "--standalone", namespaces(p),
		"--liveness=http://0.0.0.0:8080/healthz", "-m", python.Package(p) + ".operator"}
}

// kopfData is the template data of the files that say how Kopf runs.
type kopfData struct {
	python.Data
	// Namespaces is kopf run's flag for the namespaces it watches.
	Namespaces string
}

// imageCommand is the image's CMD: the Deployment's command, which in a
// namespace-scoped project takes a shell to read WATCH_NAMESPACE (the
// Deployment has Kubernetes expand it instead).
func imageCommand(p scaffold.Project) []string {
	cmd := command(p)
	if !p.NamespaceScoped() {
		return cmd
	}
	cmd[slices.Index(cmd, namespaces(p))] = "--namespace=${" + scaffold.WatchNamespaceEnv + ":?is not set: the operator watches one namespace}"
	return []string{"/bin/sh", "-c", "exec " + strings.Join(cmd, " ")}
}

// namespaces is kopf run's flag for the namespaces it watches: $(VAR) is
// the variable's value both in a container's args and in make.
func namespaces(p scaffold.Project) string {
	if p.NamespaceScoped() {
		return "--namespace=$(" + scaffold.WatchNamespaceEnv + ")"
	}
	return "--all-namespaces"
}

// Where Kopf's webhook server listens and reads its certificate
// (webhooks.py), and the variable that moves the certificate (OLM mounts
// its own elsewhere).
const (
	webhookPort = 9443
	certDir     = "/webhook-certs"
	certDirEnv  = "WEBHOOK_CERT_DIR"
)

// webhookData is the template data of webhooks.py.
type webhookData struct {
	python.Data
	CertDir     string
	CertDirEnv  string
	WebhookPort int
}

// Style is the kopf style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name:            "kopf",
		Pins:            []string{"actionsSetupPython", "certManager", "devContainerPython", "kopf", "kubernetesPython", "python", "pythonImage"},
		Ownership:       "the operator's code sets each child's controller ownerReference; a child it no longer wants stays until you delete it",
		Finalizers:      "Kopf adds one for a timer, a daemon or a delete handler without optional=True, and the deletion then waits for the operator",
		ConformanceTest: "$(PYTHON) -m pytest -q tests/test_conformance.py",
		Checklist: checklist.Profile{
			Languages: []checklist.Language{python.Language()},
			Comparison: checklist.Comparison{Language: "Python", LearningCurve: "gentle: decorated Python functions",
				Expressiveness: "anything Python can do", Performance: "moderate: one Python process, higher memory",
				Idempotency: "you: handlers must be idempotent; Kopf retries and records progress",
				Maturity:    "mature, single-maintainer project", BestFit: "Python teams, glue to Python SDKs and external APIs"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -1, "stage=prototype": 2, "scale=small": 1, "scale=large": 1,
				"language=python": 4, "logic=declarative": -1, "logic=imperative": 2},
			Reasons: map[string]string{
				"stage=prototype":  "a prototype: Kopf needs the least code, a few decorated Python functions",
				"language=python":  "a Python team: Kopf handlers are plain Python and can call your Python SDKs",
				"logic=imperative": "imperative steps and external calls: a Kopf handler is any Python code",
			},
			MaintainerPoints: map[string]int{"python": 4},
		},
		CheckName: python.CheckName,
		Summary:   "Python handlers run by Kopf: quick to write, for Python teams and glue to Python SDKs",
		Access: scaffold.Access{
			// Kopf lists, watches and patches its own annotations; a child's
			// event handler gets its owner.
			Parent:     []string{"get", "list", "patch", "watch"},
			Status:     []string{"patch"},
			Finalizers: []string{"update"},
			// reconcile.py server-side applies (a patch, which creates a
			// missing child: the API server asks for create then) and gets
			// a child created once; its child handlers watch them.
			Child: func(api.ChildKind) []string { return []string{"create", "delete", "get", "list", "patch", "watch"} },
			Extra: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
				// Cluster-wide Kopf observes CRDs and namespaces.
				{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list", "watch"}},
				{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list", "watch"}},
			},
		},
		Webhooks: true,
		// Kopf's webhook server serves @kopf.on.validate and @kopf.on.mutate
		// only (nolar/kopf#956: no conversion handler).
		CannotConvert: "Kopf serves admission webhooks but has no handler for CRD conversion (nolar/kopf#956)",
		Watches:       true,
		Runtime: func(p scaffold.Project) scaffold.Runtime {
			rt := scaffold.Runtime{
				Command:       command(p),
				Env:           []corev1.EnvVar{{Name: "PYTHONDONTWRITEBYTECODE", Value: "1"}},
				Ports:         []corev1.ContainerPort{{Name: "health", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				HealthPort:    8080,
				LivenessPath:  "/healthz",
				ReadinessPath: "/healthz",
				WritableDirs:  []string{"/tmp"},
			}
			if p.Admits() {
				// webhooks.py's defaults.
				rt.Webhook = &scaffold.WebhookServer{Port: webhookPort, CertDir: certDir, CertDirEnv: certDirEnv}
			}
			return rt
		},
		Files: addFiles,
		CI: func(p scaffold.Project) scaffold.CI {
			return scaffold.CI{Setup: scaffold.PythonCI(p, "-r requirements-dev.txt"), Targets: []string{"test", "lint"},
				DevImage: p.Versions.DevContainerPython}
		},
	}
}

func addFiles(p scaffold.Project, t *machinery.Tree) error {
	d := python.NewData(p, imageCommand(p), "reconcile")
	d.KopfStandIn = true
	if err := python.AddPackage(t, d, d.Package+"/observed.py"); err != nil {
		return err
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"))
	r.Files(d, projectFiles...)
	kd := kopfData{Data: d, Namespaces: namespaces(p)}
	r.Files(kd, runtimeFiles...)
	r.Files(operatorData{d, operatorModules(p, d)}, machinery.GeneratedFile("{{.Package}}/operator.py", "pkg/operator.py.tmpl"))
	if len(d.APIs) > 0 {
		r.Files(d, reconcileFiles...)
	}
	for _, a := range d.APIs {
		r.Files(a, kindFiles...)
		if a.Admission != nil {
			r.Files(a, admissionFiles...)
		}
	}
	if p.Admits() {
		r.Files(webhookData{Data: d, CertDir: certDir, CertDirEnv: certDirEnv, WebhookPort: webhookPort}, machinery.GeneratedFile("{{.Package}}/webhooks.py", "pkg/webhooks.py.tmpl"))
	}
	for _, w := range p.Watches {
		kw, err := newKopfWatch(p, d.Package, w)
		if err != nil {
			return err
		}
		r.Files(kw, watchFiles...)
	}
	return r.Err()
}

// The project's files, by the data they are rendered with: the project's,
// the runtime's (its namespaces), once it has kinds, each kind's (and its
// admission's), each watch's.
var (
	projectFiles = []machinery.Template{
		machinery.UserFile("requirements.txt", "requirements.txt.tmpl"),
		machinery.UserFile("requirements-dev.txt", "requirements-dev.txt.tmpl"),
		machinery.UserFile(".gitignore", "gitignore.tmpl"),
		machinery.UserFile(".dockerignore", "dockerignore.tmpl"),
		machinery.GeneratedFile("tests/kopf_stand_in.py", "tests/kopf_stand_in.py.tmpl"),
		machinery.UserFile("tests/test_operator.py", "tests/test_operator.py.tmpl"),
	}
	runtimeFiles = []machinery.Template{
		machinery.UserFile("Dockerfile", "Dockerfile.tmpl"),
		machinery.UserFile("Makefile", "Makefile.tmpl"),
		machinery.UserFile("README.md", "README.md.tmpl"),
	}
	reconcileFiles = []machinery.Template{
		machinery.GeneratedFile("{{.Package}}/reconcile.py", "pkg/reconcile.py.tmpl"),
		machinery.UserFile("tests/fake_api.py", "tests/fake_api.py.tmpl"),
	}
	kindFiles = []machinery.Template{
		machinery.UserFile("{{.Package}}/handlers_{{.Singular}}.py", "pkg/handlers.py.tmpl"),
		machinery.UserFile("tests/test_{{.Singular}}.py", "tests/test_kind.py.tmpl"),
	}
	admissionFiles = []machinery.Template{
		machinery.UserFile("{{.Package}}/admission_{{.Singular}}.py", "pkg/admission.py.tmpl"),
		machinery.UserFile("tests/test_admission_{{.Singular}}.py", "tests/test_admission.py.tmpl"),
	}
	watchFiles = []machinery.Template{
		machinery.GeneratedFile("{{.Package}}/watch_{{.Ident}}.py", "pkg/watch.py.tmpl"),
		machinery.UserFile("{{.Package}}/handle_{{.Ident}}.py", "pkg/handle.py.tmpl"),
		machinery.UserFile("tests/test_watch_{{.Ident}}.py", "tests/test_watch.py.tmpl"),
	}
)

// operatorData is the template data of operator.py: the modules Kopf
// loads.
type operatorData struct {
	python.Data
	Modules []string
}

// operatorModules are the project's modules with Kopf handlers.
func operatorModules(p scaffold.Project, d python.Data) []string {
	var out []string
	for _, a := range d.APIs {
		out = append(out, "handlers_"+a.Singular())
	}
	if len(d.APIs) > 0 {
		// The children's event handlers.
		out = append(out, "reconcile")
	}
	if p.Admits() {
		out = append(out, "webhooks")
	}
	for _, w := range p.Watches {
		out = append(out, "watch_"+w.Ident())
	}
	return out
}

// kopfWatch is the template data of a watch's handler, the user's function
// and its test.
type kopfWatch struct {
	scaffold.WatchIn
	Package, Reason string
	// SelectorPy is the label selector as a Python dict.
	SelectorPy string
	// Fixture is an object the watch sees, as JSON; Message is the
	// starter's message for it.
	Fixture, Message string
}

func newKopfWatch(p scaffold.Project, pkg string, w scaffold.Watch) (kopfWatch, error) {
	kw := kopfWatch{WatchIn: p.WatchIn(w), Package: pkg, Reason: render.WatchHandledReason}
	kw.SelectorPy = "{" + render.QuotedPairs(w.Selector) + "}"
	var err error
	kw.Fixture, kw.Message, err = render.WatchStarterCase(w, "    ")
	return kw, err
}
