//go:build e2e

package decorator_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
	decorator "github.com/opctl/opctl/scaffold/styles/metacontroller-decorator"
)

// TestE2E proves the seed decorator on a real API server (make test-e2e):
// its manifests pass restricted Pod Security, and its hook, driven by an
// imitation of Metacontroller, attaches a matching Service to each selected
// Deployment (owned by it) and to no other, then changes nothing; then the
// fault checks, on the imitation.
func TestE2E(t *testing.T) {
	cluster := styletest.StartAPIServer(t, "make test-e2e")
	c := cluster.Client
	ctx := context.Background()
	dir := scaffoldSeed(t)
	ns, restricted := "e2e-decorator", "e2e-decorator-restricted"
	cluster.CreateNamespace(t, ns, false)
	cluster.CreateNamespace(t, restricted, true)
	t.Run("manifests pass restricted Pod Security with zero warnings", func(t *testing.T) {
		assert.Empty(t, cluster.DryRunManifests(t, dir, restricted))
	})

	t.Run("attach", func(t *testing.T) {
		web := webDeployment("web", ns, map[string]any{"app-type": "web"})
		other := webDeployment("other", ns, nil)
		require.NoError(t, c.Create(ctx, web))
		require.NoError(t, c.Create(ctx, other))
		metacontroller := metacontrollertest.RunDecorator(t, dir, "", cluster.AdminKubeconfig(t))
		service := &unstructured.Unstructured{}
		service.SetAPIVersion("v1")
		service.SetKind("Service")
		styletest.WaitFor(t, "the Service attached to the selected Deployment", func() (bool, error) {
			err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service)
			return err == nil, client.IgnoreNotFound(err)
		})
		selector, _, _ := unstructured.NestedStringMap(service.Object, "spec", "selector")
		assert.Equal(t, map[string]string{"app": "web"}, selector)
		ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
		require.Len(t, ports, 1)
		assert.EqualValues(t, 8080, ports[0].(map[string]any)["port"])
		styletest.RequireOneControllerRef(t, service, web)
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "other-service"}, service.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "an unselected Deployment must get no Service")

		// The imitation syncs every half second: a few more syncs.
		before := service.GetResourceVersion()
		time.Sleep(3 * time.Second)
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service))
		assert.Equal(t, before, service.GetResourceVersion(), "later syncs must change nothing")
		metacontroller.Stop()
	})
	styletest.E2EFaultsOf(decorator.Style().Name, webServices(styletest.Imitation(metacontrollertest.RunDecorator)), false)(t, cluster, dir)
}
