//go:build e2e

package metacontrollertest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lastAppliedAnnotation is where Metacontroller keeps what it last applied.
const lastAppliedAnnotation = "metacontroller.k8s.io/last-applied-configuration"

// ApplyAsMetacontroller creates a child, or updates it in place as
// Metacontroller's default dynamic apply does (pkg/controller/common
// ApplyUpdate and pkg/dynamic/apply Merge): the observed object merged with
// what it applies now, fields it applied last time and no longer applies
// removed, lists of named items merged item by item (existing items keep
// their place, new ones are appended), status left as observed; written
// with an Update only when the merge changed something, and what it applied
// recorded in an annotation.
func ApplyAsMetacontroller(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	desired := obj.DeepCopy()
	delete(desired.Object, "status")
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(obj.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(obj), current)
	if apierrors.IsNotFound(err) {
		if err := setLastApplied(desired, desired.Object); err != nil {
			return err
		}
		return c.Create(ctx, desired)
	}
	if err != nil {
		return err
	}
	var lastApplied map[string]any
	if last := current.GetAnnotations()[lastAppliedAnnotation]; last != "" {
		if err := json.Unmarshal([]byte(last), &lastApplied); err != nil {
			return fmt.Errorf("%s annotation: %w", lastAppliedAnnotation, err)
		}
	}
	merged := runtime.DeepCopyJSON(current.Object)
	mergeObject(merged, lastApplied, desired.Object)
	if status, ok := current.Object["status"]; ok {
		merged["status"] = status
	} else {
		delete(merged, "status")
	}
	updated := &unstructured.Unstructured{Object: merged}
	if err := setLastApplied(updated, desired.Object); err != nil {
		return err
	}
	if reflect.DeepEqual(updated.Object, current.Object) {
		return nil
	}
	return c.Update(ctx, updated)
}

func setLastApplied(obj *unstructured.Unstructured, applied map[string]any) error {
	b, err := json.Marshal(applied)
	if err != nil {
		return err
	}
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[lastAppliedAnnotation] = string(b)
	obj.SetAnnotations(annotations)
	return nil
}

// mergeValue merges desired into observed, given what was applied last.
func mergeValue(observed, lastApplied, desired any) any {
	switch o := observed.(type) {
	case map[string]any:
		d, ok := desired.(map[string]any)
		if !ok {
			return desired
		}
		last, _ := lastApplied.(map[string]any)
		mergeObject(o, last, d)
		return o
	case []any:
		d, ok := desired.([]any)
		if !ok {
			return desired
		}
		last, _ := lastApplied.([]any)
		if key := listMapKey(o, last, d); key != "" {
			return mergeListMap(key, o, last, d)
		}
	}
	return desired
}

// mergeObject removes from observed the keys applied last time and no
// longer desired, and merges every desired key.
func mergeObject(observed, lastApplied, desired map[string]any) {
	for k := range lastApplied {
		if _, ok := desired[k]; !ok {
			delete(observed, k)
		}
	}
	for k, v := range desired {
		observed[k] = mergeValue(observed[k], lastApplied[k], v)
	}
}

// mergeKeys are the fields Metacontroller recognises as the key of a list
// of objects, in its order of preference.
var mergeKeys = []string{"containerPort", "port", "mountPath", "name", "uid", "ip", "path"}

// listMapKey is the merge key every item of the lists has, or "" when they
// are not lists of keyed objects.
func listMapKey(lists ...[]any) string {
	var common map[string]bool
	for _, list := range lists {
		for _, item := range list {
			obj, ok := item.(map[string]any)
			if !ok {
				return ""
			}
			if common == nil {
				common = map[string]bool{}
				for k := range obj {
					common[k] = true
				}
				continue
			}
			for k := range common {
				if _, ok := obj[k]; !ok {
					delete(common, k)
				}
			}
		}
	}
	for _, k := range mergeKeys {
		if common[k] {
			return k
		}
	}
	return ""
}

// mergeListMap merges keyed lists as objects keyed by key; items already
// there keep their place and new ones follow in the desired order.
func mergeListMap(key string, observed, lastApplied, desired []any) []any {
	byKey := func(list []any) map[string]any {
		m := map[string]any{}
		for _, item := range list {
			m[fmt.Sprint(item.(map[string]any)[key])] = item
		}
		return m
	}
	merged := byKey(observed)
	mergeObject(merged, byKey(lastApplied), byKey(desired))
	out := make([]any, 0, len(merged))
	placed := map[string]bool{}
	for _, list := range [][]any{observed, desired} {
		for _, item := range list {
			k := fmt.Sprint(item.(map[string]any)[key])
			if v, ok := merged[k]; ok && !placed[k] {
				out = append(out, v)
				placed[k] = true
			}
		}
	}
	return out
}
