//go:build generated

package decorator_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
)

// TestGeneratedProject runs the decorator project's own pytest and
// pyflakes, with a second decorator added, then create api's refusals of
// what a decorator project cannot take.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	py := tools.Python(t)
	tools.RequireTools(t, "kubectl; this test builds config/ with `kubectl kustomize`", "kubectl")
	dir := scaffoldSeed(t)
	assert.NoDirExists(t, filepath.Join(dir, "config/crd"), "a decorator adds no CRD")
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py), "6 passed")

	styletest.MustRun(t, dir, "create", "api", "--target", "apps/v1/StatefulSet", "--name", "databases", "--owns", "Service")
	assert.Contains(t, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py), "10 passed")
	tools.ExecIn(t, dir, "kubectl", "kustomize", "config/")

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--group", "myapp", "--target", "apps/v1/Deployment", "--owns", "Service"}, "opctl: --group does not apply to metacontroller-decorator projects, which add no CRD: use --target, --selector, --owns\n"},
		{[]string{"--owns", "Service"}, "opctl: --target is required: the kind to decorate, e.g. --target apps/v1/Deployment\n"},
		{[]string{"--target", "deployment", "--owns", "Service"}, "opctl: --target \"deployment\": want GROUP/VERSION/KIND, or VERSION/KIND for the core group (e.g. apps/v1/Deployment)\n"},
		{[]string{"--target", "apps/v1/Deployment", "--selector", "app type=web", "--owns", "Service"}, "opctl: --selector \"app type=web\": want KEY=VALUE[,KEY=VALUE...] with valid label keys and values (e.g. app-type=web)\n"},
		{[]string{"--target", "apps/v1/Deployment", "--owns", "Job"}, "opctl: --owns \"Job\": a decorator attaches Service\n"},
		{[]string{"--target", "apps/v1/Deployment", "--owns", "Service"}, "opctl: --name \"deployments\": the project already has this decorator; choose another --name\n"},
	} {
		r := styletest.Run(t, dir, append([]string{"create", "api"}, bad.args...)...)
		assert.Equal(t, 2, r.Code, bad.args)
		assert.Equal(t, bad.want, r.Stderr)
	}
}
