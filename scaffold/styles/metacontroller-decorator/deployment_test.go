//go:build e2e

package decorator_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
)

// webDeployment is a Deployment with an http container port: what the seed
// decorator attaches a Service to when it carries the selected labels.
func webDeployment(name, ns string, labels map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "busybox:1.37.0",
					"ports": []any{map[string]any{"name": "http", "containerPort": int64(8080)}}}}},
			},
		},
	}}
}

// webServices installs the seed decorator in a namespace of its own, run by
// start (Metacontroller or its imitation), for the bench and the fault
// checks: selected Deployments, each converged when its Service serves its
// container port; the change is that port.
func webServices(start styletest.RealRuntime) styletest.Install {
	return func(t *testing.T, cluster *styletest.Cluster, ns string) (styletest.Target, func(*testing.T) *styletest.Process) {
		dir := scaffoldSeed(t)
		cluster.CreateNamespace(t, ns, false)
		// The decorator selects Deployments in every namespace: the next
		// check's runtime is not to decorate this one's too.
		t.Cleanup(func() {
			assert.NoError(t, cluster.Client.DeleteAllOf(context.Background(), &appsv1.Deployment{}, client.InNamespace(ns)))
		})
		target := styletest.Target{
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
			ChildKind: corev1.SchemeGroupVersion.WithKind("Service"),
		}
		return target, func(t *testing.T) *styletest.Process {
			return start(t, dir, "", cluster.AdminKubeconfig(t), cluster)
		}
	}
}
