package scaffold

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/opctl/opctl/checklist"
)

// hookPort is where the Python hook server listens.
const hookPort = 8080

func metacontrollerCommand(p Project) []string {
	return []string{"python", "-m", PythonPackage(p) + ".server"}
}

func metacontrollerStyle() Style {
	return Style{
		Name: "metacontroller",
		Checklist: checklist.Profile{
			Comparison: checklist.Comparison{Language: "any (HTTP webhook)", LearningCurve: "gentle: one pure function, JSON in and out",
				Expressiveness: "declarative: desired children from the parent", Performance: "good: Metacontroller does watches and applies",
				Idempotency: "Metacontroller: it diffs and applies what the hook returns",
				Maturity:    "stable, community-maintained", BestFit: "spec → children mappings without external calls"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -8, "stage=prototype": 2, "scale=small": 1,
				"language=go": 1, "language=python": 1, "language=other": 3,
				"logic=declarative": 5, "logic=imperative": -1, "maintainers=no": 2},
			// The hook is a plain webhook: Go and Python teams can write it too.
			MaintainerPoints: map[string]int{"other": 4, "go": 2, "python": 2},
		},
		Resync:  true,
		Summary: "a declarative sync hook (spec in, children out) behind a Metacontroller CompositeController",
		// Metacontroller makes every API call with its own account: the hook
		// server needs no RBAC at all.
		Runtime: func(p Project) Runtime {
			return Runtime{
				Command:       metacontrollerCommand(p),
				Env:           []corev1.EnvVar{{Name: "PORT", Value: fmt.Sprint(hookPort)}},
				Ports:         []corev1.ContainerPort{{Name: "http", ContainerPort: hookPort, Protocol: corev1.ProtocolTCP}},
				HealthPort:    hookPort,
				LivenessPath:  "/healthz",
				ReadinessPath: "/healthz",
			}
		},
		Manifests: metacontrollerManifests,
		Files:     metacontrollerFiles,
	}
}

// The subset of Metacontroller's CompositeController (metacontroller.k8s.io/v1alpha1)
// that opctl writes.
type compositeController struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              compositeControllerSpec `json:"spec"`
}

type compositeControllerSpec struct {
	// GenerateSelector makes Metacontroller select children by a
	// controller-uid label it adds; without it the parent needs a
	// spec.selector, which opctl's CRDs do not have, and nothing syncs.
	GenerateSelector    bool                `json:"generateSelector"`
	ResyncPeriodSeconds int32               `json:"resyncPeriodSeconds,omitempty"`
	ParentResource      resourceRule        `json:"parentResource"`
	ChildResources      []childResourceRule `json:"childResources,omitempty"`
	Hooks               controllerHooks     `json:"hooks"`
}

type resourceRule struct {
	APIVersion string `json:"apiVersion"`
	Resource   string `json:"resource"`
}

type childResourceRule struct {
	resourceRule   `json:",inline"`
	UpdateStrategy updateStrategy `json:"updateStrategy"`
}

type updateStrategy struct {
	Method string `json:"method"`
}

type controllerHooks struct {
	Sync hookRef `json:"sync"`
}

type hookRef struct {
	Webhook webhook `json:"webhook"`
}

type webhook struct {
	URL     string `json:"url"`
	Timeout string `json:"timeout"`
}

// metacontrollerManifests are the hook Service and one CompositeController
// per kind. Names are written as kustomize will prefix them, since the
// webhook URL is not rewritten by kustomize.
func metacontrollerManifests(p Project) map[string][]any {
	files := map[string][]any{"config/manager/service.yaml": {hookService(p)}}
	for _, a := range p.APIs {
		cc := &compositeController{
			TypeMeta:   metav1.TypeMeta{APIVersion: "metacontroller.k8s.io/v1alpha1", Kind: "CompositeController"},
			ObjectMeta: metav1.ObjectMeta{Name: a.Plural, Labels: commonLabels(p)},
			Spec: compositeControllerSpec{
				GenerateSelector:    true,
				ResyncPeriodSeconds: p.ResyncSeconds,
				ParentResource:      resourceRule{APIVersion: a.FullGroup(p.Domain) + "/" + a.Version, Resource: a.Plural},
				Hooks:               controllerHooks{Sync: hookRef{Webhook: hookWebhook(p, a.Plural)}},
			},
		}
		for _, c := range a.OwnedKinds() {
			// InPlace: the default, OnDelete, never updates a child.
			cc.Spec.ChildResources = append(cc.Spec.ChildResources, childResourceRule{
				resourceRule: resourceRule{APIVersion: c.APIVersion(), Resource: c.Resource}, UpdateStrategy: updateStrategy{Method: "InPlace"}})
		}
		files["config/metacontroller/"+a.Plural+".yaml"] = []any{cc}
	}
	return files
}

// hookService fronts the hook server; kustomize names it <project>-hook.
func hookService(p Project) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "hook", Labels: commonLabels(p)},
		Spec: corev1.ServiceSpec{
			Selector: managerLabels(p),
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(hookPort), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// hookWebhook points Metacontroller at /sync/<route> of the hook Service,
// by the name kustomize gives it (kustomize does not rewrite URLs).
func hookWebhook(p Project, route string) webhook {
	return webhook{URL: fmt.Sprintf("http://%s-hook.%s/sync/%s", p.Name, p.Namespace(), route), Timeout: "10s"}
}

func metacontrollerFiles(p Project, t *Tree) error {
	d := newPythonData(p)
	d.Command = metacontrollerCommand(p)
	r := renderer{style: "metacontroller", tree: t}
	pkg := d.Package + "/"
	r.file("Dockerfile", "Dockerfile.tmpl", UserOwned, d)
	r.file("Makefile", "Makefile.tmpl", UserOwned, d)
	r.file("README.md", "README.md.tmpl", UserOwned, d)
	r.file(".gitignore", "gitignore.tmpl", UserOwned, d)
	addPythonPackage(&r, d)
	r.file(pkg+"sync.py", "pkg/sync.py.tmpl", UserOwned, d)
	r.file(pkg+"server.py", "../shared/python/server.py.tmpl", UserOwned, d)
	r.file("tests/conftest.py", "../shared/python/conftest.py.tmpl", UserOwned, d)
	for _, a := range d.APIs {
		r.file("tests/test_"+a.Singular()+".py", "tests/test_kind.py.tmpl", UserOwned, a)
	}
	return r.err
}
