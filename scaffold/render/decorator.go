package render

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/opctl/opctl/scaffold"
)

// WatchHandledReason is the reason of the Event a watch's handler records
// on each object the user's code handled.
const WatchHandledReason = "Handled"

// WatchFixture is an object the watch sees, for the styles' tests: in the
// watched namespace ("default" when it watches every one), with the
// selector's labels.
func WatchFixture(w scaffold.Watch, name, uid, resourceVersion string) map[string]any {
	meta := map[string]any{"name": name, "uid": uid, "resourceVersion": resourceVersion}
	if len(w.Selector) > 0 {
		labels := map[string]any{}
		for k, v := range w.Selector {
			labels[k] = v
		}
		meta["labels"] = labels
	}
	if !w.Target.ClusterScoped() {
		meta["namespace"] = cmp.Or(w.Namespace, "default")
	}
	return map[string]any{"apiVersion": w.Target.APIVersion, "kind": w.Target.Kind, "metadata": meta}
}

// WatchStarterObject is the object the tests of a watch's starter handler
// hand it, for the styles whose tests call it on one object.
func WatchStarterObject(w scaffold.Watch) map[string]any {
	return WatchFixture(w, "first", "00000000-0000-4000-8000-000000000001", "41")
}

// WatchStarterCase is WatchStarterObject as JSON (indented with indent)
// and the message the starter gives for it.
func WatchStarterCase(w scaffold.Watch, indent string) (fixture, message string, err error) {
	obj := WatchStarterObject(w)
	b, err := json.MarshalIndent(obj, "", indent)
	return string(b), scaffold.WatchMessage(obj), err
}

// QuotedPairs is a label selector as the entries of a Go map or Python
// dict literal: "k": "v", "k2": "v2".
func QuotedPairs(selector map[string]string) string {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		pairs = append(pairs, strconv.Quote(k)+": "+strconv.Quote(selector[k]))
	}
	return strings.Join(pairs, ", ")
}
