package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
)

// TestGeneratedGoProject scaffolds the seed example in the go style and
// proves the project builds, vets and passes its own tests with nothing but
// the Go module proxy, that its go.mod/go.sum are tidy, that controller-gen
// derives the same schema from its Go markers, and that config/ builds.
func TestGeneratedGoProject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	controllerGen := buildControllerGen(t)
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal("kubectl not found: install kubectl; this test builds config/ with `kubectl kustomize`")
	}
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, seedInit...).code)
	r := run(t, dir, nil, false, seedCreate...)
	require.Equal(t, 0, r.code, r.stderr)

	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		execIn(t, dir, "go", args...)
	}
	assertTidy(t, dir)
	assertControllerGenAgrees(t, dir, controllerGen)
	execIn(t, dir, kubectl, "kustomize", "config/")

	// A second kind in another group, with every field type and every
	// child kind, compiles and passes too.
	r = run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache",
		"--field", "size:int64:min=0:column", "--field", "ttl:duration:default=1h", "--field", "enabled:bool:default=true",
		"--field", "since:datetime", "--field", "tags:[]string", "--field", "labels:map[string]string",
		"--field", "backup.schedule:string:default=@daily", "--field", "backup.target.bucket:string:required",
		"--field", "memory:quantity:required", "--field", "tier:string:minLength=2:maxLength=8:pattern=^[a-z]+$",
		"--owns", "ConfigMap,Secret,Service,Deployment,StatefulSet,Job")
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, nil, false, "create", "api", "--group", "platform", "--version", "v1", "--kind", "Tenant",
		"--namespaced=false", "--field", "owner:string:required")
	require.Equal(t, 0, r.code, r.stderr)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		execIn(t, dir, "go", args...)
	}
	assertTidy(t, dir)
	assertControllerGenAgrees(t, dir, controllerGen)
	execIn(t, dir, kubectl, "kustomize", "config/")
}

// buildControllerGen installs the pinned controller-gen from the Go module
// proxy into the repository's cache directory (git-ignored), once.
func buildControllerGen(t *testing.T) string {
	t.Helper()
	version := scaffold.DefaultVersions().ControllerTools
	bin, err := filepath.Abs(filepath.Join("..", ".cache", "controller-gen-"+version))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(bin, "controller-gen")); err == nil {
		return filepath.Join(bin, "controller-gen")
	}
	t.Logf("building controller-gen %s into %s (once)", version, bin)
	cmd := exec.Command("go", "install", "sigs.k8s.io/controller-tools/cmd/controller-gen@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go install controller-gen %s:\n%s", version, out)
	return filepath.Join(bin, "controller-gen")
}

func execIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
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
	execIn(t, dir, "go", "mod", "tidy")
	for f, want := range before {
		got, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "go mod tidy changed %s", f)
	}
}

// assertControllerGenAgrees runs controller-gen on api/ and compares each
// CRD with opctl's, ignoring descriptions (Go doc comments) and
// controller-gen's version annotation.
func assertControllerGenAgrees(t *testing.T, dir, controllerGen string) {
	t.Helper()
	out := t.TempDir()
	execIn(t, dir, controllerGen, "crd", "paths=./api/...", "output:crd:dir="+out)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for _, a := range p.APIs {
		path := scaffold.CRDPath(p, a)
		ours := loadCRD(t, filepath.Join(dir, path))
		theirs := loadCRD(t, filepath.Join(out, filepath.Base(path)))
		assert.Equal(t, theirs, ours, "controller-gen's schema for %s differs from opctl's", a.Kind)
	}
}

func loadCRD(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m))
	delete(m["metadata"].(map[string]any), "annotations")
	return withoutDescriptions(m).(map[string]any)
}

func withoutDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range t {
			if k != "description" {
				out[k] = withoutDescriptions(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = withoutDescriptions(val)
		}
		return out
	}
	return v
}

// pythonInterpreter is the interpreter that sees the distribution's packages (pytest,
// pyflakes, kubernetes); the first python3 on PATH may be another build.
func pythonInterpreter(t *testing.T) string {
	t.Helper()
	py := os.Getenv("OPCTL_PYTHON")
	if py == "" {
		py = "/usr/bin/python3"
	}
	for _, module := range []string{"pytest", "pyflakes", "kubernetes", "yaml"} {
		if err := exec.Command(py, "-c", "import "+module).Run(); err != nil {
			t.Fatalf("%s cannot import %s: install python3-pytest python3-pyflakes python3-kubernetes python3-yaml (Debian packages), or point OPCTL_PYTHON at an interpreter that has them", py, module)
		}
	}
	return py
}

// TestGeneratedPythonProjects scaffolds the seed example in each Python
// style, then a second kind owning every child kind, and runs the project's
// own make test (pytest) and make lint (pyflakes).
func TestGeneratedPythonProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated projects' Python tests")
	}
	for style, tests := range map[string][2]int{"kopf": {9, 17}, "metacontroller": {5, 9}} {
		t.Run(style, func(t *testing.T) { checkPythonProject(t, style, tests) })
	}
}

func checkPythonProject(t *testing.T, style string, tests [2]int) {
	py := pythonInterpreter(t)
	dir := scaffoldSeed(t, style)
	out := execIn(t, dir, "make", "test", "lint", "PYTHON="+py)
	assert.Contains(t, out, fmt.Sprintf("%d passed", tests[0]))

	r := run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache",
		"--field", "size:int64", "--field", "tags:[]string", "--field", "backup.schedule:string:default=@daily",
		"--owns", "ConfigMap,Secret,Service,Deployment,StatefulSet,Job")
	require.Equal(t, 0, r.code, r.stderr)
	out = execIn(t, dir, "make", "test", "lint", "PYTHON="+py)
	assert.Contains(t, out, fmt.Sprintf("%d passed", tests[1]))
}

// TestGeneratedShellOperatorProject scaffolds the seed example in the
// shell-operator style, then a second kind owning every child kind, and runs
// the project's own make test (hooks against fixtures, bash and jq) and make
// lint (shellcheck).
func TestGeneratedShellOperatorProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	for _, tool := range []string{"bash", "jq", "shellcheck"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install bash, jq and shellcheck (Debian packages)", tool)
		}
	}
	dir := scaffoldSeed(t, "shell-operator")
	out := execIn(t, dir, "make", "test", "lint")
	assert.Contains(t, out, "10 passed, 0 failed")

	r := run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache",
		"--field", "size:int64", "--field", "tags:[]string", "--field", "backup.schedule:string:default=@daily",
		"--field", "enabled:bool", "--owns", "ConfigMap,Secret,Service,Deployment,StatefulSet,Job")
	require.Equal(t, 0, r.code, r.stderr)
	out = execIn(t, dir, "make", "test", "lint")
	assert.Contains(t, out, "20 passed, 0 failed")
	// A hook that is not executable is skipped by shell-operator.
	info, err := os.Stat(filepath.Join(dir, "hooks/20-caches.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
}

// decoratorInit and decoratorCreate scaffold the seed article's decorator:
// every Deployment labelled app-type=web gets a matching Service.
var (
	decoratorInit   = []string{"init", "--style", "metacontroller-decorator", "--domain", "example.com", "--name", "web-services", "--yes"}
	decoratorCreate = []string{"create", "api", "--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service"}
)

// TestGeneratedDecoratorProject runs the decorator project's own pytest and
// pyflakes, with a second decorator added.
func TestGeneratedDecoratorProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	py := pythonInterpreter(t)
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, decoratorInit...).code)
	r := run(t, dir, nil, false, decoratorCreate...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.NoDirExists(t, filepath.Join(dir, "config/crd"), "a decorator adds no CRD")
	out := execIn(t, dir, "make", "test", "lint", "PYTHON="+py)
	assert.Contains(t, out, "3 passed")

	r = run(t, dir, nil, false, "create", "api", "--target", "apps/v1/StatefulSet", "--name", "databases", "--owns", "Service")
	require.Equal(t, 0, r.code, r.stderr)
	out = execIn(t, dir, "make", "test", "lint", "PYTHON="+py)
	assert.Contains(t, out, "6 passed")
	execIn(t, dir, "kubectl", "kustomize", "config/")

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--group", "myapp", "--target", "apps/v1/Deployment", "--owns", "Service"}, "opctl: --group does not apply to a metacontroller-decorator project, which adds no CRD: use --target, --selector, --owns\n"},
		{[]string{"--owns", "Service"}, "opctl: --target is required: the kind to decorate, e.g. --target apps/v1/Deployment\n"},
		{[]string{"--target", "deployment", "--owns", "Service"}, "opctl: --target \"deployment\": want GROUP/VERSION/KIND, or VERSION/KIND for the core group (e.g. apps/v1/Deployment)\n"},
		{[]string{"--target", "apps/v1/Deployment", "--selector", "app type=web", "--owns", "Service"}, "opctl: --selector \"app type=web\": want KEY=VALUE[,KEY=VALUE...] with valid label keys and values (e.g. app-type=web)\n"},
		{[]string{"--target", "apps/v1/Deployment", "--owns", "Job"}, "opctl: --owns \"Job\": a decorator attaches Service\n"},
		{[]string{"--target", "apps/v1/Deployment", "--owns", "Service"}, "opctl: --name \"deployments\": the project already has this decorator; choose another --name\n"},
	} {
		r := run(t, dir, nil, false, append([]string{"create", "api"}, bad.args...)...)
		assert.Equal(t, 2, r.code, bad.args)
		assert.Equal(t, bad.want, r.stderr)
	}
}

// TestGeneratedAnsibleProject runs the ansible project's own make test:
// syntax check, the children rendered by the role's filter compared with
// opctl's reference, and ansible-lint.
func TestGeneratedAnsibleProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ansible-playbook and ansible-lint")
	}
	for _, tool := range []string{"ansible-playbook", "ansible-lint"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install ansible and ansible-lint (Debian packages)", tool)
		}
	}
	dir := scaffoldSeed(t, "ansible")
	out := execIn(t, dir, "make", "test")
	assert.Contains(t, out, "All assertions passed")

	r := run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache",
		"--field", "size:int64", "--field", "tags:[]string", "--field", "backup.schedule:string:default=@daily",
		"--field", "egressIPs:[]string", "--owns", "ConfigMap,Secret,Service,Deployment,StatefulSet,Job")
	require.Equal(t, 0, r.code, r.stderr)
	out = execIn(t, dir, "make", "test")
	assert.Equal(t, 7, strings.Count(out, "All assertions passed"), "three assertions for each of the two kinds, one for the spec values")
	readme, err := os.ReadFile(filepath.Join(dir, "roles/cache/README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| `egressIPs` | `egress_i_ps` (lossy")
	assert.Contains(t, string(readme), "| `tags` | none: `tags` is reserved in Ansible")
}

// TestGoldenScriptsPassLinters checks every Python file of every golden
// tree with pyflakes and every shell script with shellcheck.
func TestGoldenScriptsPassLinters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pyflakes and shellcheck")
	}
	py := pythonInterpreter(t)
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Fatal("shellcheck not found: install shellcheck (Debian package)")
	}
	goldens, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, golden := range goldens {
		archive, err := txtar.ParseFile(golden)
		require.NoError(t, err)
		dir := t.TempDir()
		var pyFiles, shFiles []string
		for _, f := range archive.Files {
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
			execIn(t, dir, py, append([]string{"-m", "pyflakes"}, pyFiles...)...)
		}
		if len(shFiles) > 0 {
			execIn(t, dir, "shellcheck", append([]string{"-x"}, shFiles...)...)
		}
	}
}
