//go:build generated

package shelloperator_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestGeneratedProject scaffolds the seed example, then a second kind
// owning every child kind, and runs the project's own make test (hooks
// against fixtures, bash and jq) and make lint (shellcheck).
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's hook tests")
	}
	styletest.RequireTools(t, "bash, jq and shellcheck (Debian packages)", "bash", "jq", "shellcheck")
	dir := styletest.Seed(t, shelloperator.Style())
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test", "lint"), "10 passed, 0 failed")

	styletest.AddCache(t, dir, styletest.CacheFields("enabled:bool")...)
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test", "lint"), "20 passed, 0 failed")
	// A hook that is not executable is skipped by shell-operator.
	info, err := os.Stat(filepath.Join(dir, "hooks/20-caches.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())

	// Admission hooks: validating, then defaulting added later.
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate")
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test", "lint"), "3 passed, 0 failed")
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--default")
	out := styletest.ExecIn(t, dir, "make", "test", "lint")
	assert.Contains(t, out, "4 passed, 0 failed")
	assert.Contains(t, out, "20 passed, 0 failed")
}
