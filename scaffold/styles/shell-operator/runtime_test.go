//go:build e2e

package shelloperator_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
)

// TestRuntime runs the seed project's hooks in real shell-operator, taken
// from OPCTL_SHELL_OPERATOR (make test-runtimes).
func TestRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_SHELL_OPERATOR")
	styletest.CheckRuntime(t, shelloperator.Style(), runShellOperator)
}

// runShellOperator runs shell-operator on the project's hooks as the
// project's ServiceAccount, every listener on loopback and its scratch in
// a directory of the test's.
func runShellOperator(t *testing.T, dir, kubeconfig, _ string, _ *styletest.Cluster) func() string {
	tmp := t.TempDir()
	cmd := exec.Command(os.Getenv("OPCTL_SHELL_OPERATOR"), "start")
	cmd.Env = append(os.Environ(),
		"SHELL_OPERATOR_HOOKS_DIR="+filepath.Join(dir, "hooks"),
		"SHELL_OPERATOR_TMP_DIR="+tmp, "TMPDIR="+tmp,
		"SHELL_OPERATOR_LISTEN_ADDRESS=127.0.0.1", fmt.Sprintf("SHELL_OPERATOR_LISTEN_PORT=%d", styletest.FreePort(t)),
		"VALIDATING_WEBHOOK_LISTEN_ADDRESS=127.0.0.1", "CONVERSION_WEBHOOK_LISTEN_ADDRESS=127.0.0.1",
		"DEBUG_UNIX_SOCKET="+filepath.Join(tmp, "debug.socket"),
		"KUBE_CONFIG="+kubeconfig, "LOG_TYPE=json")
	return styletest.StartLogged(t, cmd)
}
