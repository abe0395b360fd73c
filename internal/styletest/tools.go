package styletest

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest/tools"
)

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

// RequireTools is tools.RequireTools.
func RequireTools(t *testing.T, install string, names ...string) {
	t.Helper()
	tools.RequireTools(t, install, names...)
}

// Python is tools.Python.
func Python(t *testing.T) string {
	t.Helper()
	return tools.Python(t)
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
