package scaffold

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/checklist"
)

func metacontrollerDecoratorStyle() Style {
	s := metacontrollerStyle()
	s.Name = "metacontroller-decorator"
	s.Summary = "a sync hook behind a Metacontroller DecoratorController: attach children to existing resources, no CRD"
	s.Manifests = decoratorManifests
	s.Files = decoratorFiles
	s.ExistingKinds = true
	s.Checklist = checklist.Profile{
		Comparison: checklist.Comparison{Language: "any (HTTP webhook)", LearningCurve: "gentle: one pure function",
			Expressiveness: "adds children to existing resources", Performance: "good: Metacontroller does watches and applies",
			Idempotency: "Metacontroller", Maturity: "stable, community-maintained",
			BestFit: "extending built-in or third-party resources without a CRD"},
		Points: map[string]int{"new-crd=yes": -3, "new-crd=no": 4, "language=shell": 1, "language=other": 2,
			"logic=declarative": 2, "logic=imperative": -1, "maintainers=no": 2},
	}
	return s
}

// The subset of Metacontroller's DecoratorController that opctl writes.
type decoratorController struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              decoratorControllerSpec `json:"spec"`
}

type decoratorControllerSpec struct {
	ResyncPeriodSeconds int32               `json:"resyncPeriodSeconds,omitempty"`
	Resources           []decoratorResource `json:"resources"`
	Attachments         []childResourceRule `json:"attachments"`
	Hooks               controllerHooks     `json:"hooks"`
}

type decoratorResource struct {
	resourceRule  `json:",inline"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

func decoratorManifests(p Project) map[string][]any {
	files := map[string][]any{"config/manager/service.yaml": {hookService(p)}}
	for _, d := range p.Decorators {
		dc := &decoratorController{
			TypeMeta:   metav1.TypeMeta{APIVersion: "metacontroller.k8s.io/v1alpha1", Kind: "DecoratorController"},
			ObjectMeta: metav1.ObjectMeta{Name: d.Name, Labels: commonLabels(p)},
			Spec: decoratorControllerSpec{
				ResyncPeriodSeconds: p.ResyncSeconds,
				Resources:           []decoratorResource{{resourceRule: resourceRule{APIVersion: d.Target.APIVersion, Resource: d.Target.Resource}}},
				Hooks:               controllerHooks{Sync: hookRef{Webhook: hookWebhook(p, d.Name)}},
			},
		}
		if len(d.Selector) > 0 {
			dc.Spec.Resources[0].LabelSelector = &metav1.LabelSelector{MatchLabels: d.Selector}
		}
		for _, kind := range d.Owns {
			for _, c := range childKinds {
				if c.Kind == kind {
					dc.Spec.Attachments = append(dc.Spec.Attachments, childResourceRule{
						resourceRule: resourceRule{APIVersion: c.APIVersion(), Resource: c.Resource}, UpdateStrategy: updateStrategy{Method: "InPlace"}})
				}
			}
		}
		files["config/metacontroller/"+d.Name+".yaml"] = []any{dc}
	}
	return files
}

func decoratorFiles(p Project, t *Tree) error {
	d := newPythonData(p)
	d.Command = metacontrollerCommand(p)
	r := renderer{style: "metacontroller-decorator", tree: t}
	pkg := d.Package + "/"
	r.file("Dockerfile", "../metacontroller/Dockerfile.tmpl", UserOwned, d)
	r.file("Makefile", "../metacontroller/Makefile.tmpl", UserOwned, d)
	r.file(".gitignore", "../metacontroller/gitignore.tmpl", UserOwned, d)
	r.file("README.md", "README.md.tmpl", UserOwned, d)
	r.file(pkg+"__init__.py", "../shared/python/init.py.tmpl", UserOwned, d)
	r.file(pkg+"decorators.py", "pkg/decorators.py.tmpl", Generated, d)
	r.file(pkg+"sync.py", "pkg/sync.py.tmpl", UserOwned, d)
	r.file(pkg+"server.py", "../shared/python/server.py.tmpl", UserOwned, d)
	r.file("tests/conftest.py", "../shared/python/conftest.py.tmpl", UserOwned, d)
	for _, dec := range p.Decorators {
		r.file("tests/test_"+dec.Name+".py", "tests/test_decorator.py.tmpl", UserOwned, struct {
			Decorator
			Package string
		}{dec, d.Package})
	}
	return r.err
}
