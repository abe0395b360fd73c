//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
// and a one-line message with the API server's; it holds up no other
// resource, of its kind or of another: once it says why, a change of
// another of its kind is reconciled within seconds (or about as fast as
// when nothing is refused); once its spec changes to what is accepted, it
// converges.
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
	// Where the style writes its children it has the API server's message,
	// and so has shell-operator's hook, which tries a write again with a
	// dry run once it sees the child still missing; Metacontroller applies
	// the children its hook returns and tells the hook nothing (it records
	// a SyncError Event on the resource and logs why): its message says
	// only what it waits for. The reason is the same.
	hidden := appliesHookChildren(t, dir)
	WaitFor(t, "the refused resource to say why in its status", func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(refused), refused); err != nil {
			return false, err
		}
		cond := readyCondition(refused)
		observed, _, _ := unstructured.NestedInt64(refused.Object, "status", "observedGeneration")
		return cond != nil && cond["status"] == "False" && observed == refused.GetGeneration() &&
			(hidden || strings.Contains(fmt.Sprint(cond["message"]), "refused by policy")), nil
	})
	// How long a change of another resource of the kind takes while this
	// one is refused, against one when nothing is (below).
	changed := func(count int64) time.Duration {
		start := time.Now()
		updateSpec(t, c, healthyOther, func(spec map[string]any) { spec["count"] = count })
		WaitFor(t, "a change of another resource of the refused one's kind to be reconciled", func() (bool, error) {
			return ready(ctx, c, healthyOther)
		})
		return time.Since(start)
	}
	whileRefused := changed(2)
	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	WaitFor(t, "the refused resource's other child, applied all the same", func() (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "refused-deployment"}, deployment)
		return err == nil, client.IgnoreNotFound(err)
	})
	cond := readyCondition(refused)
	assert.Equal(t, "ChildrenPending", cond["reason"])
	message := fmt.Sprint(cond["message"])
	assert.NotContains(t, message, "\n", "one line")
	assert.NotContains(t, message, "HTTP", "not a client's dump")
	assert.Contains(t, message, "ConfigMap refused-configmap")
	if hidden {
		assert.True(t, strings.HasPrefix(message, "waiting for "), message)
	} else {
		assert.Contains(t, message, "ConfigMap refused-configmap: ", "the child, then the API server's message")
	}

	updateSpec(t, c, refused, func(spec map[string]any) { spec["text"] = "accepted" })
	WaitFor(t, "the refused resource to converge once its spec is accepted", func() (bool, error) { return ready(ctx, c, refused) })
	assert.Equal(t, "Reconciled", readyReason(refused))

	// A refusal holds up no other resource of the kind: a change of one is
	// reconciled within seconds, or (a runtime slower than that for one
	// resource, as Ansible's) about as fast as when nothing is refused.
	free := changed(3)
	assert.LessOrEqual(t, whileRefused, max(10*time.Second, 3*free),
		"a change of another resource while one is refused took %s; with none refused, %s", whileRefused, free)
}

// appliesHookChildren reports whether the project in dir is a
// Metacontroller CompositeController's, whose hook returns the children
// for Metacontroller to apply.
func appliesHookChildren(t *testing.T, dir string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "config", "metacontroller", "*.yaml"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.Contains(string(data), "\nkind: CompositeController\n") {
			return true
		}
	}
	return false
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
