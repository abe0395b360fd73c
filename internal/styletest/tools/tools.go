// Package tools finds the tools tests of generated projects need, and fails
// a test that cannot find one with what to install: a test must not pass
// for want of the tool that checks. It imports nothing of opctl, so cmd's
// tests can use it too.
package tools

import (
	"os"
	"os/exec"
	"testing"
)

// RequireTools fails the test unless every tool is on PATH, saying what to
// install.
func RequireTools(t *testing.T, install string, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install %s", tool, install)
		}
	}
}

// Python is the interpreter that sees the distribution's packages (pytest,
// pyflakes, kubernetes, yaml): /usr/bin/python3 or $OPCTL_PYTHON. The first
// python3 on PATH may be another build.
func Python(t *testing.T) string {
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
