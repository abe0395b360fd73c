//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// refusedVersion is the spec.version whose ConfigMap child the admission
// policy of checkRefusedChild refuses.
const refusedVersion = "refused"

// refusingPolicyName names the policy in every refusal the API server sends.
const refusingPolicyName = "opctl-e2e-refuse-version"

// Refused reports whether a runtime's output is about the child the
// refused-child check has the API server refuse on purpose.
func Refused(output string) bool { return strings.Contains(output, refusingPolicyName) }

// refusingPolicy refuses ConfigMaps whose data.version is refusedVersion,
// as an organisation's policy (or a quota, or a webhook) refuses a child.
func refusingPolicy() []*unstructured.Unstructured {
	name := refusingPolicyName
	return []*unstructured.Unstructured{
		{Object: map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": name},
			"spec": map[string]any{
				"failurePolicy": "Fail",
				"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
					"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"},
				}}},
				"validations": []any{map[string]any{
					"expression": fmt.Sprintf("!has(object.data) || !('version' in object.data) || object.data['version'] != '%s'", refusedVersion),
					"message":    "version " + refusedVersion + " is refused by policy",
				}},
			},
		}},
		{Object: map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"policyName": name, "validationActions": []any{"Deny"}},
		}},
	}
}

// checkRefusedChild: a resource whose child the API server refuses gets
// Ready=False with a one-line message and holds up no other resource, of
// its kind or of another; once its spec changes to what is accepted, it
// converges.
func checkRefusedChild(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	for _, o := range refusingPolicy() {
		require.NoError(t, c.Create(ctx, o))
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(c.Delete(ctx, o))) })
	}
	probe := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "policy-probe", "namespace": ns}, "data": map[string]any{"version": refusedVersion}}}
	WaitFor(t, "the admission policy to be in force", func() (bool, error) {
		return c.Create(ctx, probe.DeepCopy(), client.DryRunAll) != nil, nil
	})

	sample := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	sample.SetNamespace(ns)
	refused, healthy := sample.DeepCopy(), sample.DeepCopy()
	refused.SetName("refused")
	require.NoError(t, unstructured.SetNestedField(refused.Object, refusedVersion, "spec", "version"))
	healthy.SetName("healthy")
	// A resource of the project's other kind (Other, see SeedWithOther).
	other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "other.example.com/v1", "kind": "Other",
		"metadata": map[string]any{"name": "other", "namespace": ns}, "spec": map[string]any{"size": int64(1)}}}
	require.NoError(t, c.Create(ctx, refused))
	require.NoError(t, c.Create(ctx, healthy))
	require.NoError(t, c.Create(ctx, other))
	t.Cleanup(func() {
		for _, o := range []*unstructured.Unstructured{refused, healthy, other} {
			assert.NoError(t, client.IgnoreNotFound(c.Delete(ctx, o)))
		}
	})

	WaitFor(t, "a resource created after the refused one to be Ready", func() (bool, error) { return ready(ctx, c, healthy) })
	WaitFor(t, "a resource of another kind to be Ready", func() (bool, error) { return ready(ctx, c, other) })
	WaitFor(t, "the refused resource to say so in its status", func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(refused), refused); err != nil {
			return false, err
		}
		cond := readyCondition(refused)
		observed, _, _ := unstructured.NestedInt64(refused.Object, "status", "observedGeneration")
		return cond != nil && cond["status"] == "False" && observed == refused.GetGeneration(), nil
	})
	cond := readyCondition(refused)
	// The style that writes its children sees the API server's refusal; in
	// a runtime that writes them (Metacontroller, shell-operator) the hook
	// sees only that the child is not there: the runtime logs the refusal.
	assert.Contains(t, []string{"ReconcileFailed", "ChildrenPending"}, cond["reason"])
	message := fmt.Sprint(cond["message"])
	assert.NotContains(t, message, "\n", "one line")
	assert.NotContains(t, message, "HTTP", "not a client's dump")
	if cond["reason"] == "ReconcileFailed" {
		assert.Contains(t, message, "refused by policy", "the API server's own message")
	} else {
		assert.Contains(t, message, "ConfigMap refused-configmap")
	}

	updateSpec(t, c, refused, func(spec map[string]any) { spec["version"] = "accepted" })
	WaitFor(t, "the refused resource to converge once its spec is accepted", func() (bool, error) { return ready(ctx, c, refused) })
	assert.Equal(t, "Reconciled", readyReason(refused))
}

// readyCondition is the Ready condition of a resource, or nil.
func readyCondition(cr *unstructured.Unstructured) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, c := range conditions {
		if m, _ := c.(map[string]any); m["type"] == "Ready" {
			return m
		}
	}
	return nil
}
