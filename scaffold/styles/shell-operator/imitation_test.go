//go:build e2e

package shelloperator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest"
)

// runHooks plays shell-operator v1.20 as the project's ServiceAccount: it
// runs every hook of the project again and again, each as runHookOnce says.
func runHooks(t *testing.T, dir, kubeconfig, _ string) *styletest.Process {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, client.Options{})
	require.NoError(t, err)
	hooks, err := filepath.Glob(filepath.Join(dir, "hooks", "*.sh"))
	require.NoError(t, err)
	require.NotEmpty(t, hooks)
	return styletest.Repeat(t, func(ctx context.Context) error {
		for _, hook := range hooks {
			if err := runHookOnce(ctx, c, kubeconfig, hook, t.Logf); err != nil {
				return err
			}
		}
		return nil
	})
}

// hookBinding is one kubernetes binding of a hook's --config.
type hookBinding struct {
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  *struct {
		NameSelector struct {
			MatchNames []string `json:"matchNames"`
		} `json:"nameSelector"`
	} `json:"namespace"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector"`
	Group         string                `json:"group"`
}

// runHookOnce does what shell-operator does for one hook: it asks the hook
// for its --config, fills every binding's snapshot from the API server
// (label selectors applied), runs the hook with a context of its first
// binding (its group's, carrying the group's snapshots; otherwise a
// Synchronization with its objects), and carries out
// every operation the hook writes as shell-operator's object patcher does
// (pkg/kube/object_patch/patch.go): Create creates; CreateIfNotExists
// creates and takes AlreadyExists as done; CreateOrUpdate is Create, then
// on AlreadyExists Get and Update; MergePatch with subresource status
// patches status, and with ignoreMissingObject takes a missing object as
// done; all operations are applied and their errors collected. A run whose
// operations failed is retried (the hooks' bindings have no allowFailure);
// a hook that fails to run fails the suite. The hook's kubectl (its dry
// runs) reaches the API server as shell-operator's does.
func runHookOnce(ctx context.Context, c client.Client, kubeconfig, hook string, logf func(string, ...any)) error {
	out, err := styletest.GroupCommand(ctx, hook, "--config").Output()
	if err != nil {
		return fmt.Errorf("%s --config: %w", hook, err)
	}
	var config struct {
		Kubernetes []hookBinding `json:"kubernetes"`
	}
	if err := json.Unmarshal(out, &config); err != nil {
		return fmt.Errorf("%s --config: %w", hook, err)
	}
	if len(config.Kubernetes) == 0 {
		return fmt.Errorf("%s --config: no kubernetes binding", hook)
	}
	snapshots := map[string][]any{}
	for _, b := range config.Kubernetes {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(b.APIVersion)
		list.SetKind(b.Kind + "List")
		var opts []client.ListOption
		if b.LabelSelector != nil {
			sel, err := metav1.LabelSelectorAsSelector(b.LabelSelector)
			if err != nil {
				return err
			}
			opts = append(opts, client.MatchingLabelsSelector{Selector: sel})
		}
		// A namespace nameSelector: one watch per named namespace.
		namespaces := []string{""}
		if b.Namespace != nil {
			namespaces = b.Namespace.NameSelector.MatchNames
		}
		items := []any{}
		for _, ns := range namespaces {
			if err := c.List(ctx, list, append(opts, client.InNamespace(ns))...); err != nil {
				return fmt.Errorf("binding %s: %w", b.Name, err)
			}
			for _, o := range list.Items {
				items = append(items, map[string]any{"object": o.Object})
			}
		}
		snapshots[b.Name] = items
	}
	first := config.Kubernetes[0]
	context := map[string]any{"binding": first.Name, "type": "Synchronization", "objects": snapshots[first.Name]}
	if first.Group != "" {
		// A group's context carries the snapshots of all its bindings and
		// no objects (binding_context.go's MapV1).
		grouped := map[string]any{}
		for _, b := range config.Kubernetes {
			if b.Group == first.Group {
				grouped[b.Name] = snapshots[b.Name]
			}
		}
		context = map[string]any{"binding": first.Name, "type": "Group", "groupName": first.Group, "snapshots": grouped}
	}
	bindingContext, err := json.Marshal([]any{context})
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "hook")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	contextPath, patchPath := filepath.Join(tmp, "context.json"), filepath.Join(tmp, "patch.json")
	if err := os.WriteFile(contextPath, bindingContext, 0o644); err != nil {
		return err
	}
	cmd := styletest.GroupCommand(ctx, hook)
	cmd.Env = append(os.Environ(), "BINDING_CONTEXT_PATH="+contextPath, "KUBERNETES_PATCH_PATH="+patchPath, "KUBECONFIG="+kubeconfig)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", hook, err, out)
	}
	patch, err := os.ReadFile(patchPath)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var errs []error
	dec := json.NewDecoder(bytes.NewReader(patch))
	for dec.More() {
		var op struct {
			Operation, APIVersion, Kind, Namespace, Name, Subresource string
			Object                                                    map[string]any
			MergePatch                                                json.RawMessage
			IgnoreMissingObject                                       bool
		}
		if err := dec.Decode(&op); err != nil {
			return err
		}
		err := shellOperatorOperation(ctx, c, op.Operation, op.APIVersion, op.Kind, op.Namespace, op.Name, op.Subresource, op.Object, op.MergePatch)
		if op.IgnoreMissingObject && apierrors.IsNotFound(err) {
			err = nil
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s %s: %w", op.Operation, op.Kind, op.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		// shell-operator retries the failed run, at the head of the hook's
		// queue: the next pass runs it again.
		logf("%s failed, retried: %v", filepath.Base(hook), err)
	}
	return nil
}

func shellOperatorOperation(ctx context.Context, c client.Client, operation, apiVersion, kind, ns, name, subresource string, object map[string]any, mergePatch json.RawMessage) error {
	switch operation {
	case "Create":
		return c.Create(ctx, &unstructured.Unstructured{Object: object})
	case "CreateIfNotExists":
		if err := c.Create(ctx, &unstructured.Unstructured{Object: object}); !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	case "CreateOrUpdate":
		obj := &unstructured.Unstructured{Object: object}
		err := c.Create(ctx, obj.DeepCopy())
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
			existing := &unstructured.Unstructured{}
			existing.SetGroupVersionKind(obj.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing); err != nil {
				return err
			}
			update := obj.DeepCopy()
			update.SetResourceVersion(existing.GetResourceVersion())
			return c.Update(ctx, update)
		})
	case "MergePatch":
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(apiVersion)
		obj.SetKind(kind)
		obj.SetNamespace(ns)
		obj.SetName(name)
		if subresource == "status" {
			return c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, mergePatch))
		}
		return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, mergePatch))
	}
	return fmt.Errorf("operation %q is not one opctl's hooks write", operation)
}
