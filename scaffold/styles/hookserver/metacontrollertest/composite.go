//go:build e2e

package metacontrollertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
)

// RunComposite is a styletest.Runner that plays Metacontroller v4.17 (with
// its own cluster admin account): it serves the generated hook server on
// loopback and, for each CompositeController in config/metacontroller,
// validates it as Metacontroller does (pkg/controller/composite/controller.go:
// without generateSelector the parent needs a spec.selector), claims the
// children that match the selector and are controlled by the parent, posts
// the sync request, adds the controller-uid label to the desired children
// when the selector is generated and refuses children the selector would
// not match, applies them, and writes the returned status with
// observedGeneration.
func RunComposite(t *testing.T, dir, _, admin string) *styletest.Process {
	return imitate(t, dir, admin, "CompositeController", func(ctx context.Context, c client.Client, base string, cc *unstructured.Unstructured) error {
		return syncOnce(ctx, c, base, cc, t.Logf)
	})
}

// imitate serves the generated hook server on loopback and, until
// stopped, syncs every controller of kind in config/metacontroller with
// sync, as Metacontroller's own cluster admin account.
func imitate(t *testing.T, dir, admin, kind string, sync func(ctx context.Context, c client.Client, base string, controller *unstructured.Unstructured) error) *styletest.Process {
	cfg, err := clientcmd.BuildConfigFromFlags("", admin)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "config/metacontroller/*.yaml"))
	require.NoError(t, err)
	var controllers []*unstructured.Unstructured
	for _, f := range files {
		for _, o := range styletest.ReadObjects(t, f) {
			if o.GetKind() == kind {
				controllers = append(controllers, o)
			}
		}
	}
	require.NotEmpty(t, controllers, "no %s in config/metacontroller", kind)
	base, stopServer := StartHookServer(t, dir)
	loop := styletest.Repeat(t, func(ctx context.Context) error {
		for _, controller := range controllers {
			if err := sync(ctx, c, base, controller); err != nil {
				return err
			}
		}
		return nil
	})
	return styletest.NewProcess(t, func() {
		loop.Kill()
		stopServer()
	}, func() {
		loop.Stop()
		stopServer()
	}, loop.Logs)
}

// resourceKind is the kind of a resource of an apiVersion ("apps/v1", "v1").
func resourceKind(c client.Client, apiVersion, resource string) (string, error) {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	gvk, err := c.RESTMapper().KindFor(gv.WithResource(resource))
	return gvk.Kind, err
}

// syncOnce syncs every parent of cc as Metacontroller does: it calls the
// hook, applies every desired child (an error is remembered, the others are
// still applied), writes the status the hook returned regardless, and logs
// the children's errors (Metacontroller requeues the parent with backoff;
// the next pass here tries again), without stopping the other parents.
func syncOnce(ctx context.Context, c client.Client, base string, cc *unstructured.Unstructured, logf func(string, ...any)) error {
	parentAPIVersion, _, _ := unstructured.NestedString(cc.Object, "spec", "parentResource", "apiVersion")
	parentResource, _, _ := unstructured.NestedString(cc.Object, "spec", "parentResource", "resource")
	generateSelector, _, _ := unstructured.NestedBool(cc.Object, "spec", "generateSelector")
	parentKind, err := resourceKind(c, parentAPIVersion, parentResource)
	if err != nil {
		return err
	}
	childRules, _, _ := unstructured.NestedSlice(cc.Object, "spec", "childResources")
	parents := &unstructured.UnstructuredList{}
	parents.SetAPIVersion(parentAPIVersion)
	parents.SetKind(parentKind + "List")
	if err := c.List(ctx, parents); err != nil {
		return err
	}
	for _, parent := range parents.Items {
		selector := labels.SelectorFromSet(labels.Set{"controller-uid": string(parent.GetUID())})
		if !generateSelector {
			raw, _, _ := unstructured.NestedFieldNoCopy(parent.Object, "spec", "selector")
			ls, err := labelSelector(raw)
			if err != nil {
				return err
			}
			if len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0 {
				return fmt.Errorf("failed to sync %s '%s/%s': .spec.selector must have either matchLabels, matchExpressions, or both",
					parentKind, parent.GetNamespace(), parent.GetName())
			}
			if selector, err = metav1.LabelSelectorAsSelector(ls); err != nil {
				return err
			}
		}
		// Observed children, keyed as Metacontroller keys them: Kind.apiVersion, then name.
		observed := map[string]any{}
		// The kinds Metacontroller never updates once created (updateStrategy OnDelete).
		onDelete := map[string]bool{}
		for _, r := range childRules {
			rule := r.(map[string]any)
			apiVersion, kind, err := ruleKind(c, rule)
			if err != nil {
				return err
			}
			if observed[kind+"."+apiVersion], err = controlled(ctx, c, apiVersion, kind, &parent, selector); err != nil {
				return err
			}
			method, _, _ := unstructured.NestedString(rule, "updateStrategy", "method")
			onDelete[kind+"."+apiVersion] = method == "OnDelete"
		}
		var response struct {
			Status   map[string]any   `json:"status"`
			Children []map[string]any `json:"children"`
		}
		if err := callHook(base, cc, map[string]any{"controller": cc.Object,
			"parent": parent.Object, "children": observed, "finalizing": false}, &response); err != nil {
			return fmt.Errorf("sync %s: %w", parent.GetName(), err)
		}
		for _, obj := range response.Children {
			child := &unstructured.Unstructured{Object: obj}
			childLabels := child.GetLabels()
			if generateSelector {
				if childLabels == nil {
					childLabels = map[string]string{}
				}
				if _, ok := childLabels["controller-uid"]; !ok {
					childLabels["controller-uid"] = string(parent.GetUID())
					child.SetLabels(childLabels)
				}
			}
			if !selector.Matches(labels.Set(childLabels)) {
				return fmt.Errorf("labels on desired child %s %s/%s don't match parent selector", child.GetKind(), child.GetNamespace(), child.GetName())
			}
			key := child.GetKind() + "." + child.GetAPIVersion()
			if _, exists := observed[key].(map[string]any)[child.GetName()]; exists && onDelete[key] {
				continue
			}
			if err := ApplyAsMetacontroller(ctx, c, child); err != nil {
				logf("can't reconcile children for %s %s: %v", parentKind, parent.GetName(), err)
			}
		}
		// Metacontroller injects observedGeneration, then writes status if it changed.
		response.Status["observedGeneration"] = parent.GetGeneration()
		current, _, _ := unstructured.NestedMap(parent.Object, "status")
		if !equalJSON(current, response.Status) {
			patch, err := json.Marshal(map[string]any{"status": response.Status})
			if err != nil {
				return err
			}
			if err := c.Status().Patch(ctx, &parent, client.RawPatch(types.MergePatchType, patch)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ruleKind is the apiVersion and kind of a controller's rule of resources
// (childResources, resources, attachments).
func ruleKind(c client.Client, rule map[string]any) (apiVersion, kind string, err error) {
	apiVersion = rule["apiVersion"].(string)
	kind, err = resourceKind(c, apiVersion, rule["resource"].(string))
	return apiVersion, kind, err
}

// labelSelector is a label selector as JSON decodes it.
func labelSelector(raw any) (*metav1.LabelSelector, error) {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	ls := &metav1.LabelSelector{}
	return ls, json.Unmarshal(b, ls)
}

// callHook posts request to controller's sync hook, served at base, and
// decodes its answer into response.
func callHook(base string, controller *unstructured.Unstructured, request, response any) error {
	hookURL, _, _ := unstructured.NestedString(controller.Object, "spec", "hooks", "sync", "webhook", "url")
	u, err := url.Parse(hookURL)
	if err != nil {
		return err
	}
	body, err := json.Marshal(request)
	if err != nil {
		return err
	}
	resp, err := http.Post(base+u.Path, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d from %s", resp.StatusCode, u.Path)
	}
	return json.NewDecoder(resp.Body).Decode(response)
}

// controlled lists the objects of kind in parent's namespace that selector
// selects and parent controls, by name, as Metacontroller gives a hook its
// children and attachments.
func controlled(ctx context.Context, c client.Client, apiVersion, kind string, parent *unstructured.Unstructured, selector labels.Selector) (map[string]any, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(apiVersion)
	list.SetKind(kind + "List")
	if err := c.List(ctx, list, client.InNamespace(parent.GetNamespace()), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, err
	}
	byName := map[string]any{}
	for _, child := range list.Items {
		if ref := metav1.GetControllerOf(&child); ref != nil && ref.UID == parent.GetUID() {
			byName[child.GetName()] = child.Object
		}
	}
	return byName, nil
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xa, yb any
	_ = json.Unmarshal(x, &xa)
	_ = json.Unmarshal(y, &yb)
	return reflect.DeepEqual(xa, yb)
}
