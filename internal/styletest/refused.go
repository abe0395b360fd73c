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

// refusedText is the spec.text of an Other (see seedWithOther) whose
// ConfigMap child the admission policy of checkRefusedChild refuses.
const refusedText = "refused"

// refusingPolicyName names the policy in every refusal the API server sends.
const refusingPolicyName = "opctl-e2e-refuse-text"

// Refused reports whether a runtime's output is about the child the
// refused-child check has the API server refuse on purpose.
func Refused(output string) bool { return strings.Contains(output, refusingPolicyName) }

// refusingPolicy refuses ConfigMaps whose data.text is refusedText, as an
// organisation's policy (or a quota, or a webhook) refuses a child.
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
					"expression": fmt.Sprintf("!has(object.data) || !('text' in object.data) || object.data['text'] != '%s'", refusedText),
					"message":    "text " + refusedText + " is refused by policy",
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

// checkRefusedChild: a resource whose ConfigMap child the API server
// refuses still gets its other child (the Deployment: every style applies
// the children it can), and Ready=False with the reason every style gives
// and a one-line message; it holds up no other resource, of its kind or of
// another; once its spec changes to what is accepted, it converges.
func checkRefusedChild(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	for _, o := range refusingPolicy() {
		require.NoError(t, c.Create(ctx, o))
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(c.Delete(ctx, o))) })
	}
	probe := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "policy-probe", "namespace": ns}, "data": map[string]any{"text": refusedText}}}
	WaitFor(t, "the admission policy to be in force", func() (bool, error) {
		return c.Create(ctx, probe.DeepCopy(), client.DryRunAll) != nil, nil
	})

	other := func(name, text string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "other.example.com/v1", "kind": "Other",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": map[string]any{"count": int64(1), "text": text}}}
	}
	refused, healthyOther := other("refused", refusedText), other("healthy-other", "fine")
	// A resource of the project's other kind, Database.
	healthy := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	healthy.SetNamespace(ns)
	healthy.SetName("healthy")
	for _, o := range []*unstructured.Unstructured{refused, healthyOther, healthy} {
		require.NoError(t, c.Create(ctx, o))
		t.Cleanup(func() { assert.NoError(t, client.IgnoreNotFound(c.Delete(ctx, o))) })
	}

	WaitFor(t, "a resource of the same kind created after the refused one to be Ready", func() (bool, error) { return ready(ctx, c, healthyOther) })
	WaitFor(t, "a resource of another kind to be Ready", func() (bool, error) { return ready(ctx, c, healthy) })
	WaitFor(t, "the refused resource to say so in its status", func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(refused), refused); err != nil {
			return false, err
		}
		cond := readyCondition(refused)
		observed, _, _ := unstructured.NestedInt64(refused.Object, "status", "observedGeneration")
		return cond != nil && cond["status"] == "False" && observed == refused.GetGeneration(), nil
	})
	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	WaitFor(t, "the refused resource's other child, applied all the same", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "refused-deployment"}, deployment)
		return err == nil, client.IgnoreNotFound(err)
	})
	cond := readyCondition(refused)
	// Where the style writes its children it has the API server's message;
	// where the runtime writes them (Metacontroller, shell-operator) the
	// hook sees only that the child is missing and the runtime logs why.
	// The reason is the same.
	assert.Equal(t, "ChildrenPending", cond["reason"])
	message := fmt.Sprint(cond["message"])
	assert.NotContains(t, message, "\n", "one line")
	assert.NotContains(t, message, "HTTP", "not a client's dump")
	assert.Contains(t, message, "ConfigMap refused-configmap")
	if !strings.HasPrefix(message, "waiting for ") {
		assert.Contains(t, message, "refused by policy", "the API server's own message")
	}

	updateSpec(t, c, refused, func(spec map[string]any) { spec["text"] = "accepted" })
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
