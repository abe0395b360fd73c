package scaffold

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// This file is the reference of the starter behaviour every style
// implements in its own language: the children and status a custom resource
// should have. opctl renders test fixtures from it (the expected output of
// a style's hooks, for example), so every implementation is checked against
// the same rules:
//
//   - one child per owned kind, named <name>-<kind in lower case>, in the
//     resource's namespace, controlled by the resource;
//   - labels app.kubernetes.io/{name: <singular>, instance: <name>,
//     managed-by: <project>};
//   - content from the spec flattened to dotted keys with string values;
//   - well-known spec fields by convention: image (a string) is the
//     workloads' container image, run with its own entrypoint (else the
//     pinned child image runs the starter's command); port (an integer
//     from 1 to 65535) is the container port named http and the Service's
//     port (else 8080, and 80 for the Service); replicas is the replicas,
//     or, when a HorizontalPodAutoscaler is owned, its minReplicas (unless
//     minReplicas is given) and the workloads leave replicas to it;
//     maxReplicas is the autoscaler's maximum (else its minimum); host is
//     the Ingress's host; schedule is the CronJob's schedule (else @hourly);
//     each key of env (an object of strings) that is a C identifier and
//     not SPEC_... is also the workloads' environment variable of that
//     name, after the SPEC_ variables; resources.requests and
//     resources.limits (objects of quantities) are the workloads'
//     container resources.

// flattenSpec flattens a spec to dotted keys with string values, the one
// encoding of spec values every style matches byte for byte: objects are
// walked, strings are as they are, booleans are true/false, numbers are
// decimal, lists are compact JSON with UTF-8 as it is and no HTML escaping
// (an empty list is []), and null is absent.
func flattenSpec(spec map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch t := v.(type) {
		case nil:
		case map[string]any:
			for k, child := range t {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, child)
			}
		case string:
			out[prefix] = t
		case bool:
			out[prefix] = strconv.FormatBool(t)
		default:
			out[prefix] = compactJSON(t)
		}
	}
	walk("", spec)
	return out
}

// compactJSON is v as compact JSON without HTML escaping (json.Marshal
// writes < as \u003c, which no other language does).
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// SpecValuesPath is the fixture every project with its own kinds gets: a
// spec of tricky values and the values flattenSpec makes of it, which the
// project's own tests compare with its implementation byte for byte.
const SpecValuesPath = "tests/spec-values.json"

// TrickySpec holds the values encodings disagree on: HTML characters,
// non-ASCII, quotes and backslashes, newlines, empty lists and maps,
// nesting, null.
func TrickySpec() map[string]any {
	return map[string]any{
		"html":   []any{"a&b<c>"},
		"utf8":   []any{"café", "日本"},
		"quotes": []any{`say "hi"`, `back\slash`},
		"lines":  []any{"one\ntwo", "tab\there"},
		"empty":  []any{},
		"none":   nil,
		"text":   "a&b <c> café \"q\"\n",
		"flag":   true,
		"count":  float64(3),
		"nested": map[string]any{"k": "v", "deeper": map[string]any{"list": []any{"x"}}, "empty": map[string]any{}},
	}
}

// specValuesFixture is the fixture as JSON with UTF-8 and HTML characters
// as they are, the encoding it is about.
func specValuesFixture() ([]byte, error) {
	spec := TrickySpec()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(map[string]any{"spec": spec, "values": flattenSpec(spec)})
	return []byte(b.String()), err
}

// DesiredChildren returns the children of a custom resource of the API.
func DesiredChildren(p Project, a API, cr map[string]any) []map[string]any {
	meta, _ := cr["metadata"].(map[string]any)
	spec, _ := cr["spec"].(map[string]any)
	name, _ := meta["name"].(string)
	values := flattenSpec(spec)
	labels := map[string]any{
		"app.kubernetes.io/name":       a.Singular(),
		"app.kubernetes.io/instance":   name,
		"app.kubernetes.io/managed-by": p.Name,
	}
	owner := map[string]any{
		"apiVersion": cr["apiVersion"], "kind": cr["kind"], "name": name, "uid": meta["uid"],
		"controller": true, "blockOwnerDeletion": true,
	}
	var children []map[string]any
	for _, c := range a.OwnedKinds() {
		childName := name + "-" + c.Suffix()
		child := childContent(p, a, c.Kind, name, labels, values)
		child["apiVersion"], child["kind"] = c.APIVersion(), c.Kind
		child["metadata"] = map[string]any{
			"name": childName, "namespace": meta["namespace"], "labels": labels,
			"ownerReferences": []any{owner},
		}
		children = append(children, child)
	}
	return children
}

// childContent is the content of the owner's child of kind; the API's
// owned kinds refer to each other by name.
func childContent(p Project, a API, kind, owner string, labels map[string]any, values map[string]string) map[string]any {
	name := owner + "-" + strings.ToLower(kind)
	data := map[string]any{}
	for k, v := range values {
		data[k] = v
	}
	switch kind {
	case "ConfigMap":
		return map[string]any{"data": data}
	case "Secret":
		for k, v := range values {
			data[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		return map[string]any{"type": "Opaque", "data": data}
	case "Service":
		port, given := specPort(values)
		if !given {
			port = 80
		}
		return map[string]any{"spec": map[string]any{
			"selector": labels,
			"ports":    []any{map[string]any{"name": "http", "protocol": "TCP", "port": port, "targetPort": containerPort(values)}},
		}}
	case "Deployment", "StatefulSet":
		spec := map[string]any{
			"replicas": replicas(values),
			"selector": map[string]any{"matchLabels": labels},
			"template": podTemplate(p, labels, []any{"sleep", "2147483647"}, values),
		}
		if kind == a.ScaledKind() {
			// The autoscaler sets the replicas.
			delete(spec, "replicas")
		}
		if kind == "StatefulSet" {
			spec["serviceName"] = name
		}
		return map[string]any{"spec": spec}
	case "Job":
		return map[string]any{"spec": jobSpec(p, labels, values)}
	case "CronJob":
		schedule := values["schedule"]
		if schedule == "" {
			schedule = "@hourly"
		}
		// A run still going when the next is due skips that one.
		return map[string]any{"spec": map[string]any{
			"schedule": schedule, "concurrencyPolicy": "Forbid",
			"jobTemplate": map[string]any{"spec": jobSpec(p, labels, values)},
		}}
	case "HorizontalPodAutoscaler":
		target := a.ScaledKind()
		minimum, maximum := replicaRange(values)
		// Scales the workload to keep its pods at 80% of their CPU request.
		return map[string]any{"spec": map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": target, "name": owner + "-" + strings.ToLower(target)},
			"minReplicas":    minimum, "maxReplicas": maximum,
			"metrics": []any{map[string]any{"type": "Resource", "resource": map[string]any{
				"name": "cpu", "target": map[string]any{"type": "Utilization", "averageUtilization": 80}}}},
		}}
	case "Ingress":
		// Every path to the owner's Service, on spec.host when it has one.
		rule := map[string]any{"http": map[string]any{"paths": []any{map[string]any{
			"path": "/", "pathType": "Prefix",
			"backend": map[string]any{"service": map[string]any{"name": owner + "-service", "port": map[string]any{"name": "http"}}},
		}}}}
		if host := values["host"]; host != "" {
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
			"ingress":     []any{map[string]any{"ports": []any{map[string]any{"protocol": "TCP", "port": containerPort(values)}}}},
		}}
	}
	panic("unknown child kind " + kind)
}

func replicas(values map[string]string) int64 {
	n, err := strconv.ParseInt(values["replicas"], 10, 32)
	if err != nil {
		return 1
	}
	return n
}

// jobSpec runs the child image once with the spec as environment.
func jobSpec(p Project, labels map[string]any, values map[string]string) map[string]any {
	template := podTemplate(p, labels, []any{"env"}, values)
	template["spec"].(map[string]any)["restartPolicy"] = "Never"
	return map[string]any{"template": template}
}

// positive is a top-level count by convention: an integer from 1 to
// 2147483647 written in decimal digits only.
func positive(values map[string]string, key string) (int64, bool) {
	s := values[key]
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return n, err == nil && n >= 1
}

// replicaRange is the autoscaler's minimum (spec.minReplicas, else
// spec.replicas, else 1) and maximum (spec.maxReplicas, else the minimum;
// never below the minimum).
func replicaRange(values map[string]string) (int64, int64) {
	minimum, ok := positive(values, "minReplicas")
	if !ok {
		if minimum, ok = positive(values, "replicas"); !ok {
			minimum = 1
		}
	}
	maximum, ok := positive(values, "maxReplicas")
	if !ok || maximum < minimum {
		maximum = minimum
	}
	return minimum, maximum
}

// specPort is the spec's port by convention: a top-level integer from 1 to
// 65535, written in decimal digits only.
func specPort(values map[string]string) (int64, bool) {
	n, ok := positive(values, "port")
	return n, ok && n <= 65535
}

// containerPort is the port the workloads' container listens on: the
// spec's port, else 8080.
func containerPort(values map[string]string) int64 {
	if port, given := specPort(values); given {
		return port
	}
	return 8080
}

func podTemplate(p Project, labels map[string]any, command []any, values map[string]string) map[string]any {
	env := []any{}
	for _, k := range SortedKeys(values) {
		env = append(env, map[string]any{"name": "SPEC_" + strings.ToUpper(strings.ReplaceAll(k, ".", "_")), "value": values[k]})
	}
	for _, k := range SortedKeys(values) {
		if name, ok := strings.CutPrefix(k, "env."); ok && appEnvName(name) {
			env = append(env, map[string]any{"name": name, "value": values[k]})
		}
	}
	container := map[string]any{
		"name": "main", "image": p.Versions.ChildImage, "command": command, "env": env,
		"ports": []any{map[string]any{"name": "http", "containerPort": containerPort(values), "protocol": "TCP"}},
		"securityContext": map[string]any{
			"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
			"capabilities": map[string]any{"drop": []any{"ALL"}},
		},
	}
	if image := values["image"]; image != "" {
		// The application's image runs its own entrypoint.
		container["image"] = image
		delete(container, "command")
	}
	if resources := specResources(values); len(resources) > 0 {
		container["resources"] = resources
	}
	return map[string]any{
		"metadata": map[string]any{"labels": labels},
		"spec": map[string]any{
			"securityContext": map[string]any{
				"runAsNonRoot": true, "runAsUser": nonRootUID,
				"seccompProfile": map[string]any{"type": "RuntimeDefault"},
			},
			"containers": []any{container},
		},
	}
}

// specResources is the workloads' container resources by convention: each
// key of spec.resources.requests and spec.resources.limits whose value is
// a quantity (quantityPattern, the API server's), as written.
func specResources(values map[string]string) map[string]any {
	out := map[string]any{}
	for _, k := range SortedKeys(values) {
		parts := strings.Split(k, ".")
		if len(parts) != 3 || parts[0] != "resources" || parts[1] != "requests" && parts[1] != "limits" || parts[2] == "" || !quantityRE().MatchString(values[k]) {
			continue
		}
		if out[parts[1]] == nil {
			out[parts[1]] = map[string]any{}
		}
		out[parts[1]].(map[string]any)[parts[2]] = values[k]
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
		for name, v := range names.(map[string]any) {
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

// appEnvName reports whether a key of spec.env is the application's
// environment variable by convention: a C identifier, not one of the
// SPEC_ variables.
func appEnvName(name string) bool {
	if name == "" || strings.HasPrefix(name, "SPEC_") || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	return strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
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
	for _, c := range childKinds {
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

// RoundTrip normalises an object through JSON, as a file would hold it.
func RoundTrip(o map[string]any) map[string]any {
	b, _ := json.Marshal(o)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
