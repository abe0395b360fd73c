//go:build e2e

package shelloperator_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
)

// TestRuntime runs the seed project's hooks in real shell-operator, taken
// from OPCTL_SHELL_OPERATOR (make test-runtimes).
func TestRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_SHELL_OPERATOR")
	styletest.CheckRuntime(t, shelloperator.Style(), runShellOperator, styletest.BuilderEdit{
		Path: "hooks/lib/databases/configmap.jq",
		Edits: [][2]string{
			{"def configmap:\n  {", "def configmap:\n  if .spec.version == \"" + styletest.OmittingVersion + "\" then empty else {"},
			{"\n  };", "\n  } end;"},
		},
	}, styletest.Faults(shelloperator.Style(), runShellOperator), func(t *testing.T, cluster *styletest.Cluster, suite *styletest.Conformance) {
		styletest.CheckConversion(t, cluster, shelloperator.Style(), runShellOperator, suite)
	})
}

// TestBenchRuntime measures the seed in shell-operator (make bench-runtimes).
func TestBenchRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_SHELL_OPERATOR")
	styletest.BenchRuntime(t, shelloperator.Style(), runShellOperator)
}

// runShellOperator runs shell-operator on the project's hooks as the
// project's ServiceAccount, every listener on loopback and its scratch in
// a directory of the test's.
func runShellOperator(t *testing.T, dir, kubeconfig, _ string, cluster *styletest.Cluster) *styletest.Process {
	tmp := t.TempDir()
	p, err := scaffold.LoadProject(dir, styles.All())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Getenv("OPCTL_SHELL_OPERATOR"), "start")
	cmd.Env = append(os.Environ(),
		"SHELL_OPERATOR_HOOKS_DIR="+filepath.Join(dir, "hooks"),
		"SHELL_OPERATOR_TMP_DIR="+tmp, "TMPDIR="+tmp,
		"SHELL_OPERATOR_LISTEN_ADDRESS=127.0.0.1", fmt.Sprintf("SHELL_OPERATOR_LISTEN_PORT=%d", styletest.FreePort(t)),
		"VALIDATING_WEBHOOK_LISTEN_ADDRESS=127.0.0.1", "CONVERSION_WEBHOOK_LISTEN_ADDRESS=127.0.0.1",
		"DEBUG_UNIX_SOCKET="+filepath.Join(tmp, "debug.socket"),
		// shell-operator's client, and the hooks' kubectl (their dry runs).
		"KUBE_CONFIG="+kubeconfig, "KUBECONFIG="+kubeconfig)
	// The Deployment's environment (its log format, its object patcher's
	// rate), but what it takes from the pod.
	for _, e := range shelloperator.Style().Runtime(p).Env {
		if e.ValueFrom == nil {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
	}
	if certs := cluster.ConversionCerts; certs != "" {
		// The conversion server: the Service shell-operator points the CRD
		// at and its namespace.
		cmd.Env = append(cmd.Env, fmt.Sprintf("CONVERSION_WEBHOOK_LISTEN_PORT=%d", styletest.ConversionPort),
			"CONVERSION_WEBHOOK_SERVER_CERT="+filepath.Join(certs, "tls.crt"), "CONVERSION_WEBHOOK_SERVER_KEY="+filepath.Join(certs, "tls.key"),
			"CONVERSION_WEBHOOK_CA="+filepath.Join(certs, "ca.crt"), "SHELL_OPERATOR_NAMESPACE="+p.Namespace())
	}
	return styletest.StartProcess(t, cmd)
}
