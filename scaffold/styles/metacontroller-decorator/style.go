// Package decorator is the metacontroller-decorator style: a sync hook
// behind a DecoratorController that attaches children to existing kinds.
package decorator

import (
	"embed"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles/hookserver"
	"github.com/opctl/opctl/scaffold/styles/python"
)

//go:embed all:templates
var files embed.FS

// Style is the metacontroller-decorator style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name: "metacontroller-decorator",
		Pins: []string{"actionsSetupPython", "devContainerPython", "metacontroller", "python", "pythonImage"},
		// The attachments are the children.
		Ownership:            "Metacontroller sets each attachment's controller ownerReference and deletes one the sync hook no longer returns",
		Finalizers:           "Metacontroller adds one when the DecoratorController has a finalize hook",
		CheckName:            python.CheckName,
		CannotScopeNamespace: hookserver.CannotScopeNamespace,
		Summary:              "a sync hook behind a Metacontroller DecoratorController: attach children to existing resources, no CRD",
		Checklist: checklist.Profile{
			Languages:   []checklist.Language{python.Language()},
			ScaleAdvice: hookserver.ScaleAdvice,
			Comparison: checklist.Comparison{Language: "any (HTTP webhook)", LearningCurve: "gentle: one pure function",
				Expressiveness: "adds children to existing resources", Performance: "good: Metacontroller does watches and applies",
				Idempotency: "Metacontroller", Maturity: "stable, community-maintained",
				BestFit: "extending built-in or third-party resources without a CRD"},
			Points: map[string]int{"new-crd=yes": -3, "new-crd=no": 4, "language=shell": 1, "language=other": 2,
				"logic=declarative": 2, "logic=imperative": -1, "maintainers=no": 2},
			Reasons: map[string]string{
				"new-crd=no":        "no new CRD: a Metacontroller DecoratorController attaches children to existing resources with the least machinery",
				"logic=declarative": "declarative: Metacontroller computes the diff and applies the attachments for you",
			},
		},
		ExistingKinds: true,
		Resync:        true,
		Runtime:       hookserver.Runtime,
		Manifests:     manifests,
		Files:         addFiles,
		CI:            hookserver.CI,
		Prerequisite:  hookserver.Prerequisite(),
	}
}

// The subset of Metacontroller's DecoratorController that opctl writes.
type decoratorController struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              decoratorControllerSpec `json:"spec"`
}

type decoratorControllerSpec struct {
	ResyncPeriodSeconds int32                          `json:"resyncPeriodSeconds,omitempty"`
	Resources           []decoratorResource            `json:"resources"`
	Attachments         []hookserver.ChildResourceRule `json:"attachments"`
	Hooks               hookserver.Hooks               `json:"hooks"`
}

type decoratorResource struct {
	hookserver.ResourceRule `json:",inline"`
	LabelSelector           *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

func manifests(p scaffold.Project) map[string][]any {
	files := map[string][]any{hookserver.ServicePath: {hookserver.Service(p)}}
	for _, d := range p.Decorators {
		dc := &decoratorController{
			TypeMeta:   metav1.TypeMeta{APIVersion: "metacontroller.k8s.io/v1alpha1", Kind: "DecoratorController"},
			ObjectMeta: metav1.ObjectMeta{Name: d.Name, Labels: render.CommonLabels(p)},
			Spec: decoratorControllerSpec{
				ResyncPeriodSeconds: p.ResyncSeconds,
				Resources:           []decoratorResource{{ResourceRule: hookserver.ResourceRule{APIVersion: d.Target.APIVersion, Resource: d.Target.Resource}}},
				Hooks:               hookserver.SyncHook(p, d.Name),
			},
		}
		if len(d.Selector) > 0 {
			dc.Spec.Resources[0].LabelSelector = &metav1.LabelSelector{MatchLabels: d.Selector}
		}
		for _, kind := range d.Owns {
			if c, ok := api.LookupChildKind(kind); ok {
				dc.Spec.Attachments = append(dc.Spec.Attachments, hookserver.Child(c))
			}
		}
		files["config/metacontroller/"+d.Name+".yaml"] = []any{dc}
	}
	return files
}

func addFiles(p scaffold.Project, t *machinery.Tree) error {
	d := python.NewData(p, hookserver.Command(p), "")
	if err := hookserver.AddFiles(t, hookserver.Data{Data: d, Decorator: true}); err != nil {
		return err
	}
	if err := python.AddBase(t, d); err != nil {
		return err
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"), hookserver.Partials())
	r.File("README.md", "README.md.tmpl", machinery.UserOwned, hookserver.Data{Data: d, Decorator: true})
	r.File(d.Package+"/decorators.py", "pkg/decorators.py.tmpl", machinery.Generated, d)
	r.File(d.Package+"/sync.py", "pkg/sync.py.tmpl", machinery.UserOwned, d)
	for _, dec := range p.Decorators {
		r.File("tests/test_"+dec.Name+".py", "tests/test_decorator.py.tmpl", machinery.UserOwned, struct {
			scaffold.Decorator
			Package string
		}{dec, d.Package})
	}
	return r.Err()
}
