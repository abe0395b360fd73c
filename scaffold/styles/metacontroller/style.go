// Package metacontroller is the metacontroller style: a declarative sync
// hook (spec in, children out) behind a CompositeController.
package metacontroller

import (
	"embed"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles/hookserver"
	"github.com/opctl/opctl/scaffold/styles/python"
)

//go:embed all:templates
var files embed.FS

// Style is the metacontroller style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name:            "metacontroller",
		Pins:            []string{"actionsSetupPython", "devContainerPython", "metacontroller", "python", "pythonImage"},
		Ownership:       "Metacontroller sets each child's controller ownerReference and deletes a child the sync hook no longer returns",
		Finalizers:      "Metacontroller adds one when the CompositeController has a finalize hook",
		ConformanceTest: "$(PYTHON) -m pytest -q tests/test_conformance.py",
		Checklist: checklist.Profile{
			Languages:   []checklist.Language{python.Language()},
			ScaleAdvice: hookserver.ScaleAdvice,
			Comparison: checklist.Comparison{Language: "any (HTTP webhook)", LearningCurve: "gentle: one pure function, JSON in and out",
				Expressiveness: "declarative: desired children from the parent", Performance: "good: Metacontroller does watches and applies",
				Idempotency: "Metacontroller: it diffs and applies what the hook returns",
				Maturity:    "stable, community-maintained", BestFit: "spec → children mappings without external calls"},
			Points: map[string]int{"new-crd=yes": 1, "new-crd=no": -8, "stage=prototype": 2, "scale=small": 1,
				"language=python": 1, "language=other": 3,
				"logic=declarative": 5, "logic=imperative": -1, "maintainers=no": 2},
			Reasons: map[string]string{
				"stage=prototype":   "a prototype: a Metacontroller sync hook is one pure function",
				"language=other":    "another language: a Metacontroller sync hook is a plain HTTP webhook in any language",
				"logic=declarative": "declarative: Metacontroller computes the diff and applies the children for you",
				"maintainers=no":    "maintainers outside the team: one pure sync function is the least code to maintain",
			},
			// The hook is a plain webhook in any language, but opctl writes it
			// in Python: a Go team maintains it in Go only by rewriting it,
			// so Go gets no points here.
			MaintainerPoints: map[string]int{"other": 4, "python": 2},
		},
		Resync:    true,
		CheckName: python.CheckName,
		// Metacontroller serves the CRDs of its parents by the API server
		// alone, and the project runs nothing but the sync hook.
		CannotConvert:        "Metacontroller calls the sync hook with objects the API server has already converted, and serves no CRD conversion webhook itself",
		CannotScopeNamespace: hookserver.CannotScopeNamespace,
		Summary:              "a declarative sync hook (spec in, children out) behind a Metacontroller CompositeController",
		Runtime:              hookserver.Runtime,
		Manifests:            manifests,
		Files:                addFiles,
		CI:                   hookserver.CI,
		Prerequisite:         hookserver.Prerequisite(),
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
	GenerateSelector    bool                           `json:"generateSelector"`
	ResyncPeriodSeconds int32                          `json:"resyncPeriodSeconds,omitempty"`
	ParentResource      hookserver.ResourceRule        `json:"parentResource"`
	ChildResources      []hookserver.ChildResourceRule `json:"childResources,omitempty"`
	Hooks               hookserver.Hooks               `json:"hooks"`
}

// manifests are the hook Service and one CompositeController per kind.
// Names are written as kustomize will prefix them, since the webhook URL
// is not rewritten by kustomize.
func manifests(p scaffold.Project) map[string][]any {
	files := map[string][]any{hookserver.ServicePath: {hookserver.Service(p)}}
	for _, a := range p.APIs {
		cc := &compositeController{
			TypeMeta:   metav1.TypeMeta{APIVersion: "metacontroller.k8s.io/v1alpha1", Kind: "CompositeController"},
			ObjectMeta: metav1.ObjectMeta{Name: a.Plural, Labels: render.CommonLabels(p)},
			Spec: compositeControllerSpec{
				GenerateSelector:    true,
				ResyncPeriodSeconds: p.ResyncSeconds,
				ParentResource:      hookserver.ResourceRule{APIVersion: a.FullGroup(p.Domain) + "/" + a.Version, Resource: a.Plural},
				Hooks:               hookserver.SyncHook(p, a.Plural),
			},
		}
		for _, c := range a.OwnedKinds() {
			cc.Spec.ChildResources = append(cc.Spec.ChildResources, hookserver.Child(c))
		}
		files["config/metacontroller/"+a.Plural+".yaml"] = []any{cc}
	}
	return files
}

func addFiles(p scaffold.Project, t *machinery.Tree) error {
	d := python.NewData(p, hookserver.Command(p), "sync")
	if err := hookserver.AddFiles(t, hookserver.Data{Data: d}); err != nil {
		return err
	}
	if err := python.AddPackage(t, d, d.Package+"/observed.py"); err != nil {
		return err
	}
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"), hookserver.Partials())
	r.File("README.md", "README.md.tmpl", machinery.UserOwned, hookserver.Data{Data: d})
	r.File(d.Package+"/sync.py", "pkg/sync.py.tmpl", machinery.Generated, d)
	for _, a := range d.APIs {
		r.File("tests/test_"+a.Singular()+".py", "tests/test_kind.py.tmpl", machinery.UserOwned, a)
	}
	return r.Err()
}
