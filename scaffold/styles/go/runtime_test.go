//go:build e2e

package golang_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// TestRuntime runs the seed project's manager against a real API server
// (make test-runtimes), with leader election as its Deployment: the manager
// is the go style's real runtime. Then the fault checks, and a v2 renaming
// a field, converted by the manager's webhook.
func TestRuntime(t *testing.T) {
	styletest.CheckRuntime(t, golang.Style(), startManager, styletest.BuilderEdit{
		Path: "internal/controller/database_configmap.go",
		Edits: [][2]string{{"(*corev1ac.ConfigMapApplyConfiguration, error) {\n",
			"(*corev1ac.ConfigMapApplyConfiguration, error) {\n\tif database.Spec.Version != nil && *database.Spec.Version == \"" + styletest.OmittingVersion + "\" {\n\t\treturn nil, nil\n\t}\n"}},
	}, styletest.Faults(golang.Style(), startManager), func(t *testing.T, cluster *styletest.Cluster, suite *styletest.Conformance) {
		styletest.CheckConversion(t, cluster, golang.Style(), startManager, suite)
	})
}

// TestBenchRuntime measures the seed's manager (make bench-runtimes).
func TestBenchRuntime(t *testing.T) {
	styletest.BenchRuntime(t, golang.Style(), startManager)
}

// startManager runs the seed's manager as its Deployment does.
func startManager(t *testing.T, dir, kubeconfig, _ string, cluster *styletest.Cluster) *styletest.Process {
	// Secure metrics, as the Deployment runs them, on a free port.
	address := fmt.Sprintf("127.0.0.1:%d", styletest.FreePort(t))
	cluster.MetricsURL = "https://" + address + "/metrics"
	cmd := managerCommand(t, dir, kubeconfig, address)
	// Leader election as the Deployment runs it, the lease in the
	// operator's namespace (which outside a cluster it cannot find).
	p, err := scaffold.LoadProject(dir, scaffold.Styles{golang.Style()})
	require.NoError(t, err)
	cmd.Args = append(cmd.Args, golang.Style().Runtime(p).LeaderElectionArgs...)
	cmd.Args = append(cmd.Args, "--leader-election-namespace="+p.Namespace())
	cluster.ForgetLeases(t, p.Namespace())
	if certs := cluster.ConversionCerts; certs != "" {
		cmd.Args = append(cmd.Args, "--webhook-cert-path="+certs, fmt.Sprintf("--webhook-port=%d", styletest.ConversionPort))
	}
	return styletest.StartProcess(t, cmd)
}
