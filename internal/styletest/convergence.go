//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// checkConvergence: an Other (see seedWithOther) holding the tricky values
// gets children whose content equals, byte for byte, what opctl's Go
// reference (render.DesiredChildren) makes of the resource, and Ready; a
// Key added to a map reaches the children and Ready again (Metacontroller
// appends the new env entry at the end of the list: an order the runtime
// keeps is no drift); a key removed leaves them; and an env list put in
// another order by hand is no drift either.
func checkConvergence(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == "Other" })
	require.NotEqual(t, -1, i, "the project has no Other kind: use seedWithOther")
	api := p.APIs[i]
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "other.example.com/v1", "kind": "Other",
		"metadata": map[string]any{"name": "tricky", "namespace": ns}, "spec": otherSpec()}}
	require.NoError(t, c.Create(ctx, cr))
	t.Cleanup(func() { _ = c.Delete(ctx, cr) })
	// Created as v1, an older version still served: the operator reads it
	// as the storage version, its defaults filled in, and so does the check.
	require.NotEqual(t, "v1", api.Version, "Other has a second version: use seedWithOther")
	cr.SetAPIVersion("other.example.com/" + api.Version)

	converged := func(what string) { t.Helper(); waitConverged(t, c, p, api, cr, what) }
	converged("the tricky values in the children, byte for byte as the Go reference encodes them, and Ready")
	updateSpec(t, c, cr, func(spec map[string]any) { spec["labels"].(map[string]any)["added"] = "new" })
	converged("a key added to a map in the children, and Ready again")
	updateSpec(t, c, cr, func(spec map[string]any) { delete(spec["labels"].(map[string]any), "a") })
	converged("a key removed from a map gone from the children")
	updateSpec(t, c, cr, func(spec map[string]any) { spec["image"] = "registry.example.com/other" })
	converged("spec.image running the Deployment with its own entrypoint (the starter's command gone)")

	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "tricky-deployment"}, deployment))
	containers, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
	env := containers[0].(map[string]any)["env"].([]any)
	slices.Reverse(env)
	require.NoError(t, c.Update(ctx, deployment))
	time.Sleep(2 * time.Second)
	converged("the same children and Ready with the env list in another order")
}

// waitConverged waits until the children of cr are what opctl's Go
// reference (render.DesiredChildren) makes of it, its own status fields
// what the starter reports, and Ready.
func waitConverged(t *testing.T, c client.Client, p scaffold.Project, api api.API, cr *unstructured.Unstructured, what string) {
	t.Helper()
	status := api.StatusStarter().Status(cr.GetName())
	spec, _ := cr.Object["spec"].(map[string]any)
	maps.Copy(status, api.ScaleStatus(p.Name, cr.GetName(), spec))
	waitChildren(t, c, cr, func() []map[string]any { return render.DesiredChildren(p, api, cr.Object) }, status, what)
}

// waitChildren waits until the children of cr are the ones children gives
// (called with cr as last read), its status holds the values of status
// (observedGeneration and conditions aside), and Ready.
func waitChildren(t *testing.T, c client.Client, cr *unstructured.Unstructured, children func() []map[string]any, status map[string]any, what string) {
	t.Helper()
	ctx := context.Background()
	var diff string
	err := waitUntil(func() (bool, error) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return false, err
		}
		diff = ""
		for _, want := range children() {
			got := &unstructured.Unstructured{}
			got.SetAPIVersion(fmt.Sprint(want["apiVersion"]))
			got.SetKind(fmt.Sprint(want["kind"]))
			key := client.ObjectKey{Namespace: cr.GetNamespace(), Name: fmt.Sprint(want["metadata"].(map[string]any)["name"])}
			if err := c.Get(ctx, key, got); err != nil {
				diff += fmt.Sprintf("%s %s: %v\n", got.GetKind(), key.Name, client.IgnoreNotFound(err))
				continue
			}
			if d := cmp.Diff(managedContent(render.RoundTrip(want)), managedContent(got.Object)); d != "" {
				diff += fmt.Sprintf("%s %s (-want +got):\n%s", got.GetKind(), key.Name, d)
			}
		}
		got, _ := cr.Object["status"].(map[string]any)
		for k, want := range status {
			// As JSON: a case's numbers come from YAML, the object's from the API.
			if k != "observedGeneration" && k != "conditions" && !reflect.DeepEqual(render.RoundTrip(map[string]any{k: got[k]}), render.RoundTrip(map[string]any{k: want})) {
				diff += fmt.Sprintf("status.%s = %v, want %v\n", k, got[k], want)
			}
		}
		if diff != "" {
			return false, nil
		}
		ok, err := ready(ctx, c, cr)
		if !ok {
			diff = fmt.Sprintf("children as desired, but not Ready for generation %d: %v", cr.GetGeneration(), cr.Object["status"])
		}
		return ok, err
	})
	require.NoError(t, err, "waiting for %s:\n%s", what, diff)
}

// checkCases: the object of each conformance case of the project in dir
// that the API server accepts gets the case's children, and Ready. They are
// created in a namespace of their own, ns-cases: their objects are named
// after their cases, the sample's among them. A case with observed children
// is left out: on a running operator they could not be there before its
// first reconcile.
func checkCases(t *testing.T, c client.Client, dir, ns string) {
	ctx := context.Background()
	ns += "-cases"
	namespace := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": ns}}}
	require.NoError(t, c.Create(ctx, namespace))
	var created []projectCase
	for _, pc := range projectCases(t, dir, ns, false) {
		if pc.Rejected != "" || pc.Observed != nil {
			continue
		}
		require.NoError(t, c.Create(ctx, pc.object), pc.name)
		created = append(created, pc)
	}
	require.NotEmpty(t, created, "the project has no conformance case to run")
	for _, pc := range created {
		waitChildren(t, c, pc.object, func() []map[string]any { return pc.Children }, pc.Status, "the children and status of conformance case "+pc.name)
		require.NoError(t, c.Delete(ctx, pc.object))
	}
}

// checkMicroservice: the scenario's Microservice (seed.Microservice) gets a
// Deployment running its image, a Service on its port, an autoscaler
// between its replicas and maxReplicas, and a ServiceMonitor.
func checkMicroservice(t *testing.T, c client.Client, dir, ns string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == "Microservice" })
	require.NotEqual(t, -1, i, "the project has no Microservice kind: use seedWithOther")
	cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "platform.example.com/v1", "kind": "Microservice",
		"metadata": map[string]any{"name": "cart", "namespace": ns},
		"spec":     map[string]any{"image": "registry.example.com/shop/cart:1.4", "port": int64(9000), "replicas": int64(2), "maxReplicas": int64(6)}}}
	require.NoError(t, c.Create(context.Background(), cr))
	t.Cleanup(func() { _ = c.Delete(context.Background(), cr) })
	waitConverged(t, c, p, p.APIs[i], cr, "the Microservice's Deployment, Service, HorizontalPodAutoscaler and ServiceMonitor")
	kinds := map[any]bool{}
	for _, child := range render.DesiredChildren(p, p.APIs[i], cr.Object) {
		kinds[child["kind"]] = true
	}
	require.Equal(t, map[any]bool{"Deployment": true, "Service": true, "HorizontalPodAutoscaler": true, "ServiceMonitor": true}, kinds)
}

// managedContent is what opctl decides in a child: its labels, ConfigMap
// data, the first container's image, command, environment, ports and
// resources (a CronJob's in its job template), a Service's ports, a
// PodDisruptionBudget's maxUnavailable, a NetworkPolicy's rules, an
// autoscaler's target, range and metrics, an Ingress's rules, a CronJob's
// schedule and a ServiceMonitor's selector and endpoints (lists of named
// items as maps: their order is not content; numbers as text: the
// reference's are float64 after a round trip, the API server's int64).
func managedContent(obj map[string]any) map[string]any {
	u := &unstructured.Unstructured{Object: obj}
	out := map[string]any{"labels": withoutRuntimeLabels(u.GetLabels())}
	if data, ok := obj["data"].(map[string]any); ok && len(data) > 0 {
		out["data"] = data // empty is none: the API server leaves it out
	}
	containers, _, _ := unstructured.NestedSlice(obj, "spec", "template", "spec", "containers")
	if jobs, found, _ := unstructured.NestedSlice(obj, "spec", "jobTemplate", "spec", "template", "spec", "containers"); found {
		containers = jobs
	}
	if len(containers) > 0 {
		c := containers[0].(map[string]any)
		env := map[string]any{}
		items, _ := c["env"].([]any)
		for _, item := range items {
			e := item.(map[string]any)
			env[fmt.Sprint(e["name"])] = e["value"]
		}
		out["image"], out["env"], out["command"] = c["image"], env, fmt.Sprint(c["command"])
		out["resources"] = canonicalQuantities(c["resources"])
		out["ports"] = portsByName(c["ports"], "containerPort")
	}
	if ports, found, _ := unstructured.NestedSlice(obj, "spec", "ports"); found {
		out["servicePorts"] = portsByName(ports, "port", "targetPort")
	}
	for _, path := range [][]string{{"spec", "maxUnavailable"}, {"spec", "policyTypes"}, {"spec", "ingress"},
		{"spec", "scaleTargetRef"}, {"spec", "minReplicas"}, {"spec", "maxReplicas"}, {"spec", "metrics"},
		{"spec", "rules"}, {"spec", "schedule"}, {"spec", "concurrencyPolicy"}, {"spec", "endpoints"}, {"spec", "selector"}} {
		if obj["kind"] == "Job" && path[1] == "selector" {
			continue // the API server's own, by the Job's uid
		}
		if v, found, _ := unstructured.NestedFieldNoCopy(obj, path...); found {
			out[strings.Join(path, ".")] = fmt.Sprint(v)
		}
	}
	return out
}

// canonicalQuantities is a container's resources with each quantity as the
// API server writes it (1 for 1000m).
func canonicalQuantities(resources any) map[string]string {
	out := map[string]string{}
	sections, _ := resources.(map[string]any)
	for section, names := range sections {
		list, _ := names.(map[string]any)
		for name, v := range list {
			q, err := resource.ParseQuantity(fmt.Sprint(v))
			if err != nil {
				out[section+"."+name] = fmt.Sprint(v)
				continue
			}
			out[section+"."+name] = q.String()
		}
	}
	return out
}

// portsByName is a list of ports as name → the fields, as text.
func portsByName(list any, fields ...string) map[string]string {
	out := map[string]string{}
	items, _ := list.([]any)
	for _, item := range items {
		port := item.(map[string]any)
		var values []string
		for _, f := range fields {
			values = append(values, fmt.Sprint(port[f]))
		}
		out[fmt.Sprint(port["name"])] = strings.Join(values, "/") + " " + fmt.Sprint(port["protocol"])
	}
	return out
}

// withoutRuntimeLabels drops the label Metacontroller's generated selector
// adds to every child.
func withoutRuntimeLabels(labels map[string]string) map[string]string {
	delete(labels, "controller-uid")
	return labels
}

// checkClusterPods: a Cluster (AddCluster), a kind shaped like a real
// operator's API, gets a Deployment whose pods take the container
// resources, environment, tolerations, affinity and node selector of its
// spec, as the reference makes them.
func checkClusterPods(t *testing.T, c client.Client, dir, ns string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == "Cluster" })
	require.NotEqual(t, -1, i, "the project has no Cluster kind: use AddCluster")
	cr := ReadObjects(t, filepath.Join(dir, render.SamplePath(p, p.APIs[i])))[0]
	cr.SetNamespace(ns)
	require.NoError(t, c.Create(context.Background(), cr))
	t.Cleanup(func() { _ = c.Delete(context.Background(), cr) })
	waitConverged(t, c, p, p.APIs[i], cr, "the Cluster's Deployment and ConfigMap")
	deployment := &unstructured.Unstructured{}
	deployment.SetAPIVersion("apps/v1")
	deployment.SetKind("Deployment")
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-deployment"}, deployment))
	spec, _, _ := unstructured.NestedMap(cr.Object, "spec")
	pod, _, _ := unstructured.NestedMap(deployment.Object, "spec", "template", "spec")
	containers, _ := pod["containers"].([]any)
	require.NotEmpty(t, containers)
	assert.Equal(t, spec["resources"], containers[0].(map[string]any)["resources"], "the container's resources are the spec's")
	for _, name := range []string{"tolerations", "affinity", "nodeSelector"} {
		require.NotNil(t, spec[name], "the sample sets %s", name)
		assert.Equal(t, spec[name], pod[name], "the pods' %s are the spec's", name)
	}
}
