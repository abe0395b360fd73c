//go:build generated

package metacontroller_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/scaffold/styles/metacontroller"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestGeneratedProject scaffolds the seed example, then a second kind
// owning every child kind, and runs the project's own make test (pytest)
// and make lint (pyflakes).
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	py := styletest.Python(t)
	dir := styletest.Seed(t, metacontroller.Style())
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py), "5 passed")

	styletest.AddCache(t, dir, styletest.CacheFields()...)
	assert.Contains(t, styletest.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py), "9 passed")
}
