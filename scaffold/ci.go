package scaffold

import (
	"encoding/json"
	"strings"

	"github.com/opctl/opctl/scaffold/yamltext"
)

// WorkflowPath is the project's CI workflow: written once, then the
// user's.
const WorkflowPath = ".github/workflows/test.yml"

// CI is how a project's CI workflow tests it: the style's set-up of its
// tools, then its make targets. A second job lints and renders the Helm
// chart.
type CI struct {
	Setup   []CIStep
	Targets []string
	// DevImage is the dev container's image; the Setup steps that run
	// commands set it up too.
	DevImage string
}

// CIStep is one step of a GitHub Actions job.
type CIStep struct {
	Name string            `json:"name"`
	Uses string            `json:"uses,omitempty"`
	With map[string]string `json:"with,omitempty"`
	Run  string            `json:"run,omitempty"`
}

type workflow struct {
	Name        string                 `json:"name"`
	On          workflowTriggers       `json:"on"`
	Permissions map[string]string      `json:"permissions"`
	Jobs        map[string]workflowJob `json:"jobs"`
}

type workflowTriggers struct {
	Push        workflowBranches `json:"push"`
	PullRequest struct{}         `json:"pull_request"`
}

type workflowBranches struct {
	Branches []string `json:"branches"`
}

type workflowJob struct {
	RunsOn         string   `json:"runs-on"`
	TimeoutMinutes int      `json:"timeout-minutes"`
	Steps          []CIStep `json:"steps"`
}

// ciWorkflow is the project's workflow: its own tests (the style's ci) and
// its chart, on every push to main and every pull request, with read-only
// access to the repository and actions pinned by version.
func ciWorkflow(p Project, ci CI) ([]byte, error) {
	v := p.Versions
	checkout := CIStep{Name: "Check out", Uses: v.ActionsCheckout}
	w := workflow{
		Name:        "test",
		On:          workflowTriggers{Push: workflowBranches{Branches: []string{"main"}}},
		Permissions: map[string]string{"contents": "read"},
		Jobs: map[string]workflowJob{
			"test": {RunsOn: "ubuntu-24.04", TimeoutMinutes: 45, Steps: append(append([]CIStep{checkout}, ci.Setup...),
				CIStep{Name: "Test", Run: "make " + strings.Join(ci.Targets, " ")})},
			"chart": {RunsOn: "ubuntu-24.04", TimeoutMinutes: 10, Steps: []CIStep{checkout,
				{Name: "Set up helm", Uses: v.ActionsSetupHelm, With: map[string]string{"version": v.Helm}},
				{Name: "Lint and render the chart", Run: "make helm-lint helm-template"},
			}},
		},
	}
	b, err := yamltext.Marshal(w)
	if err != nil {
		return nil, err
	}
	return append([]byte("# The project's tests and its Helm chart, on GitHub Actions. Yours: opctl\n# writes it once.\n"), b...), nil
}

// PythonCI sets up Python and installs with pip what the tests need
// (install: pip install's arguments).
func PythonCI(p Project, install string) []CIStep {
	return []CIStep{
		{Name: "Set up Python", Uses: p.Versions.ActionsSetupPython, With: map[string]string{"python-version": p.Versions.Python}},
		{Name: "Install the test tools", Run: "pip install " + install},
	}
}

// DevContainerPath is the project's dev container: written once, then the
// user's.
const DevContainerPath = ".devcontainer/devcontainer.json"

type devContainer struct {
	Name              string                    `json:"name"`
	Image             string                    `json:"image"`
	Features          map[string]map[string]any `json:"features"`
	PostCreateCommand string                    `json:"postCreateCommand,omitempty"`
}

// devContainerFile is a dev container with the project's tools (the CI
// set-up's commands), Docker for kind, and kubectl and helm.
func devContainerFile(p Project, ci CI) ([]byte, error) {
	var commands []string
	for _, s := range ci.Setup {
		if s.Run != "" {
			commands = append(commands, s.Run)
		}
	}
	d := devContainer{
		Name: p.Name, Image: ci.DevImage,
		Features: map[string]map[string]any{
			"ghcr.io/devcontainers/features/docker-in-docker:2":      {},
			"ghcr.io/devcontainers/features/kubectl-helm-minikube:1": {"helm": p.Versions.Helm, "minikube": "none"},
		},
		PostCreateCommand: strings.Join(commands, " && "),
	}
	b, err := json.MarshalIndent(d, "", "  ")
	return append(b, '\n'), err
}
