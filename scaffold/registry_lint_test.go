//go:build generated

package scaffold_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/render"
)

// TestGoldenScriptsPassLinters checks every Python file of every golden
// tree with pyflakes and every shell script with shellcheck.
func TestGoldenScriptsPassLinters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pyflakes and shellcheck")
	}
	py := tools.Python(t)
	tools.RequireTools(t, "shellcheck (Debian package)", "shellcheck")
	for _, tree := range goldenTrees(t) {
		dir := t.TempDir()
		var pyFiles, shFiles []string
		for _, f := range tree.Files {
			path := filepath.Join(dir, f.Name)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, f.Data, 0o755))
			switch filepath.Ext(f.Name) {
			case ".py":
				pyFiles = append(pyFiles, f.Name)
			case ".sh":
				shFiles = append(shFiles, f.Name)
			}
		}
		if len(pyFiles) > 0 {
			tools.ExecIn(t, dir, py, append([]string{"-m", "pyflakes"}, pyFiles...)...)
		}
		if len(shFiles) > 0 {
			tools.ExecIn(t, dir, "shellcheck", append([]string{"-x"}, shFiles...)...)
		}
	}
}

// goldenTrees are the golden trees, by file name.
func goldenTrees(t *testing.T) map[string]*txtar.Archive {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	trees := map[string]*txtar.Archive{}
	for _, golden := range goldens {
		tree, err := txtar.ParseFile(golden)
		require.NoError(t, err)
		trees[filepath.Base(golden)] = tree
	}
	return trees
}

// actionlintVersion is the GitHub Actions linter the workflows are checked
// with, built from the Go module proxy.
const actionlintVersion = "v1.7.12"

// TestGoldenWorkflowsPassActionlint checks every golden project's CI
// workflow with actionlint (which runs shellcheck on its scripts), and that
// the make targets it runs are the project's.
func TestGoldenWorkflowsPassActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds actionlint")
	}
	tools.RequireTools(t, "shellcheck (Debian package)", "shellcheck")
	actionlint := tools.GoInstall(t, "github.com/rhysd/actionlint/cmd/actionlint", actionlintVersion)
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			dir := writeTree(t, tree)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755), "actionlint finds the workflows from the repository root")
			tools.ExecIn(t, dir, actionlint, "-color=false", render.WorkflowPath)
			makefile, ok := tree.Get("Makefile")
			require.True(t, ok)
			workflow, _ := tree.Get(render.WorkflowPath)
			runs := 0
			for _, m := range makeRun.FindAllStringSubmatch(string(workflow.Content), -1) {
				for _, target := range strings.Fields(m[1]) {
					if !strings.Contains(target, "=") {
						runs++
						assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(target)+":", string(makefile.Content), "the workflow runs make %s", target)
					}
				}
			}
			assert.Positive(t, runs, "the workflow runs make")
		})
	}
}

// makeRun is a make command in a workflow's run: its targets and variables.
var makeRun = regexp.MustCompile(`(?m)\bmake ([^\n|&;]+)`)

// TestPrerequisitesScriptInstallsWhatIsMissing runs every golden project's
// test/e2e/prerequisites.sh against a fake kubectl: on a cluster lacking
// every CRD, it installs each prerequisite and waits for its CRD; on one
// that has them, it installs nothing.
func TestPrerequisitesScriptInstallsWhatIsMissing(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "kubectl")
	// Records each call; "get crd" answers as $HAS_CRDS says.
	require.NoError(t, os.WriteFile(fake, []byte(`#!/usr/bin/env bash
echo "$*" >>"$CALLS"
if [ "$1 $2" = "get crd" ]; then [ "$HAS_CRDS" = 1 ]; exit; fi
`), 0o755))
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			run := func(has string) string {
				calls := filepath.Join(t.TempDir(), "calls")
				cmd := exec.Command("bash", render.PrerequisitesScriptPath)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "KUBECTL="+fake, "CALLS="+calls, "HAS_CRDS="+has)
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s", out)
				b, _ := os.ReadFile(calls)
				return string(b)
			}
			missing, present := run("0"), run("1")
			for _, pre := range render.Prerequisites(c.project, c.style) {
				assert.Contains(t, missing, "wait --for=condition=Established crd/"+pre.CRD+" ", "installed and waited for")
				// Its first command, as kubectl gets it.
				first, _, _ := strings.Cut(pre.Setup(c.project.Versions), "\n")
				assert.Contains(t, missing, strings.ReplaceAll(strings.TrimPrefix(first, `"$KUBECTL" `), `"`, "")+"\n", "its install, at the version pinned")
			}
			assert.NotContains(t, present, "apply", "nothing installed when every CRD is there")
			if len(render.Prerequisites(c.project, c.style)) == 0 {
				assert.Empty(t, missing, "no prerequisite, no kubectl")
			}
		})
	}
}

// TestE2EScriptSkipsWithoutCluster runs every golden project's
// test/e2e/run.sh with a kubeconfig whose cluster cannot be reached: it
// must say it skipped and succeed, not fail or hang.
func TestE2EScriptSkipsWithoutCluster(t *testing.T) {
	tools.RequireTools(t, "kubectl", "kubectl")
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: none, user: {token: x}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`), 0o600))
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			cmd := exec.Command("bash", render.E2EScriptPath)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, "e2e: skipped: no cluster reachable through the current kubeconfig (try: kind create cluster)\n", string(out))
		})
	}
}

// sectionReference is how a document names one of its own sections.
var sectionReference = regexp.MustCompile(`(?:[Tt]he|a) "?([A-Z][A-Za-z ]*[a-z])"? section|[Ss]ection "([^"]+)"`)

// TestGoldenMarkdownIsWellFormed checks every Markdown file of every golden
// tree: each table row is closed and a table ends at a blank line (a row
// running into the paragraph after it renders as one cell), and every
// section a document refers to is one of its headings.
func TestGoldenMarkdownIsWellFormed(t *testing.T) {
	for golden, tree := range goldenTrees(t) {
		for _, f := range tree.Files {
			if filepath.Ext(f.Name) != ".md" {
				continue
			}
			where := golden + ": " + f.Name
			lines := strings.Split(string(f.Data), "\n")
			headings := map[string]bool{}
			for _, l := range lines {
				if h, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " "); ok && strings.HasPrefix(l, "#") {
					headings[h] = true
				}
			}
			for i, l := range lines {
				if strings.HasPrefix(l, "|") {
					assert.True(t, strings.HasSuffix(l, "|"), "%s:%d: a table row is not closed: %q", where, i+1, l)
					if i+1 < len(lines) {
						next := lines[i+1]
						assert.True(t, next == "" || strings.HasPrefix(next, "|"), "%s:%d: the table runs into the next line: %q", where, i+2, next)
					}
				}
			}
			for _, m := range sectionReference.FindAllStringSubmatch(string(f.Data), -1) {
				name := m[1] + m[2]
				assert.True(t, headings[name], "%s: refers to a section %q it does not have", where, name)
			}
		}
	}
}

// TestMakefileShipTargets: every golden project's Makefile has the same
// targets to build, push and install the operator, and its build-installer
// writes dist/install.yaml: what kubectl kustomize config/ gives, the
// operator's image replaced by IMG.
func TestMakefileShipTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and kubectl kustomize")
	}
	tools.RequireTools(t, "make and kubectl, whose kustomize builds config/", "make", "kubectl")
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			makefile, ok := tree.Get("Makefile")
			require.True(t, ok)
			targets := []string{"docker-build", "docker-push", "docker-buildx", "build-installer", "deploy", "undeploy", "test-e2e", "kind-load", "helm-lint", "helm-template", "helm-deploy", "helm-undeploy", "bundle", "bundle-build", "bundle-push"}
			if len(c.project.APIs) > 0 {
				targets = append(targets, "install", "uninstall")
			}
			for _, target := range targets {
				assert.Regexp(t, "(?m)^"+target+": .*## ", string(makefile.Content), "make %s, with its help", target)
			}
			dir := writeTree(t, tree)
			const img = "registry.example.com/team/operator:v9.9.9"
			tools.ExecIn(t, dir, "make", "build-installer", "IMG="+img)
			installer, err := os.ReadFile(filepath.Join(dir, "dist/install.yaml"))
			require.NoError(t, err)
			kustomized, err := exec.Command("kubectl", "kustomize", filepath.Join(dir, "config")).Output()
			require.NoError(t, err)
			assert.Equal(t, strings.ReplaceAll(string(kustomized), "image: "+c.project.Image()+"\n", "image: "+img+"\n"), string(installer))
			assert.Contains(t, string(installer), "image: "+img+"\n")
		})
	}
}
