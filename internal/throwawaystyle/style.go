// Package throwawaystyle is a style that exists to show what adding a
// style to opctl takes: this folder, and one line in the registry
// (scaffold/styles.All), which its test adds to a copy of the registry.
// It is a kubectl loop in a bash script, with the runtime of the
// shell-operator image (bash, kubectl and jq in it), so it reuses that
// style's pin and brings no version of its own. It is not registered: it
// reconciles nothing worth running.
package throwawaystyle

import (
	"embed"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

//go:embed templates
var files embed.FS

// Style is the throw-away style.
func Style() scaffold.Style {
	return scaffold.Style{
		Name:    "throwaway",
		Summary: "a kubectl loop in a bash script, to show what adding a style takes",
		Checklist: checklist.Profile{
			Comparison: checklist.Comparison{Language: "bash", LearningCurve: "flat", Expressiveness: "what kubectl and jq do",
				Performance: "a process per object", Idempotency: "kubectl apply", Maturity: "a test fixture", BestFit: "showing how styles are added"},
			Points:           map[string]int{"language=shell": 1, "stage=prototype": 1},
			MaintainerPoints: map[string]int{"shell": 1},
		},
		Ownership:       "each child carries an owner reference to its object; Kubernetes' garbage collector removes it with the object",
		Finalizers:      "none: a deletion never waits for the loop",
		ConformanceTest: `echo "the throwaway style runs no conformance cases: it is a test fixture" >&2; exit 1`,
		Pins:            []string{"shellOperatorImage"},
		Access: scaffold.Access{Parent: []string{"get", "list", "watch"}, Status: []string{"patch"},
			Child: func(api.ChildKind) []string { return []string{"get", "list", "watch", "create", "patch"} }},
		Runtime: func(scaffold.Project) scaffold.Runtime {
			return scaffold.Runtime{Command: []string{"/bin/bash", "/loop/reconcile.sh"}}
		},
		Files: addFiles,
		CI: func(p scaffold.Project) scaffold.CI {
			return scaffold.CI{Targets: []string{"test"}, DevImage: p.Versions.DevContainerBase}
		},
	}
}

func addFiles(p scaffold.Project, t *machinery.Tree) error {
	r := render.NewRenderer(t, machinery.TemplateDir(files, "templates"))
	r.File("Makefile", "Makefile.tmpl", machinery.UserOwned, p)
	r.File("Dockerfile", "Dockerfile.tmpl", machinery.UserOwned, p)
	r.File("reconcile.sh", "reconcile.sh.tmpl", machinery.UserOwned, p)
	r.File("kinds.txt", "kinds.txt.tmpl", machinery.Generated, p)
	return r.Err()
}
