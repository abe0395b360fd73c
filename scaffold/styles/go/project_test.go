//go:build generated

package golang_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/pins"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// TestGeneratedProject scaffolds the seed example and proves the project
// builds, vets and passes its own tests with nothing but the Go module
// proxy, that its go.mod/go.sum are tidy, that controller-gen derives the
// same schema from its Go markers, and that config/ builds.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	controllerGen := buildControllerGen(t)
	tools.RequireTools(t, "kubectl; this test builds config/ with `kubectl kustomize`", "kubectl")
	dir := styletest.Seed(t, golang.Style())
	checkProject(t, dir, controllerGen)
	styletest.CheckHandAddedCase(t, dir, "go", "test", "./internal/controller/")

	// A second kind in another group, with every field type and every
	// child kind, and a cluster-scoped kind compile and pass too. The
	// duration's default is canonical: go writes durations into the
	// children as 1h0m0s whatever the spec says (Style.CanonicalValues),
	// and the Cache conformance cases, from opctl's reference, would fail.
	styletest.AddCache(t, dir, "size:int64:min=0:column", "ttl:duration:default=1h0m0s", "enabled:bool:default=true",
		"since:datetime", "type:string", "range.func:int32", "tags:[]string", "shards:[]int32", "surge:int-or-string:default=25%", "maxUnavailable:int-or-string:default=1", "labels:map[string]string",
		"backup.schedule:string:default=@daily", "backup.target.bucket:string:required",
		"memory:quantity:required", "tier:string:minLength=2:maxLength=8:pattern=^[a-z]+$",
		"image:string:default=registry.example.com/cache", "port:int32:default=6379")
	// A kind shaped like a real operator's API: Kubernetes' own types as
	// k8s.io/api's Go types, free-form fields, required objects.
	styletest.AddCluster(t, dir)
	styletest.MustRun(t, dir, "create", "api", "--group", "platform", "--version", "v1", "--kind", "Tenant",
		"--namespaced=false", "--field", "owner:string:required:immutable", "--field", "quota:int32:immutable",
		"--field", "tier:string:maxLength=8:rule=self != 'root'#tier root is reserved",
		"--rule", "!has(self.quota) || self.quota <= 100#quota at most 100")
	// Admission webhooks, a namespaced and a cluster-scoped kind; a watch.
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate")
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--default")
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Tenant", "--validate")
	// A watch of an existing kind beside them.
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault")
	// A second version of Tenant renaming a field and removing one: its
	// conversion webhook beside its admission webhook, v1 a spoke of the
	// v2 hub, keeping owner in an annotation.
	styletest.MustRun(t, dir, "edit", "api", "--kind", "Tenant", "--new-version", "v2", "--rename-field", "tier=level", "--remove-field", "owner")
	checkProject(t, dir, controllerGen)
	// The project's own lint, with the golangci-lint it pins, is clean.
	golangciLint := tools.GoInstall(t, "github.com/golangci/golangci-lint/v2/cmd/golangci-lint", pins.DefaultVersions().GolangciLint)
	assert.Contains(t, tools.ExecIn(t, dir, "make", "lint", "GOLANGCI_LINT="+golangciLint), "0 issues.")

	// Removing a kind leaves a project that builds and passes.
	styletest.MustRun(t, dir, "delete", "api", "Cache")
	checkProject(t, dir, controllerGen)
}

// TestGeneratedNamespaceScopedProject: the seed made namespace-scoped,
// with a watch (in the operator's namespace), builds, passes its tests and
// lint; controller-gen's Roles from its markers are config/'s.
func TestGeneratedNamespaceScopedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	controllerGen := buildControllerGen(t)
	tools.RequireTools(t, "kubectl; this test builds config/ with `kubectl kustomize`", "kubectl")
	dir := styletest.SeedScoped(t, golang.Style())
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--selector", "sync=vault")
	checkProject(t, dir, controllerGen)
	golangciLint := tools.GoInstall(t, "github.com/golangci/golangci-lint/v2/cmd/golangci-lint", pins.DefaultVersions().GolangciLint)
	assert.Contains(t, tools.ExecIn(t, dir, "make", "lint", "GOLANGCI_LINT="+golangciLint), "0 issues.")
}

// checkProject runs the project's go build, vet and test, and checks that
// it is tidy, that controller-gen agrees with its CRDs and that config/
// builds.
func checkProject(t *testing.T, dir, controllerGen string) {
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		tools.ExecIn(t, dir, "go", args...)
	}
	assertTidy(t, dir)
	assertControllerGenAgrees(t, dir, controllerGen)
	tools.ExecIn(t, dir, "kubectl", "kustomize", "config/")
}

// assertTidy checks that go mod tidy changes neither go.mod nor go.sum, so
// opctl's pinned dependency set is complete and minimal.
func assertTidy(t *testing.T, dir string) {
	t.Helper()
	before := map[string][]byte{}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		before[f] = b
	}
	tools.ExecIn(t, dir, "go", "mod", "tidy")
	for f, want := range before {
		got, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "go mod tidy changed %s", f)
	}
}

// TestEditedAPI: an optional field and an owned kind added with opctl
// edit api keep the user's changed code; the project builds and its
// controller tests, conformance cases included, pass.
func TestEditedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	assert.Contains(t, styletest.CheckEditKeepsUserCode(t, golang.Style(), styletest.BuilderEdit{
		Path: "internal/controller/database_configmap.go",
		Edits: [][2]string{
			{`"engine": database.Spec.Engine,`, "\"engine\": database.Spec.Engine,\n\t\t\"team\":   \"payments\","},
			{"WithLabels(databaseChildLabels(database)).", "WithLabels(databaseChildLabels(database)).\n\t\tWithLabels(map[string]string{\"team\": \"payments\"})."},
		},
	}, "sh", "-c", "go build ./... && go test ./internal/controller/"), "ok")
}

// TestUserEditsSurviveAnySequence: after random sequences of commands and
// hand edits, the project, edits and all, still builds.
func TestUserEditsSurviveAnySequence(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("random sequences of commands, each followed by a build of the project")
	}
	styletest.EditSequences(t, golang.Style(), "go build ./...", 2)
}

// TestMakefileTakesPathsWithSpaces: the project's Makefile works in a
// directory whose path has a space, with its envtest binaries in a cache
// whose path has one (build.sh finds them there and builds nothing).
func TestMakefileTakesPathsWithSpaces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	dir := filepath.Join(t.TempDir(), "my work")
	require.NoError(t, os.Mkdir(dir, 0o755))
	styletest.MustRun(t, dir, seed.Init(golang.Style().Name, golang.Style().ModulePath)...)
	styletest.MustRun(t, dir, seed.Create()...)
	cache := filepath.Join(t.TempDir(), "envtest cache")
	require.NoError(t, os.Mkdir(cache, 0o755))
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		require.NoError(t, os.WriteFile(filepath.Join(cache, bin), []byte("#!/bin/sh\n"), 0o755))
	}
	assert.Contains(t, tools.ExecIn(t, dir, "make", "envtest", "ENVTEST_DIR="+cache), cache)
	tools.ExecIn(t, dir, "make", "test-unit")
}

// TestImportedCRDs: kinds taken from thirteen real operators' CRDs
// (create api --from-crd) beside the seed example: the project's own
// tests, conformance cases included, pass.
func TestImportedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	dir := styletest.ImportedCRDs(t, golang.Style(), realcrds.All())
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		tools.ExecIn(t, dir, "go", args...)
	}
	assertTidy(t, dir)
	tools.ExecIn(t, dir, "kubectl", "kustomize", "config/")
}
