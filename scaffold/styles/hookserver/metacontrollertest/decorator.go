//go:build e2e

package metacontrollertest

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
)

// RunDecorator is a styletest.Runner that plays Metacontroller v4.17's
// DecoratorController (with its own cluster admin account): it serves the
// generated hook server on loopback and, for each DecoratorController in
// config/metacontroller, posts the sync request of every object its
// resources' labelSelector selects, with the attachments the object
// controls, and applies the attachments the hook returns with the object as
// their controller. Like RunComposite, it deletes none.
func RunDecorator(t *testing.T, dir, _, admin string) *styletest.Process {
	return imitate(t, dir, admin, "DecoratorController", func(ctx context.Context, c client.Client, base string, dc *unstructured.Unstructured) error {
		return decorateOnce(ctx, c, base, dc, t.Logf)
	})
}

// decorateOnce syncs every object dc selects, as syncOnce does a parent.
func decorateOnce(ctx context.Context, c client.Client, base string, dc *unstructured.Unstructured, logf func(string, ...any)) error {
	resources, _, _ := unstructured.NestedSlice(dc.Object, "spec", "resources")
	attachmentRules, _, _ := unstructured.NestedSlice(dc.Object, "spec", "attachments")
	for _, r := range resources {
		rule := r.(map[string]any)
		apiVersion, kind, err := ruleKind(c, rule)
		if err != nil {
			return err
		}
		ls, err := labelSelector(rule["labelSelector"])
		if err != nil {
			return err
		}
		selector, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			return err
		}
		objects := &unstructured.UnstructuredList{}
		objects.SetAPIVersion(apiVersion)
		objects.SetKind(kind + "List")
		if err := c.List(ctx, objects, client.MatchingLabelsSelector{Selector: selector}); err != nil {
			return err
		}
		for i := range objects.Items {
			obj := &objects.Items[i]
			observed := map[string]any{}
			for _, a := range attachmentRules {
				apiVersion, kind, err := ruleKind(c, a.(map[string]any))
				if err != nil {
					return err
				}
				if observed[kind+"."+apiVersion], err = controlled(ctx, c, apiVersion, kind, obj, labels.Everything()); err != nil {
					return err
				}
			}
			var response struct {
				Attachments []map[string]any `json:"attachments"`
			}
			if err := callHook(base, dc, map[string]any{"controller": dc.Object, "object": obj.Object, "attachments": observed, "finalizing": false}, &response); err != nil {
				return fmt.Errorf("sync %s: %w", obj.GetName(), err)
			}
			for _, a := range response.Attachments {
				attachment := &unstructured.Unstructured{Object: a}
				if attachment.GetNamespace() == "" {
					attachment.SetNamespace(obj.GetNamespace())
				}
				attachment.SetOwnerReferences([]metav1.OwnerReference{*metav1.NewControllerRef(obj, obj.GroupVersionKind())})
				if err := ApplyAsMetacontroller(ctx, c, attachment); err != nil {
					logf("can't reconcile attachments for %s %s: %v", kind, obj.GetName(), err)
				}
			}
		}
	}
	return nil
}
