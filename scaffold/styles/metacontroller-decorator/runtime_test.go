//go:build e2e

package decorator_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
	decorator "github.com/opctl/opctl/scaffold/styles/metacontroller-decorator"
)

// TestRuntime runs the seed decorator (a Service for every Deployment
// labelled app-type=web) in real Metacontroller (make test-runtimes).
func TestRuntime(t *testing.T) {
	metacontrollertest.RequireReal(t)
	cluster := styletest.StartAPIServer(t, "make test-runtimes")
	c := cluster.Client
	ctx := context.Background()
	dir := scaffoldSeed(t)
	ns := "rt-decorator"
	cluster.CreateNamespace(t, ns, false)
	suite := styletest.NewConformance(t, decorator.Style().Name)
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
	styletest.Bench(t, decorator.Style().Name, func(t *testing.T, cluster *styletest.Cluster, ns string) styletest.BenchTarget {
		dir := scaffoldSeed(t)
		cluster.CreateNamespace(t, ns, false)
		metacontrollertest.StartReal(t, dir, "", cluster.AdminKubeconfig(t), cluster)
		return styletest.BenchTarget{
			Object: webDeployment("web", ns, map[string]any{"app-type": "web"}),
			Change: func(spec map[string]any) {
				containers, _, _ := unstructured.NestedSlice(spec, "template", "spec", "containers")
				containers[0].(map[string]any)["ports"].([]any)[0].(map[string]any)["containerPort"] = int64(9090)
				_ = unstructured.SetNestedSlice(spec, containers, "template", "spec", "containers")
			},
			Converged: func(ctx context.Context, c client.Client, ns string, changed bool) (int, error) {
				want := int32(8080)
				if changed {
					want = 9090
				}
				var services corev1.ServiceList
				if err := c.List(ctx, &services, client.InNamespace(ns)); err != nil {
					return 0, err
				}
				n := 0
				for _, s := range services.Items {
					if len(s.Spec.Ports) == 1 && s.Spec.Ports[0].Port == want {
						n++
					}
				}
				return n, nil
			},
		}
	})
}
