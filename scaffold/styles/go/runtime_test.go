//go:build e2e

package golang_test

import (
	"fmt"
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// TestRuntime runs the seed project's manager against a real API server
// (make test-runtimes): the manager is the go style's real runtime.
func TestRuntime(t *testing.T) {
	styletest.CheckRuntime(t, golang.Style(), func(t *testing.T, dir, kubeconfig, _ string, cluster *styletest.Cluster) func() string {
		// Secure metrics, as the Deployment runs them, on a free port.
		address := fmt.Sprintf("127.0.0.1:%d", styletest.FreePort(t))
		cluster.MetricsURL = "https://" + address + "/metrics"
		return styletest.StartLogged(t, managerCommand(t, dir, kubeconfig, address))
	})
}
