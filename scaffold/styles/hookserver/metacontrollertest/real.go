//go:build e2e

package metacontrollertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/hookserver"
)

// RequireReal fails the test unless the real Metacontroller is given:
// its binary and its CRDs (docs/real-runtimes.md).
func RequireReal(t *testing.T) {
	t.Helper()
	styletest.RequireEnv(t, "OPCTL_METACONTROLLER", "OPCTL_METACONTROLLER_CRDS")
}

// StartReal is a styletest.RealRuntime: it installs Metacontroller's CRDs
// and runs Metacontroller outside the cluster as a cluster admin, with the
// project's Composite- and DecoratorControllers as its Helm chart renders
// them, their hook URL (only) rewritten to the hook server on loopback.
func StartReal(t *testing.T, dir, _, admin string, cluster *styletest.Cluster) *styletest.Process {
	_, err := envtest.InstallCRDs(cluster.Config, envtest.CRDInstallOptions{Paths: []string{os.Getenv("OPCTL_METACONTROLLER_CRDS")}})
	require.NoError(t, err, "Metacontroller's CRDs")
	base, stop := StartHookServer(t, dir)
	t.Cleanup(stop)
	// The controllers as the project's Helm chart installs them (equal to
	// config/'s, which the Helm test proves), so the chart's are proven in
	// the real Metacontroller.
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for _, cc := range styletest.RenderChart(t, dir, p.Name, p.Namespace(), nil) {
		if cc.GetKind() != "CompositeController" && cc.GetKind() != "DecoratorController" {
			continue
		}
		hook, _, _ := unstructured.NestedString(cc.Object, "spec", "hooks", "sync", "webhook", "url")
		u, err := url.Parse(hook)
		require.NoError(t, err)
		require.NoError(t, unstructured.SetNestedField(cc.Object, base+u.Path, "spec", "hooks", "sync", "webhook", "url"))
		require.NoError(t, cluster.Client.Create(context.Background(), cc))
		t.Cleanup(func() { _ = cluster.Client.Delete(context.Background(), cc) })
	}
	// Metacontroller as the project installs it: at its client rate.
	args := append([]string{"-kubeconfig", admin, "-discovery-interval=5s",
		fmt.Sprintf("-health-probe-bind-address=127.0.0.1:%d", styletest.FreePort(t)), fmt.Sprintf("-metrics-address=127.0.0.1:%d", styletest.FreePort(t))},
		hookserver.ClientRate()...)
	cmd := exec.Command(os.Getenv("OPCTL_METACONTROLLER"), args...)
	return styletest.StartProcess(t, cmd)
}
