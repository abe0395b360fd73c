//go:build generated

package shelloperator_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
)

// TestGeneratedProject scaffolds the seed example, then a second kind
// owning every child kind, and runs the project's own make test (hooks
// against fixtures, bash and jq) and make lint (shellcheck).
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	tools.RequireTools(t, "bash, jq, yq and shellcheck (Debian packages)", "bash", "jq", "yq", "shellcheck")
	dir := styletest.Seed(t, shelloperator.Style())
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), "10 passed, 0 failed")
	assert.Contains(t, styletest.CheckHandAddedCase(t, dir, "make", "test"), "ok   database/hand-added.yaml")

	styletest.AddCache(t, dir, styletest.CacheFields("enabled:bool")...)
	styletest.AddCluster(t, dir)
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), "30 passed, 0 failed")
	// A hook that is not executable is skipped by shell-operator.
	info, err := os.Stat(filepath.Join(dir, "hooks/20-caches.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())

	// Admission hooks: validating, then defaulting added later.
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate")
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), "3 passed, 0 failed")
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--default")
	out := tools.ExecIn(t, dir, "make", "test", "lint")
	assert.Contains(t, out, "4 passed, 0 failed")
	assert.Contains(t, out, "30 passed, 0 failed")
}

// TestGeneratedNamespaceScopedProject: in the seed made namespace-scoped,
// with a watch, every hook's bindings look in WATCH_NAMESPACE alone (make
// test sets it), and a hook asked for its configuration without it fails
// saying so.
func TestGeneratedNamespaceScopedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	tools.RequireTools(t, "bash, jq, yq and shellcheck (Debian packages)", "bash", "jq", "yq", "shellcheck")
	dir := styletest.SeedScoped(t, shelloperator.Style())
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--selector", "sync=vault")
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), "14 passed, 0 failed")
	for _, hook := range []string{"hooks/10-databases.sh", "hooks/watch-secrets.sh"} {
		cmd := exec.Command(hook, "--config")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "WATCH_NAMESPACE=payments")
		out, err := cmd.Output()
		require.NoError(t, err, hook)
		var config struct {
			Kubernetes []struct {
				Namespace struct {
					NameSelector struct{ MatchNames []string } `json:"nameSelector"`
				} `json:"namespace"`
			} `json:"kubernetes"`
		}
		require.NoError(t, json.Unmarshal(out, &config), "%s", out)
		require.NotEmpty(t, config.Kubernetes)
		for _, b := range config.Kubernetes {
			assert.Equal(t, []string{"payments"}, b.Namespace.NameSelector.MatchNames, hook)
		}
		cmd = exec.Command(hook, "--config")
		cmd.Dir = dir
		cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "WATCH_NAMESPACE=") })
		out, err = cmd.CombinedOutput()
		require.Error(t, err, "%s --config without WATCH_NAMESPACE", hook)
		assert.Contains(t, string(out), "WATCH_NAMESPACE: is not set: the operator watches one namespace")
	}
}

// TestGeneratedWatchProject scaffolds the article's shell-operator case (a
// Secret in one namespace, synced elsewhere) and runs the project's own
// make test and lint; then a handler that fails for one object: the other
// is still handled, and the hook fails so shell-operator runs it again.
func TestGeneratedWatchProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	tools.RequireTools(t, "bash, jq and shellcheck (Debian packages)", "bash", "jq", "shellcheck")
	dir := t.TempDir()
	styletest.MustRun(t, dir, "init", "--style", "shell-operator", "--name", "vault-sync", "--domain", "example.com", "--yes")
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault")
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), "4 passed, 0 failed")

	// The expected Events hold the handler's message: the user changes
	// them with it, and opctl generate keeps them.
	expected := filepath.Join(dir, "tests/expected/watch-secrets--added.json")
	b, err := os.ReadFile(expected)
	require.NoError(t, err)
	require.Contains(t, string(b), "handled Secret")
	mine := strings.ReplaceAll(string(b), "handled Secret", "synced Secret")
	require.NoError(t, os.WriteFile(expected, []byte(mine), 0o644))
	styletest.MustRun(t, dir, "generate")
	b, err = os.ReadFile(expected)
	require.NoError(t, err)
	assert.Equal(t, mine, string(b), "the expected Events are the user's")

	handler := filepath.Join(dir, "hooks/lib/handle-secrets.sh")
	require.NoError(t, os.WriteFile(handler, []byte("#!/usr/bin/env bash\nset -euo pipefail\nname=$(jq -r .metadata.name)\n[ \"$name\" != first ] || { echo \"vault unreachable\" >&2; exit 1; }\necho \"synced $name\"\n"), 0o755))
	patch := filepath.Join(t.TempDir(), "patch.json")
	cmd := exec.Command(filepath.Join(dir, "hooks/watch-secrets.sh"))
	cmd.Env = append(os.Environ(), "BINDING_CONTEXT_PATH="+filepath.Join(dir, "tests/fixtures/watch-secrets--synchronization.json"), "KUBERNETES_PATCH_PATH="+patch)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a failed handler fails the hook: %s", out)
	assert.Contains(t, string(out), "vault unreachable")
	assert.Contains(t, string(out), "handle-secrets.sh failed for Secret payments/first")
	written, err := os.ReadFile(patch)
	require.NoError(t, err)
	assert.Contains(t, string(written), `"message":"synced second"`)
	assert.NotContains(t, string(written), `"name":"first"`)
}

// TestEditedAPI: an optional field and an owned kind added with opctl
// edit api keep the user's changed code, and the project's tests pass.
func TestEditedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	assert.Regexp(t, `[1-9][0-9]* passed, 0 failed`, styletest.CheckEditKeepsUserCode(t, shelloperator.Style(), styletest.BuilderEdit{
		Path: "hooks/lib/databases/configmap.jq",
		Edits: [][2]string{
			{`"engine": .spec.engine,`, "\"engine\": .spec.engine,\n      \"team\": \"payments\","},
			{`metadata: {name: (.metadata.name + "-configmap")},`, `metadata: {name: (.metadata.name + "-configmap"), labels: {team: "payments"}},`},
		},
	}, "make", "test", "lint"))
}

// TestImportedCRDs: kinds taken from three real operators' CRDs
// (create api --from-crd) beside the seed example: the project's own
// tests, conformance cases included, pass.
func TestImportedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	dir := styletest.ImportedCRDs(t, shelloperator.Style(), realcrds.Few())
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint"), " 0 failed")
}
