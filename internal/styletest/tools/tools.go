// Package tools finds the tools tests of generated projects need, and fails
// a test that cannot find one with what to install: a test must not pass
// for want of the tool that checks. It runs them (ExecIn), and builds
// those that are Go modules (helm) from the module proxy (GoInstall). It imports nothing of opctl, so cmd's
// tests can use it too.
package tools

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// ExecIn runs name with args in dir and returns its output; a failure
// fails the test with the output.
func ExecIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// GoInstall builds the command pkg at version from the Go module proxy into
// the repository's cache directory (.cache/, git-ignored; the repository is
// found by its go.mod, wherever the test runs), once, and returns its path.
func GoInstall(t *testing.T, pkg, version string) string {
	t.Helper()
	name := path.Base(pkg)
	gomod := strings.TrimSpace(ExecIn(t, ".", "go", "env", "GOMOD"))
	bin := filepath.Join(filepath.Dir(gomod), ".cache", name+"-"+version)
	if _, err := os.Stat(filepath.Join(bin, name)); err == nil {
		return filepath.Join(bin, name)
	}
	t.Logf("building %s %s into %s (once)", name, version, bin)
	cmd := exec.Command("go", "install", pkg+"@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go install %s@%s:\n%s", pkg, version, out)
	return filepath.Join(bin, name)
}

// Helm builds the helm CLI at the version of the Helm SDK in opctl's go.mod.
func Helm(t *testing.T) string {
	t.Helper()
	version := strings.TrimSpace(ExecIn(t, ".", "go", "list", "-m", "-f", "{{.Version}}", "helm.sh/helm/v4"))
	return GoInstall(t, "helm.sh/helm/v4/cmd/helm", version)
}
