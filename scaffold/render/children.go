package render

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/objpath"
)

// This file is the reference of the starter behaviour every style writes
// out in its own language, field by field, for the fields a kind has: the
// children and status a custom resource should have. opctl renders the
// conformance cases from it, so every implementation is checked against
// the same rules:
//
//   - one child per owned kind, named <name>-<kind in lower case>, in the
//     resource's namespace, controlled by the resource;
//   - labels app.kubernetes.io/{name: <singular>, instance: <name>,
//     managed-by: <project>}, by which workloads select their pods, and the
//     resource's own labels besides (as Kopf's adopt gives them);
//   - a ConfigMap (and a Secret, base64) holds each field of the spec that
//     is set under its name (backup.schedule), as text (FieldText);
//   - the conventions (Conventions), each where the kind has the field and
//     the object sets it: image (a string) is the workloads' container
//     image, run with its own entrypoint (else the pinned child image runs
//     the starter's command); port (an integer) is the container port named
//     http and the Service's port (else 8080, and 80 for the Service);
//     replicas is the workloads' replicas (else 1), or, when a
//     HorizontalPodAutoscaler is owned, its minReplicas (unless minReplicas
//     is given) and the workload leaves replicas to it; maxReplicas is the
//     autoscaler's maximum (else its minimum, and never below it); host is
//     the Ingress's host; schedule is the CronJob's schedule (else @hourly);
//     env (a map) holds the workloads' environment variables, beside one
//     SPEC_<FIELD> variable for each other field that is set (a key of env
//     wins over one of those); resources.requests and resources.limits
//     (maps) are the workloads' container resources; fields of Kubernetes'
//     own types go to the pods whole: resources (core/v1.ResourceRequirements)
//     is the container's resources, env ([]core/v1.EnvVar) its environment
//     besides the SPEC_ variables (an item of the same name wins),
//     tolerations ([]core/v1.Toleration), affinity (core/v1.Affinity) and
//     nodeSelector (a map) the pod's; the data children (ConfigMap, Secret)
//     and SPEC_ variables hold every other value (api.Field.InData).

// FieldText is a spec value as the children hold it: a string as it is,
// true or false, an integer in decimal, a list or a map as compact JSON
// with its keys sorted, UTF-8 as it is and no HTML escaping (json.Marshal
// writes < as \u003c, which no other language does).
func FieldText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// crSpec is a custom resource's spec as the reference reads it.
type crSpec map[string]any

// Value is the value of a field, if the object sets it.
func (s crSpec) value(f *api.Field) (any, bool) {
	if f == nil {
		return nil, false
	}
	v, ok := objpath.Value(s, f.Path())
	return v, ok && v != nil
}

// integer is an integer field's value, else otherwise.
func (s crSpec) integer(f *api.Field, otherwise int64) int64 {
	v, ok := s.value(f)
	if !ok {
		return otherwise
	}
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int64:
		return n
	}
	n, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	return n
}

// text is a string field's value, else otherwise.
func (s crSpec) text(f *api.Field, otherwise string) string {
	if v, ok := s.value(f); ok {
		return FieldText(v)
	}
	return otherwise
}

// strings is a map field's entries.
func (s crSpec) strings(f *api.Field) map[string]string {
	out := map[string]string{}
	v, _ := s.value(f)
	m, _ := v.(map[string]any)
	for k, x := range m {
		out[k] = FieldText(x)
	}
	return out
}

// DesiredChildren returns the children of a custom resource of the API.
func DesiredChildren(p scaffold.Project, a api.API, cr map[string]any) []map[string]any {
	meta, _ := cr["metadata"].(map[string]any)
	spec, _ := cr["spec"].(map[string]any)
	name, _ := meta["name"].(string)
	labels := map[string]any{}
	for k, v := range a.SelectorLabels(p.Name, name) {
		labels[k] = v
	}
	owner := map[string]any{
		"apiVersion": cr["apiVersion"], "kind": cr["kind"], "name": name, "uid": meta["uid"],
		"controller": true, "blockOwnerDeletion": true,
	}
	childLabels := map[string]any{}
	own, _ := meta["labels"].(map[string]any)
	for _, l := range []map[string]any{own, labels} {
		for k, v := range l {
			childLabels[k] = v
		}
	}
	var children []map[string]any
	for _, c := range a.OwnedKinds() {
		child := childContent(p, a, c.Kind, name, labels, crSpec(spec))
		child["apiVersion"], child["kind"] = c.APIVersion(), c.Kind
		child["metadata"] = map[string]any{
			"name": name + "-" + c.Suffix(), "namespace": meta["namespace"], "labels": childLabels,
			"ownerReferences": []any{owner},
		}
		children = append(children, child)
	}
	return children
}

// childContent is the content of the owner's child of kind; the API's
// owned kinds refer to each other by name.
func childContent(p scaffold.Project, a api.API, kind, owner string, labels map[string]any, spec crSpec) map[string]any {
	conv := a.Conventions()
	name := owner + "-" + strings.ToLower(kind)
	containerPort := spec.integer(conv.Port, 8080)
	switch kind {
	case "ConfigMap", "Secret":
		data := map[string]any{}
		values := a.Values()
		for i, f := range values {
			if v, ok := spec.value(&values[i]); ok && f.InData() {
				data[f.Name] = FieldText(v)
				if kind == "Secret" {
					data[f.Name] = base64.StdEncoding.EncodeToString([]byte(FieldText(v)))
				}
			}
		}
		if kind == "Secret" {
			return map[string]any{"type": "Opaque", "data": data}
		}
		return map[string]any{"data": data}
	case "Service":
		return map[string]any{"spec": map[string]any{
			"selector": labels,
			"ports":    []any{map[string]any{"name": "http", "protocol": "TCP", "port": spec.integer(conv.Port, 80), "targetPort": containerPort}},
		}}
	case "Deployment", "StatefulSet":
		workload := map[string]any{
			"replicas": spec.integer(conv.Replicas, 1),
			"selector": map[string]any{"matchLabels": labels},
			"template": podTemplate(p, a, labels, []any{"sleep", "2147483647"}, spec),
		}
		if kind == a.ScaledKind() {
			// The autoscaler sets the replicas.
			delete(workload, "replicas")
		}
		if kind == "StatefulSet" {
			workload["serviceName"] = name
		}
		return map[string]any{"spec": workload}
	case "Job":
		return map[string]any{"spec": jobSpec(p, a, labels, spec)}
	case "CronJob":
		// A run still going when the next is due skips that one.
		return map[string]any{"spec": map[string]any{
			"schedule": spec.text(conv.Schedule, "@hourly"), "concurrencyPolicy": "Forbid",
			"jobTemplate": map[string]any{"spec": jobSpec(p, a, labels, spec)},
		}}
	case "HorizontalPodAutoscaler":
		target := a.ScaledKind()
		minimum := spec.integer(conv.MinReplicas, spec.integer(conv.Replicas, 1))
		// Scales the workload to keep its pods at 80% of their CPU request.
		return map[string]any{"spec": map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": target, "name": owner + "-" + strings.ToLower(target)},
			"minReplicas":    minimum, "maxReplicas": max(minimum, spec.integer(conv.MaxReplicas, minimum)),
			"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{
				"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": 80}}}},
		}}
	case "Ingress":
		// Every path to the owner's Service, on spec.host when it has one.
		rule := map[string]any{"http": map[string]any{"paths": []any{map[string]any{
			"path": "/", "pathType": "Prefix",
			"backend": map[string]any{"service": map[string]any{"name": owner + "-service", "port": map[string]any{"name": "http"}}},
		}}}}
		if host, ok := spec.value(conv.Host); ok {
			rule["host"] = host
		}
		return map[string]any{"spec": map[string]any{"rules": []any{rule}}}
	case "ServiceMonitor":
		// Prometheus scrapes the owner's Service on its http port.
		return map[string]any{"spec": map[string]any{
			"selector":  map[string]any{"matchLabels": labels},
			"endpoints": []any{map[string]any{"port": "http"}},
		}}
	case "PodDisruptionBudget":
		// At most one of the resource's pods down at a time in a drain.
		return map[string]any{"spec": map[string]any{"selector": map[string]any{"matchLabels": labels}, "maxUnavailable": 1}}
	case "NetworkPolicy":
		// Ingress to the resource's pods on their http port only, from anywhere.
		return map[string]any{"spec": map[string]any{
			"podSelector": map[string]any{"matchLabels": labels},
			"policyTypes": []any{"Ingress"},
			"ingress":     []any{map[string]any{"ports": []any{map[string]any{"protocol": "TCP", "port": containerPort}}}},
		}}
	}
	panic("unknown child kind " + kind)
}

// jobSpec runs the child image once with the spec as environment.
func jobSpec(p scaffold.Project, a api.API, labels map[string]any, spec crSpec) map[string]any {
	template := podTemplate(p, a, labels, []any{"env"}, spec)
	template["spec"].(map[string]any)["restartPolicy"] = "Never"
	return map[string]any{"template": template}
}

func podTemplate(p scaffold.Project, a api.API, labels map[string]any, command []any, spec crSpec) map[string]any {
	conv := a.Conventions()
	vars := map[string]string{}
	fields := a.EnvFields()
	for i, f := range fields {
		if v, ok := spec.value(&fields[i]); ok {
			vars[f.EnvName()] = FieldText(v)
		}
	}
	for k, v := range spec.strings(conv.Env) {
		vars[k] = v
	}
	own, _ := spec.value(conv.EnvVars)
	items, _ := own.([]any)
	for _, item := range items {
		name, _ := item.(map[string]any)["name"].(string)
		delete(vars, name)
	}
	env := []any{}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, map[string]any{"name": k, "value": vars[k]})
	}
	env = append(env, items...)
	container := map[string]any{
		"name": "main", "image": p.Versions.ChildImage, "command": command, "env": env,
		"ports": []any{map[string]any{"name": "http", "containerPort": spec.integer(conv.Port, 8080), "protocol": "TCP"}},
		"securityContext": map[string]any{
			"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": map[string]any{"drop": []any{"ALL"}},
		},
	}
	if image, ok := spec.value(conv.Image); ok {
		// The application's image runs its own entrypoint.
		container["image"] = image
		delete(container, "command")
	}
	resources := map[string]any{}
	for section, f := range map[string]*api.Field{"requests": conv.Requests, "limits": conv.Limits} {
		if list := spec.strings(f); len(list) > 0 {
			resources[section] = toAny(list)
		}
	}
	if len(resources) > 0 {
		container["resources"] = resources
	}
	if v, ok := spec.value(conv.Resources); ok {
		container["resources"] = v
	}
	pod := map[string]any{
		"securityContext": map[string]any{
			"runAsNonRoot": true, "runAsUser": nonRootUID,
			"seccompProfile": map[string]any{"type": "RuntimeDefault"},
		},
		"containers": []any{container},
	}
	for key, f := range map[string]*api.Field{"tolerations": conv.Tolerations, "affinity": conv.Affinity, "nodeSelector": conv.NodeSelector} {
		if v, ok := spec.value(f); ok {
			pod[key] = v
		}
	}
	return map[string]any{"metadata": map[string]any{"labels": labels}, "spec": pod}
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sameQuantities reports whether every desired quantity of a container's
// resources has the same value in actual: the API server writes them in
// its canonical form (1000m reads back as 1, 0.5Gi as 512Mi).
func sameQuantities(desired, actual any) bool {
	d, _ := desired.(map[string]any)
	a, _ := actual.(map[string]any)
	for section, names := range d {
		have, _ := a[section].(map[string]any)
		quantities, ok := names.(map[string]any)
		if !ok {
			if !isSubset(names, a[section]) { // claims
				return false
			}
			continue
		}
		for name, v := range quantities {
			w, g := fmt.Sprint(v), fmt.Sprint(have[name])
			if w == g {
				continue
			}
			want, errW := resource.ParseQuantity(w)
			got, errG := resource.ParseQuantity(g)
			if errW != nil || errG != nil || want.Cmp(got) != 0 {
				return false
			}
		}
	}
	return true
}

// StatusPatch returns the status a reconciled resource should record, or nil
// when its status already says so: Ready=True when no child is pending
// (missing or not yet as desired when read back), else False with reason
// ChildrenPending naming them. lastTransitionTime changes only when the
// Ready condition's status does, as with metav1.Condition.
func StatusPatch(cr map[string]any, now string, pending []string) map[string]any {
	meta, _ := cr["metadata"].(map[string]any)
	generation := meta["generation"]
	if generation == nil {
		generation = int64(0)
	}
	status, _ := cr["status"].(map[string]any)
	ready := map[string]any{
		"type": "Ready", "status": "True", "reason": "Reconciled",
		"message": "all children are up to date", "observedGeneration": generation,
	}
	if len(pending) > 0 {
		ready["status"], ready["reason"] = "False", "ChildrenPending"
		ready["message"] = "waiting for " + strings.Join(pending, ", ")
	}
	conditions, _ := status["conditions"].([]any)
	out := make([]any, 0, len(conditions)+1)
	found := false
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] != "Ready" {
			out = append(out, c)
			continue
		}
		found = true
		if sameCondition(cond, ready) && jsonEqual(status["observedGeneration"], generation) {
			return nil
		}
		next := copyMap(ready)
		next["lastTransitionTime"] = now
		if cond["status"] == ready["status"] {
			next["lastTransitionTime"] = cond["lastTransitionTime"]
		}
		out = append(out, next)
	}
	if !found {
		next := copyMap(ready)
		next["lastTransitionTime"] = now
		out = append(out, next)
	}
	return map[string]any{"observedGeneration": generation, "conditions": out}
}

// isSubset reports whether every field of desired has the same value in
// actual: fields the API server adds (defaults, resourceVersion, status) do
// not count, and an empty map or list is absent, as the API server leaves
// it (a ConfigMap's data of an empty spec). Lists must have the same
// length; lists of objects keyed by name (env, containers, ports) compare
// by name, since runtimes that merge them (Metacontroller) keep existing
// items in place and append new ones; other lists compare item by item.
func isSubset(desired, actual any) bool {
	switch d := desired.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range d {
			same := isSubset
			if k == "resources" {
				same = sameQuantities
			}
			av, ok := a[k]
			if !ok && !isEmpty(v) || ok && !same(v, av) {
				return false
			}
		}
		return true
	case []any:
		a, ok := actual.([]any)
		if !ok || len(a) != len(d) {
			return false
		}
		if named, actualNamed := ByName(d), ByName(a); named != nil && actualNamed != nil {
			if len(named) != len(actualNamed) {
				return false
			}
			for name, item := range named {
				if !isSubset(item, actualNamed[name]) {
					return false
				}
			}
			return true
		}
		for i := range d {
			if !isSubset(d[i], a[i]) {
				return false
			}
		}
		return true
	}
	return jsonEqual(desired, actual)
}

// isEmpty reports whether v is an empty map or list.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// ByName keys a list of objects by their name field, or returns nil when
// some item is not an object with a name.
func ByName(items []any) map[string]any {
	if len(items) == 0 {
		return nil
	}
	out := make(map[string]any, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil
		}
		name, ok := m["name"].(string)
		if !ok {
			return nil
		}
		out[name] = m
	}
	return out
}

// specMap is the top-level map whose every key comes from the spec (a
// ConfigMap's or a Secret's data): a key the spec no longer has is stale.
const specMap = "data"

// Matches reports whether actual (as read back, or nil) is the desired
// child: every desired field is there (isSubset of comparableChild) and the maps
// the spec decides hold no stale key.
func Matches(desired, actual map[string]any) bool {
	if actual == nil || !isSubset(comparableChild(desired), actual) {
		return false
	}
	want, ok := desired[specMap].(map[string]any)
	if !ok {
		return true
	}
	have, _ := actual[specMap].(map[string]any)
	for k := range have {
		if _, ok := want[k]; !ok {
			return false
		}
	}
	return true
}

// Reconciled is the children once desired is applied over observed: a
// kind whose spec cannot change after creation keeps what it has, with
// the desired metadata.
func Reconciled(desired, observed []map[string]any) []map[string]any {
	out := make([]map[string]any, len(desired))
	for i, d := range desired {
		out[i] = d
		if specMutable(d["kind"]) {
			continue
		}
		for _, o := range observed {
			if o["kind"] == d["kind"] && jsonEqual(o["metadata"].(map[string]any)["name"], d["metadata"].(map[string]any)["name"]) {
				kept := copyMap(o)
				kept["metadata"] = d["metadata"]
				out[i] = kept
			}
		}
	}
	return out
}

// OutdatedReason is the reason of a Ready condition False because a child
// whose spec cannot change once created (a Job) was made from an earlier
// spec of its resource: every style reports it, none recreates the child
// on its own (a Job may be running), and deleting it has it made again.
const OutdatedReason = "ChildOutdated"

// Outdated are the children of desired whose kind's spec cannot change
// once created and that observed holds with another spec (every field the
// desired spec sets, as isSubset compares it), as "Kind name".
func Outdated(desired, observed []map[string]any) []string {
	var out []string
	for _, d := range desired {
		if specMutable(d["kind"]) {
			continue
		}
		name := d["metadata"].(map[string]any)["name"]
		for _, o := range observed {
			if o["kind"] == d["kind"] && jsonEqual(o["metadata"].(map[string]any)["name"], name) && !isSubset(d["spec"], o["spec"]) {
				out = append(out, fmt.Sprintf("%s %s", d["kind"], name))
			}
		}
	}
	return out
}

// comparableChild is the part of a child that must match what the API server
// has: only the metadata of kinds whose spec cannot change after creation.
func comparableChild(child map[string]any) map[string]any {
	if !specMutable(child["kind"]) {
		return map[string]any{"metadata": child["metadata"]}
	}
	return child
}

// specMutable reports whether the spec of a child of kind can change
// after creation.
func specMutable(kind any) bool {
	for _, c := range api.ChildKinds() {
		if c.Kind == kind {
			return c.Mutable
		}
	}
	return true
}

func sameCondition(have, want map[string]any) bool {
	h := copyMap(have)
	delete(h, "lastTransitionTime")
	return jsonEqual(h, want)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
