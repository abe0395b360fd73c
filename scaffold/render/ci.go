package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/yamltext"
)

// WorkflowPath is the project's CI workflow: written once, then the
// user's.
const WorkflowPath = ".github/workflows/test.yml"

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
	RunsOn         string            `json:"runs-on"`
	Permissions    map[string]string `json:"permissions"`
	TimeoutMinutes int               `json:"timeout-minutes"`
	Steps          []scaffold.CIStep `json:"steps"`
}

// kindCluster is the name the kind job's cluster gets (kind-action's
// default); its kubeconfig context is kind-<name>.
const kindCluster = "chart-testing"

// ciWorkflow is the project's workflow: its own tests (the style's ci), its
// chart, and the operator on a kind cluster, on every push to main and
// every pull request. No permission but what each job needs (reading the
// repository), the checkout keeps no credentials, and every action is
// pinned by commit.
func ciWorkflow(p scaffold.Project, ci scaffold.CI) ([]byte, error) {
	v := p.Versions
	checkout := scaffold.CIStep{Name: "Check out", Uses: v.ActionsCheckout, With: map[string]string{"persist-credentials": "false"}}
	setupHelm := scaffold.CIStep{Name: "Set up helm", Uses: v.ActionsSetupHelm, With: map[string]string{"version": v.Helm}}
	read := map[string]string{"contents": "read"}
	w := workflow{
		Name:        "test",
		On:          workflowTriggers{Push: workflowBranches{Branches: []string{"main"}}},
		Permissions: map[string]string{},
		Jobs: map[string]workflowJob{
			"test": {RunsOn: "ubuntu-24.04", Permissions: read, TimeoutMinutes: 45, Steps: append(append([]scaffold.CIStep{checkout}, ci.Setup...),
				scaffold.CIStep{Name: "Test", Run: "make " + strings.Join(ci.Targets, " ")})},
			"chart": {RunsOn: "ubuntu-24.04", Permissions: read, TimeoutMinutes: 10, Steps: []scaffold.CIStep{checkout, setupHelm,
				{Name: "Lint and render the chart", Run: "make helm-lint helm-template"},
			}},
			// The image built and loaded into kind under the name the chart
			// runs (pulled only if absent: IfNotPresent), the chart installed
			// as a team would, then test/e2e/run.sh against it.
			"e2e": {RunsOn: "ubuntu-24.04", Permissions: read, TimeoutMinutes: 30, Steps: []scaffold.CIStep{checkout, setupHelm,
				{Name: "Create a kind cluster", Uses: v.ActionsKind},
				{Name: "Install what the operator needs in the cluster", Run: "bash " + PrerequisitesScriptPath},
				{Name: "Build the image and load it into the cluster", Run: "make docker-build kind-load KIND_CLUSTER=" + kindCluster},
				{Name: "Install the chart", Run: "make helm-deploy"},
				{Name: "End-to-end test of the chart's operator", Env: map[string]string{"E2E_DEPLOY": "0"}, Run: "make test-e2e"},
				{Name: "Uninstall the chart", Run: "make helm-undeploy"},
			}},
		},
	}
	var releases []string
	for name, job := range w.Jobs {
		job.Steps = slices.Clone(job.Steps)
		for i, step := range job.Steps {
			var release string
			job.Steps[i].Uses, release, _ = strings.Cut(step.Uses, " # ")
			if release != "" {
				releases = append(releases, job.Steps[i].Uses, release)
			}
		}
		w.Jobs[name] = job
	}
	b, err := yamltext.Marshal(w)
	if err != nil {
		return nil, err
	}
	// Each action's release, in a comment after its commit as Dependabot
	// and Renovate read and update it; a commit is a plain scalar, written
	// as it is.
	for i := 0; i < len(releases); i += 2 {
		b = bytes.ReplaceAll(b, []byte("uses: "+releases[i]+"\n"), []byte("uses: "+releases[i]+" # "+releases[i+1]+"\n"))
	}
	return append([]byte("# The project's tests, its Helm chart, and the operator on a kind cluster, on\n# GitHub Actions. Yours: opctl writes it once.\n"), b...), nil
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
func devContainerFile(p scaffold.Project, ci scaffold.CI) ([]byte, error) {
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
