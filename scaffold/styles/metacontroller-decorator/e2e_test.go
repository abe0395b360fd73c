//go:build e2e

package decorator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
)

// TestE2E proves the seed decorator on a real API server (make test-e2e):
// its manifests pass restricted Pod Security, and its hook, driven as
// Metacontroller would with objects read from the API server, attaches a
// matching Service to each selected Deployment (owned by it) and to no
// other, then changes nothing.
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
		base, stop := metacontrollertest.StartHookServer(t, dir)
		defer stop()

		decorate := func() {
			targets := &unstructured.UnstructuredList{}
			targets.SetAPIVersion("apps/v1")
			targets.SetKind("DeploymentList")
			require.NoError(t, c.List(ctx, targets, client.InNamespace(ns), client.MatchingLabels{"app-type": "web"}))
			for _, target := range targets.Items {
				observed := map[string]any{}
				services := &unstructured.UnstructuredList{}
				services.SetAPIVersion("v1")
				services.SetKind("ServiceList")
				require.NoError(t, c.List(ctx, services, client.InNamespace(ns)))
				for _, s := range services.Items {
					if ref := metav1.GetControllerOf(&s); ref != nil && ref.UID == target.GetUID() {
						observed[s.GetName()] = s.Object
					}
				}
				body, err := json.Marshal(map[string]any{"controller": map[string]any{"kind": "DecoratorController"},
					"object": target.Object, "attachments": map[string]any{"Service.v1": observed}})
				require.NoError(t, err)
				resp, err := http.Post(base+"/sync/deployments", "application/json", bytes.NewReader(body))
				require.NoError(t, err)
				var response struct {
					Attachments []map[string]any `json:"attachments"`
				}
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&response))
				resp.Body.Close()
				for _, a := range response.Attachments {
					// Metacontroller makes the decorated object the attachment's controller.
					obj := &unstructured.Unstructured{Object: a}
					obj.SetOwnerReferences([]metav1.OwnerReference{*metav1.NewControllerRef(&target, target.GroupVersionKind())})
					require.NoError(t, metacontrollertest.ApplyAsMetacontroller(ctx, c, obj))
				}
			}
		}
		decorate()
		service := &unstructured.Unstructured{}
		service.SetAPIVersion("v1")
		service.SetKind("Service")
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service))
		selector, _, _ := unstructured.NestedStringMap(service.Object, "spec", "selector")
		assert.Equal(t, map[string]string{"app": "web"}, selector)
		ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
		require.Len(t, ports, 1)
		assert.EqualValues(t, 8080, ports[0].(map[string]any)["port"])
		assert.Equal(t, web.GetUID(), metav1.GetControllerOf(service).UID)
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "other-service"}, service.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "an unselected Deployment must get no Service")

		before := service.GetResourceVersion()
		decorate()
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-service"}, service))
		assert.Equal(t, before, service.GetResourceVersion(), "a second sync must change nothing")
	})
}
