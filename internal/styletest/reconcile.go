//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// checkReconcile creates the sample and checks the running reconcile logic:
// children with one controller ownerReference, Ready status (observed: only
// once the children are as desired), children following a spec change, a
// deleted child made again, and no writes when nothing changed.
func checkReconcile(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	cr := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	require.NoError(t, c.Create(ctx, cr))
	child := &unstructured.Unstructured{}
	child.SetAPIVersion("v1")
	child.SetKind("ConfigMap")
	key := client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-configmap"}

	isReady := func() (bool, error) { return ready(ctx, c, cr) }
	WaitFor(t, "the ConfigMap child and Ready status", func() (bool, error) {
		if err := c.Get(ctx, key, child); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return isReady()
	})
	refs := child.GetOwnerReferences()
	require.Len(t, refs, 1)
	assert.Equal(t, cr.GetUID(), refs[0].UID)
	assert.True(t, refs[0].Controller != nil && *refs[0].Controller)
	// The same child in every style: same name, kind, labels and data.
	data, _, _ := unstructured.NestedStringMap(child.Object, "data")
	assert.Equal(t, map[string]string{"engine": "mysql", "replicas": "1", "storage": "1Gi", "version": "example"}, data)
	childLabels := child.GetLabels()
	// Metacontroller's generated selector labels every child with its parent's UID.
	delete(childLabels, "controller-uid")
	assert.Equal(t, map[string]string{
		"app.kubernetes.io/name": "database", "app.kubernetes.io/instance": cr.GetName(), "app.kubernetes.io/managed-by": "db-operator",
	}, childLabels)
	assert.Equal(t, "Reconciled", readyReason(cr))

	updateSpec(t, c, cr, func(spec map[string]any) { spec["version"] = "8.0" })
	following := func(version string) func() (bool, error) {
		return func() (bool, error) {
			if err := c.Get(ctx, key, child); err != nil {
				return false, err
			}
			if v, _, _ := unstructured.NestedString(child.Object, "data", "version"); v != version {
				return false, nil
			}
			return isReady()
		}
	}
	WaitFor(t, "the child to follow the spec change", following("8.0"))

	// A burst of spec changes (a user editing quickly, a pipeline): the
	// children end at the last one, and status writes racing the changes
	// must not fail (the runners' logs are checked for errors).
	for i := 1; i <= 8; i++ {
		updateSpec(t, c, cr, func(spec map[string]any) { spec["version"] = fmt.Sprintf("8.%d", i) })
		time.Sleep(20 * time.Millisecond)
	}
	WaitFor(t, "the child to follow a burst of spec changes", following("8.8"))

	// A field removed from the spec leaves the children: no stale keys.
	updateSpec(t, c, cr, func(spec map[string]any) { delete(spec, "version") })
	WaitFor(t, "the removed field to leave the child", func() (bool, error) {
		if err := c.Get(ctx, key, child); err != nil {
			return false, err
		}
		if _, found, _ := unstructured.NestedString(child.Object, "data", "version"); found {
			return false, nil
		}
		return isReady()
	})

	require.NoError(t, c.Delete(ctx, child))
	WaitFor(t, "the deleted child to be made again", func() (bool, error) {
		fresh := child.DeepCopy()
		if err := c.Get(ctx, key, fresh); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if fresh.GetUID() == child.GetUID() {
			return false, nil
		}
		return isReady()
	})
	require.NoError(t, c.Get(ctx, key, child))
	requireQuiet(t, c, "an unchanged resource must cause no write to its child or its status", child, cr)

	t.Run("children converge exactly", func(t *testing.T) { checkConvergence(t, c, dir, ns) })
	t.Run("the Microservice scenario gets its four children", func(t *testing.T) { checkMicroservice(t, c, dir, ns) })
	t.Run("a refused child", func(t *testing.T) { checkRefusedChild(t, c, dir, ns) })
	t.Run("the conformance cases get their children", func(t *testing.T) { checkCases(t, c, dir, ns) })
}

// ready reports whether the CR's status says Ready for its generation, in
// status.observedGeneration and in the condition's.
func ready(ctx context.Context, c client.Client, cr *unstructured.Unstructured) (bool, error) {
	if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
		return false, err
	}
	return readyNow(cr), nil
}

// readyNow: the object as it is held is Ready for its generation, in the
// resource's observedGeneration and the condition's.
func readyNow(cr *unstructured.Unstructured) bool {
	observed, _, _ := unstructured.NestedInt64(cr.Object, "status", "observedGeneration")
	cond := readyCondition(cr)
	return observed == cr.GetGeneration() && cond != nil && cond["status"] == "True" &&
		fmt.Sprint(cond["observedGeneration"]) == fmt.Sprint(cr.GetGeneration())
}

func readyReason(cr *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, cond := range conditions {
		if m := cond.(map[string]any); m["type"] == "Ready" {
			return fmt.Sprint(m["reason"])
		}
	}
	return ""
}

// updateSpec changes the resource's spec on its latest version: a runtime
// may be writing to it at the same time (Kopf its annotations, every style
// its status), which only conflicts.
func updateSpec(t *testing.T, c client.Client, cr *unstructured.Unstructured, change func(spec map[string]any)) {
	t.Helper()
	require.NoError(t, changeSpec(context.Background(), c, cr, change))
}

// changeSpec is updateSpec for a goroutine: it returns its error.
func changeSpec(ctx context.Context, c client.Client, cr *unstructured.Unstructured, change func(spec map[string]any)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return err
		}
		if err := changeIn(cr, change); err != nil {
			return err
		}
		return c.Update(ctx, cr)
	})
}

// changeIn applies change to obj's spec, in obj.
func changeIn(obj *unstructured.Unstructured, change func(spec map[string]any)) error {
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	if spec == nil {
		spec = map[string]any{}
	}
	change(spec)
	return unstructured.SetNestedMap(obj.Object, spec, "spec")
}

// quietFor is how long an operator that has settled writes none of the
// objects; settleWithin, how long it may take to settle.
const quietFor, settleWithin = 4 * time.Second, 30 * time.Second

// requireQuiet waits for a stretch of quietFor in which none of objs is
// written. The last writes of a convergence (a child made again, then its
// status Ready in the next pass) may still land after the state a test
// waited for shows, so quiet is waited for, not assumed; an operator that
// writes at every pass, or every few seconds, never gives it.
func requireQuiet(t *testing.T, c client.Client, what string, objs ...*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	versions := map[*unstructured.Unstructured]string{}
	var written string
	lastWrite := time.Now()
	err := pollFor(settleWithin, func() (bool, error) {
		for _, o := range objs {
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
				return false, err
			}
			if v := o.GetResourceVersion(); versions[o] != v {
				if versions[o] != "" {
					written = fmt.Sprintf("%s %s written at %s", o.GetKind(), o.GetName(), time.Now().Format(time.TimeOnly))
				}
				versions[o], lastWrite = v, time.Now()
			}
		}
		return time.Since(lastWrite) >= quietFor, nil
	})
	require.NoError(t, err, "%s: no %s without a write in %s (last: %s)", what, quietFor, settleWithin, written)
}
