//go:build e2e

package ansible_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles/ansible"
)

// TestRuntime runs the seed project's role in real ansible-operator, with
// ansible-runner and operator_sdk.util taken from the environment (make
// test-runtimes).
func TestRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_ANSIBLE_OPERATOR", "OPCTL_ANSIBLE_PYTHONPATH", "OPCTL_ANSIBLE_RUNNER_BIN_DIR", "OPCTL_ANSIBLE_COLLECTIONS_PATH")
	styletest.CheckRuntime(t, ansible.Style(), runAnsibleOperator, styletest.BuilderEdit{
		Path: "roles/database/templates/configmap.yaml.j2",
		Edits: [][2]string{
			{"apiVersion: v1\n", "{% if spec.version | default('') != '" + styletest.OmittingVersion + "' %}\napiVersion: v1\n"},
			{"  replicas: {{ spec.replicas | string | to_json }}\n{% endif %}\n", "  replicas: {{ spec.replicas | string | to_json }}\n{% endif %}\n{% endif %}\n"},
		},
	}, styletest.Faults(ansible.Style(), runAnsibleOperator))
}

// TestBenchRuntime measures the seed in ansible-operator (make bench-runtimes).
func TestBenchRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_ANSIBLE_OPERATOR", "OPCTL_ANSIBLE_PYTHONPATH", "OPCTL_ANSIBLE_RUNNER_BIN_DIR", "OPCTL_ANSIBLE_COLLECTIONS_PATH")
	styletest.BenchRuntime(t, ansible.Style(), runAnsibleOperator)
}

// runAnsibleOperator runs ansible-operator from the project directory, as
// its image does, with the Deployment's leader election (in the
// operator's namespace, which outside a cluster it cannot find). Its proxy
// stays on 8888: the kubeconfig of its runs names localhost:8888 whatever
// --proxy-port says (v1.42.3, internal/ansible/controller/reconcile.go),
// so a second replica runs in a network namespace of its own.
func runAnsibleOperator(t *testing.T, dir, kubeconfig, _ string, cluster *styletest.Cluster) *styletest.Process {
	p, err := scaffold.LoadProject(dir, scaffold.Styles{ansible.Style()})
	require.NoError(t, err)
	// Secure metrics, as the Deployment runs them, on a free port.
	metrics := fmt.Sprintf("127.0.0.1:%d", styletest.FreePort(t))
	cluster.MetricsURL = "https://" + metrics + "/metrics"
	args := []string{"run", "--watches-file=./watches.yaml",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", styletest.FreePort(t)),
		"--metrics-bind-address=" + metrics, "--metrics-secure", "--metrics-require-rbac", "--leader-election-namespace=" + p.Namespace()}
	cmd := exec.Command(os.Getenv("OPCTL_ANSIBLE_OPERATOR"), append(args, ansible.Style().Runtime(p).LeaderElectionArgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+kubeconfig,
		"PATH="+os.Getenv("OPCTL_ANSIBLE_RUNNER_BIN_DIR")+":"+os.Getenv("PATH"),
		"PYTHONPATH="+os.Getenv("OPCTL_ANSIBLE_PYTHONPATH"),
		"ANSIBLE_COLLECTIONS_PATH="+os.Getenv("OPCTL_ANSIBLE_COLLECTIONS_PATH")+":/usr/share/ansible/collections:/usr/lib/python3/dist-packages",
		"ANSIBLE_ROLES_PATH="+filepath.Join(dir, "roles"),
		"ANSIBLE_GATHERING=explicit")
	cluster.ForgetLeases(t, p.Namespace())
	if l, err := net.Listen("tcp", "127.0.0.1:8888"); err == nil {
		require.NoError(t, l.Close())
	} else {
		// Another replica holds the proxy's port: this one gets a network
		// of its own, as its pod would.
		return cluster.StartInOwnNetwork(t, cmd)
	}
	return styletest.StartProcess(t, cmd)
}
