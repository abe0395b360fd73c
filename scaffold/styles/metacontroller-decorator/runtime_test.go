//go:build e2e

package decorator_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
	decorator "github.com/opctl/opctl/scaffold/styles/metacontroller-decorator"
)

// TestRuntime runs the seed decorator (a Service for every Deployment
// labelled app-type=web) in real Metacontroller (make test-runtimes), then
// the fault checks on its Deployments.
func TestRuntime(t *testing.T) {
	metacontrollertest.RequireReal(t)
	cluster := styletest.StartAPIServer(t, "make test-runtimes")
	suite := styletest.NewConformance(t, decorator.Style().Name)
	// Metacontroller stops, its DecoratorController deleted, when the
	// seed's checks end: each fault check starts its own.
	t.Run("the seed decorator", func(t *testing.T) { checkSeed(t, cluster, suite) })
	styletest.FaultsOf(decorator.Style().Name, webServices(metacontrollertest.StartReal), false)(t, cluster, suite)
}

func checkSeed(t *testing.T, cluster *styletest.Cluster, suite *styletest.Conformance) {
	c := cluster.Client
	ctx := context.Background()
	dir := scaffoldSeed(t)
	ns := "rt-decorator"
	cluster.CreateNamespace(t, ns, false)
	suite.Runs(metacontrollertest.StartReal(t, dir, "", cluster.AdminKubeconfig(t), cluster))
	web := webDeployment("web", ns, map[string]any{"app-type": "web"})
	other := webDeployment("other", ns, nil)
	require.NoError(t, c.Create(ctx, web))
	require.NoError(t, c.Create(ctx, other))
	service := &unstructured.Unstructured{}
	service.SetAPIVersion("v1")
	service.SetKind("Service")
	key := client.ObjectKey{Namespace: ns, Name: "web-service"}
	attached := func() (bool, error) {
		if err := c.Get(ctx, key, service); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return true, nil
	}
	if !suite.Check(t, "children created, one controller ownerReference", func(t *testing.T) {
		styletest.WaitFor(t, "the Service attached to the selected Deployment", attached)
		styletest.RequireOneControllerRef(t, service, web)
	}) {
		return
	}
	suite.Check(t, "an unselected object gets no child", func(t *testing.T) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "other-service"}, service.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "other-service: %v", err)
	})
	suite.Check(t, "a deleted child is made again", func(t *testing.T) {
		old := service.GetUID()
		require.NoError(t, c.Delete(ctx, service))
		styletest.WaitFor(t, "the Service to be made again", func() (bool, error) {
			ok, err := attached()
			return ok && service.GetUID() != old, err
		})
	})
	suite.SteadyState(t, c, service)
}

// TestBenchRuntime measures the seed in Metacontroller (make
// bench-runtimes): N selected Deployments, each given its Service; the
// change is their container port, which the Service follows.
func TestBenchRuntime(t *testing.T) {
	metacontrollertest.RequireReal(t)
	styletest.Bench(t, decorator.Style().Name, webServices(metacontrollertest.StartReal))
}
