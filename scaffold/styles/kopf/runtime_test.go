//go:build e2e

package kopf_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/opctl/opctl/scaffold/styles/kopf"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestRuntime runs the seed project in real Kopf, taken from
// OPCTL_KOPF_PYTHONPATH (make test-runtimes).
func TestRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_KOPF_PYTHONPATH")
	styletest.CheckRuntime(t, kopf.Style(), runKopf)
}

// runKopf runs the project's operator module with kopf run, standalone
// (no peering) and in every namespace, as the project's ServiceAccount.
func runKopf(t *testing.T, dir, kubeconfig, _ string, _ *styletest.Cluster) func() string {
	cmd := exec.Command(styletest.Python(t), "-m", "kopf", "run", "--standalone", "--all-namespaces",
		fmt.Sprintf("--liveness=http://127.0.0.1:%d/healthz", styletest.FreePort(t)), "-m", operatorModule(t, dir))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+os.Getenv("OPCTL_KOPF_PYTHONPATH")+":"+dir)
	return styletest.StartLogged(t, cmd)
}
