//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// schemaViolationsAccepted creates one invalid seed resource per schema
// rule and returns the rules the API server failed to enforce with the
// schema's message.
func schemaViolationsAccepted(ctx context.Context, c client.Client, ns string) []string {
	cases := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"engine outside the enum", map[string]any{"engine": "oracle"}, `spec.engine: Unsupported value: "oracle": supported values: "mysql", "postgres"`},
		{"replicas below min", map[string]any{"engine": "mysql", "replicas": int64(0)}, `spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1`},
		{"replicas above max", map[string]any{"engine": "mysql", "replicas": int64(6)}, `spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5`},
		{"engine missing", map[string]any{"version": "8"}, `spec.engine: Required value`},
	}
	var failures []string
	for i, tc := range cases {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "myapp.example.com/v1", "kind": "Database",
			"metadata": map[string]any{"name": fmt.Sprintf("invalid-%d", i), "namespace": ns},
			"spec":     tc.spec,
		}}
		err := c.Create(ctx, obj, client.DryRunAll)
		switch {
		case err == nil:
			failures = append(failures, tc.name+": accepted")
		case !strings.Contains(err.Error(), tc.want):
			failures = append(failures, fmt.Sprintf("%s: rejected with %q, want %q", tc.name, err, tc.want))
		}
	}
	return failures
}
