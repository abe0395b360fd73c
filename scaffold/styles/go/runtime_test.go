//go:build e2e

package golang_test

import (
	"fmt"
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// TestRuntime runs the seed project's manager against a real API server
// (make test-runtimes): the manager is the go style's real runtime. Then
// a v2 renaming a field, converted by the manager's webhook.
func TestRuntime(t *testing.T) {
	start := func(t *testing.T, dir, kubeconfig, _ string, cluster *styletest.Cluster) func() string {
		// Secure metrics, as the Deployment runs them, on a free port.
		address := fmt.Sprintf("127.0.0.1:%d", styletest.FreePort(t))
		cluster.MetricsURL = "https://" + address + "/metrics"
		cmd := managerCommand(t, dir, kubeconfig, address)
		if certs := cluster.ConversionCerts; certs != "" {
			cmd.Args = append(cmd.Args, "--webhook-cert-path="+certs, fmt.Sprintf("--webhook-port=%d", styletest.ConversionPort))
		}
		return styletest.StartLogged(t, cmd)
	}
	styletest.CheckRuntime(t, golang.Style(), start, styletest.Faults(golang.Style(), start), func(t *testing.T, cluster *styletest.Cluster, suite *styletest.Conformance) {
		styletest.CheckConversion(t, cluster, golang.Style(), start, suite)
	})
}
