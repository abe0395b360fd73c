//go:build generated

package metacontroller_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/styles/metacontroller"
)

// TestGeneratedProject runs the project's own make test (pytest) and make
// lint (pyflakes) on the seed example, then with a second kind owning every
// child kind.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	styletest.CheckPythonProject(t, metacontroller.Style(), 13, 35)
}

// TestEditedAPI: an optional field and an owned kind added with opctl
// edit api keep the user's changed code, and the project's tests pass.
func TestEditedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	assert.Regexp(t, `(?m)^\d+ passed`, styletest.CheckEditKeepsUserCode(t, metacontroller.Style(), styletest.PythonTeamsBuilder, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}

// TestImportedCRDs: kinds taken from thirteen real operators' CRDs
// (create api --from-crd) beside the seed example: the project's own
// tests, conformance cases included, pass.
func TestImportedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	dir := styletest.ImportedCRDs(t, metacontroller.Style(), realcrds.All())
	assert.Regexp(t, `(?m)^\d+ passed`, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}
