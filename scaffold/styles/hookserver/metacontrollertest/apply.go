//go:build e2e

package metacontrollertest

import (
	"context"
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// lastAppliedAnnotation is where Metacontroller keeps what it last applied.
const lastAppliedAnnotation = "metacontroller.k8s.io/last-applied-configuration"

// ApplyAsMetacontroller creates a child, or updates it in place as
// Metacontroller's dynamic apply does (pkg/controller/common: a three-way
// merge of what it last applied, what it applies now and what the API server
// has, so fields it stops applying are removed), recording what it applied
// in an annotation; nothing is written when nothing differs.
func ApplyAsMetacontroller(ctx context.Context, c client.Client, obj *unstructured.Unstructured) error {
	desired := obj.DeepCopy()
	delete(desired.Object, "status")
	applied, err := json.Marshal(desired.Object)
	if err != nil {
		return err
	}
	annotations := desired.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[lastAppliedAnnotation] = string(applied)
	desired.SetAnnotations(annotations)
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(obj.GroupVersionKind())
	err = c.Get(ctx, client.ObjectKeyFromObject(obj), current)
	if apierrors.IsNotFound(err) {
		return c.Create(ctx, desired)
	}
	if err != nil {
		return err
	}
	modified, err := json.Marshal(desired.Object)
	if err != nil {
		return err
	}
	currentJSON, err := json.Marshal(current.Object)
	if err != nil {
		return err
	}
	var original []byte
	if last, ok := current.GetAnnotations()[lastAppliedAnnotation]; ok {
		original = []byte(last)
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, currentJSON)
	if err != nil || string(patch) == "{}" {
		return err
	}
	return c.Patch(ctx, current, client.RawPatch(types.MergePatchType, patch))
}
