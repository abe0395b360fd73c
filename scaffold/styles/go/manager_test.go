//go:build e2e

package golang_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/opctl/opctl/internal/styletest/tools"
)

// managerCommand builds the generated manager of the project in dir and
// returns the command that runs it as a process with kubeconfig, its
// metrics and probe listeners off. The e2e and runtime tests both run it:
// the go style's runtime is the manager itself.
func managerCommand(t *testing.T, dir, kubeconfig, metricsAddress string) *exec.Cmd {
	tools.ExecIn(t, dir, "go", "build", "-o", "bin/manager", "./cmd")
	cmd := exec.Command(filepath.Join(dir, "bin/manager"), "--metrics-bind-address="+metricsAddress, "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	return cmd
}
