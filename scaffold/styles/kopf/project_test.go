//go:build generated

package kopf_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/styles/kopf"
)

// TestGeneratedProject runs the project's own make test (pytest) and make
// lint (pyflakes) on the seed example, then with a second kind owning every
// child kind.
func TestGeneratedProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	styletest.CheckPythonProject(t, kopf.Style(), 10, 30)
}

// TestGeneratedProjectWithWebhooks: admission handlers added to the seed
// example import, lint clean and pass their tests.
func TestGeneratedProjectWithWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	dir := styletest.Seed(t, kopf.Style())
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate")
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--default")
	assert.Regexp(t, `(?m)^13 passed`, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}

// TestGeneratedProjectWithWatch: the article's Secret sync as a watch, added
// to the seed example: its modules import, lint clean, and the handler's
// test passes beside the kind's.
func TestGeneratedProjectWithWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	dir := styletest.Seed(t, kopf.Style())
	styletest.MustRun(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault")
	assert.Regexp(t, `(?m)^11 passed`, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}

// TestUserEditsSurviveAnySequence: after random sequences of commands and
// hand edits, the project, edits and all, still passes its own tests.
func TestUserEditsSurviveAnySequence(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("random sequences of commands, each followed by the project's tests")
	}
	styletest.EditSequences(t, kopf.Style(), "make test PYTHON="+tools.Python(t), 6)
}

// TestEditedAPI: an optional field and an owned kind added with opctl
// edit api keep the user's changed code, and the project's tests pass.
func TestEditedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	assert.Regexp(t, `(?m)^\d+ passed`, styletest.CheckEditKeepsUserCode(t, kopf.Style(), styletest.PythonTeamsBuilder, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}

// TestImportedCRDs: kinds taken from thirteen real operators' CRDs
// (create api --from-crd) beside the seed example: the project's own
// tests, conformance cases included, pass.
func TestImportedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generated project's Python tests")
	}
	dir := styletest.ImportedCRDs(t, kopf.Style(), realcrds.All())
	assert.Regexp(t, `(?m)^\d+ passed`, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+tools.Python(t)))
}
