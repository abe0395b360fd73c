//go:build e2e

package kopf_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/kopf"
)

// TestRuntime runs the seed project in real Kopf, taken from
// OPCTL_KOPF_PYTHONPATH (make test-runtimes).
func TestRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_KOPF_PYTHONPATH")
	styletest.CheckRuntime(t, kopf.Style(), runKopf, styletest.PythonOmittingBuilder, styletest.Faults(kopf.Style(), runKopf), projectTestsWithKopf)
}

// TestBenchRuntime measures the seed in Kopf (make bench-runtimes).
func TestBenchRuntime(t *testing.T) {
	styletest.RequireEnv(t, "OPCTL_KOPF_PYTHONPATH")
	styletest.BenchRuntime(t, kopf.Style(), runKopf)
}

// projectTestsWithKopf runs the seed project's own tests with Kopf itself in
// place of tests/kopf_stand_in.py, and a cluster: the unit tests against
// kopf.adopt and kopf.label, and tests/test_operator.py, whose KopfRunner
// runs the operator until the sample is Ready.
func projectTestsWithKopf(t *testing.T, cluster *styletest.Cluster, suite *styletest.Conformance) {
	suite.Check(t, "the project's own tests with Kopf itself, its KopfRunner test included", func(t *testing.T) {
		dir := styletest.Seed(t, kopf.Style())
		cmd := exec.Command(tools.Python(t), "-m", "pytest", "-q", "-rs", "tests")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.AdminKubeconfig(t), "PYTHONPATH="+os.Getenv("OPCTL_KOPF_PYTHONPATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, string(out), "test_operator.py", "the KopfRunner test must run, not be skipped: %s", out)
	})
}

// runKopf runs the project's operator as its Deployment does (kopf run
// standalone, in every namespace or in WATCH_NAMESPACE's), as the project's
// ServiceAccount, with the liveness endpoint on a free port.
func runKopf(t *testing.T, dir, kubeconfig, _ string, _ *styletest.Cluster) *styletest.Process {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	args := []string{"-m"}
	for _, a := range kopf.Style().Runtime(p).Command {
		if strings.HasPrefix(a, "--liveness=") {
			a = fmt.Sprintf("--liveness=http://127.0.0.1:%d/healthz", styletest.FreePort(t))
		}
		args = append(args, styletest.ExpandContainerVars(a))
	}
	cmd := exec.Command(tools.Python(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PYTHONPATH="+os.Getenv("OPCTL_KOPF_PYTHONPATH")+":"+dir)
	return styletest.StartProcess(t, cmd)
}
