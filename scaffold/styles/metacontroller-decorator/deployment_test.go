//go:build e2e

package decorator_test

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
