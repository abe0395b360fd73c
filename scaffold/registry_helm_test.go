//go:build generated

package scaffold_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/chart/v2/lint"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
)

// TestChartsMatchKustomize checks every golden project's Helm chart with
// Helm itself: lint-clean with Helm's linter; rendered by Helm's engine as
// `helm install <name> -n <name>-system` would, it gives the objects
// `kubectl kustomize config/` gives (the Namespace only with
// namespace.create); and changed values show where they should.
func TestChartsMatchKustomize(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kubectl kustomize and Helm's linter")
	}
	tools.RequireTools(t, "kubectl, whose kustomize builds config/", "kubectl")
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := c.project
			dir := writeTree(t, c.render(t))

			linter := lint.RunAll(filepath.Join(dir, render.ChartDir), nil, p.Namespace())
			for _, m := range linter.Messages {
				assert.Less(t, m.Severity, support.WarningSev, "helm lint: %s", m)
			}

			out, err := exec.Command("kubectl", "kustomize", filepath.Join(dir, "config")).Output()
			require.NoError(t, err)
			kustomized := byKey(withoutPolicyNamespaces(styletest.DecodeObjects(t, out)))
			withNamespace := styletest.RenderChart(t, dir, p.Name, p.Namespace(), map[string]any{"namespace": map[string]any{"create": true}})
			assert.Equal(t, kustomized, byKey(withNamespace), "the chart with namespace.create renders config/")
			for key := range kustomized {
				if key[0] == "Namespace" {
					delete(kustomized, key)
				}
			}
			assert.Equal(t, kustomized, byKey(styletest.RenderChart(t, dir, p.Name, p.Namespace(), nil)),
				"the chart with default values renders config/ but the Namespace")

			if c.style.Runtime(p).Metrics != nil {
				out, err := exec.Command("kubectl", "kustomize", filepath.Join(dir, "config/with-prometheus")).Output()
				require.NoError(t, err)
				on := map[string]any{"enabled": true}
				withMetrics := styletest.RenderChart(t, dir, p.Name, p.Namespace(), map[string]any{"namespace": map[string]any{"create": true},
					"metrics": map[string]any{"service": on, "networkPolicy": on, "serviceMonitor": on}})
				assert.Equal(t, byKey(withoutPolicyNamespaces(styletest.DecodeObjects(t, out))), byKey(withMetrics),
					"the chart with the metrics values renders config/with-prometheus (config/ with the metrics Service, NetworkPolicy and ServiceMonitor)")
			}
			checkChangedValues(t, c, dir)
		})
	}
}

// checkChangedValues renders the chart under another release name and
// namespace with every value changed, and finds each change where it
// belongs.
func checkChangedValues(t *testing.T, gc goldenCase, dir string) {
	p := gc.project
	values := map[string]any{
		"image": map[string]any{"repository": "registry.example.com/op", "tag": "v9.9.9", "pullPolicy": "Always"},
		// 0: what every runtime accepts, leader election on or off.
		"replicaCount":              0,
		"resources":                 map[string]any{"limits": map[string]any{"cpu": "2"}},
		"env":                       []any{map[string]any{"name": "EXTRA", "value": "yes"}},
		"nodeSelector":              map[string]any{"disk": "ssd"},
		"tolerations":               []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
		"affinity":                  map[string]any{"nodeAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{}}},
		"rbac":                      map[string]any{"create": false},
		"serviceAccount":            map[string]any{"create": false, "name": "existing"},
		"imagePullSecrets":          []any{map[string]any{"name": "registry"}},
		"podAnnotations":            map[string]any{"team": "data"},
		"podLabels":                 map[string]any{"tier": "ops"},
		"priorityClassName":         "system-cluster-critical",
		"topologySpreadConstraints": []any{map[string]any{"maxSkew": float64(1), "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}},
	}
	rt := gc.style.Runtime(p)
	if len(rt.LeaderElectionArgs) > 0 {
		values["leaderElection"] = map[string]any{"enabled": false}
	}
	objs := styletest.RenderChart(t, dir, "other", "elsewhere", values)
	var deployment *unstructured.Unstructured
	for _, o := range objs {
		assert.NotContains(t, []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Namespace"}, o.GetKind(),
			"rbac.create, serviceAccount.create and namespace.create are off")
		if o.GetKind() == "CustomResourceDefinition" {
			continue
		}
		b, err := json.Marshal(o.Object)
		require.NoError(t, err)
		assert.NotContains(t, string(b), p.Namespace(), "%s %s: the namespace comes from the release", o.GetKind(), o.GetName())
		assert.Regexp(t, "^other-", o.GetName(), "names come from the release")
		if !slices.Contains(clusterScopedAdmission, o.GetKind()) {
			assert.Equal(t, "elsewhere", o.GetNamespace())
		}
		if o.GetKind() == "Deployment" {
			deployment = o
		}
	}
	require.NotNil(t, deployment, "no Deployment in the chart")
	assert.Equal(t, "other-controller-manager", deployment.GetName())
	spec := deployment.Object["spec"].(map[string]any)
	assert.EqualValues(t, 0, spec["replicas"])
	strategy := "Recreate"
	if rt.Stateless {
		strategy = "RollingUpdate"
	}
	assert.Equal(t, map[string]any{"type": strategy}, spec["strategy"], "no overlap of two replicas, but of stateless ones, without leader election")
	pod := spec["template"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, "existing", pod["serviceAccountName"])
	assert.Equal(t, values["imagePullSecrets"], pod["imagePullSecrets"])
	assert.Equal(t, values["priorityClassName"], pod["priorityClassName"])
	assert.EqualValues(t, values["topologySpreadConstraints"], pod["topologySpreadConstraints"])
	podMeta := spec["template"].(map[string]any)["metadata"].(map[string]any)
	assert.Equal(t, values["podAnnotations"], podMeta["annotations"])
	assert.Equal(t, "ops", podMeta["labels"].(map[string]any)["tier"])
	assert.Equal(t, p.Name, podMeta["labels"].(map[string]any)["app.kubernetes.io/name"], "the pod keeps the labels its Deployment selects")
	assert.Equal(t, values["nodeSelector"], pod["nodeSelector"])
	assert.Equal(t, values["tolerations"], pod["tolerations"])
	assert.Equal(t, values["affinity"], pod["affinity"])
	c := pod["containers"].([]any)[0].(map[string]any)
	assert.Equal(t, "registry.example.com/op:v9.9.9", c["image"])
	assert.Equal(t, "Always", c["imagePullPolicy"])
	digest := "sha256:" + strings.Repeat("0a", 32)
	values["image"].(map[string]any)["digest"] = digest
	for _, o := range styletest.RenderChart(t, dir, "other", "elsewhere", values) {
		if o.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			assert.Equal(t, "registry.example.com/op@"+digest, containers[0].(map[string]any)["image"], "image.digest pins the image in place of the tag")
		}
	}
	assert.Equal(t, map[string]any{"limits": map[string]any{"cpu": "2", "memory": "256Mi", "ephemeral-storage": "1Gi"},
		"requests": map[string]any{"cpu": "10m", "memory": "64Mi", "ephemeral-storage": "64Mi"}},
		c["resources"], "resources merge with the defaults")
	env, _ := c["env"].([]any)
	assert.Contains(t, env, map[string]any{"name": "EXTRA", "value": "yes"})
	args, _ := c["args"].([]any)
	for _, arg := range rt.LeaderElectionArgs {
		assert.NotContains(t, args, arg, "leaderElection.enabled=false takes the style's arguments away")
	}
	assert.Len(t, args, len(rt.Args))
	checkPlatformValues(t, gc, dir)
}

// checkPlatformValues renders the chart with the values a platform team
// sets (a cloud identity, more arguments and volumes, its own security
// contexts, two replicas where the runtime runs them) and finds each where
// it belongs: two replicas get a PodDisruptionBudget and a preference for
// different nodes, by the Deployment's own selector.
func checkPlatformValues(t *testing.T, gc goldenCase, dir string) {
	rt := gc.style.Runtime(gc.project)
	values := map[string]any{
		"serviceAccount":     map[string]any{"annotations": map[string]any{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/op"}},
		"extraArgs":          []any{"--extra"},
		"extraVolumes":       []any{map[string]any{"name": "ca", "configMap": map[string]any{"name": "ca"}}},
		"extraVolumeMounts":  []any{map[string]any{"name": "ca", "mountPath": "/etc/ca", "readOnly": true}},
		"podSecurityContext": map[string]any{"runAsNonRoot": true, "runAsUser": 1000, "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"securityContext":    map[string]any{"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsUser": 1000},
	}
	if rt.Replicable() {
		values["replicaCount"] = 2
	}
	byKind := map[string]*unstructured.Unstructured{}
	for _, o := range styletest.RenderChart(t, dir, "platform", "ops", values) {
		if o.GetKind() == "Deployment" || o.GetKind() == "ServiceAccount" || o.GetKind() == "PodDisruptionBudget" {
			byKind[o.GetKind()] = o
		}
	}
	require.NotNil(t, byKind["Deployment"])
	require.NotNil(t, byKind["ServiceAccount"])
	assert.Equal(t, "arn:aws:iam::1:role/op", byKind["ServiceAccount"].GetAnnotations()["eks.amazonaws.com/role-arn"])
	pod := byKind["Deployment"].Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	c := pod["containers"].([]any)[0].(map[string]any)
	args, _ := c["args"].([]any)
	require.NotEmpty(t, args)
	assert.Equal(t, "--extra", args[len(args)-1], "extraArgs come last")
	assert.Contains(t, pod["volumes"], map[string]any{"name": "ca", "configMap": map[string]any{"name": "ca"}})
	assert.Contains(t, c["volumeMounts"], map[string]any{"name": "ca", "mountPath": "/etc/ca", "readOnly": true})
	assert.EqualValues(t, 1000, pod["securityContext"].(map[string]any)["runAsUser"])
	assert.EqualValues(t, 1000, c["securityContext"].(map[string]any)["runAsUser"])
	selector := byKind["Deployment"].Object["spec"].(map[string]any)["selector"]
	if !rt.Replicable() {
		assert.Nil(t, byKind["PodDisruptionBudget"], "one replica: no PodDisruptionBudget")
		assert.Nil(t, pod["affinity"])
		return
	}
	require.NotNil(t, byKind["PodDisruptionBudget"], "two replicas: a PodDisruptionBudget")
	pdb := byKind["PodDisruptionBudget"].Object["spec"].(map[string]any)
	assert.Equal(t, selector, pdb["selector"], "the PodDisruptionBudget selects the Deployment's pods")
	assert.EqualValues(t, 1, pdb["minAvailable"])
	spread := pod["affinity"].(map[string]any)["podAntiAffinity"].(map[string]any)["preferredDuringSchedulingIgnoredDuringExecution"].([]any)[0].(map[string]any)
	assert.Equal(t, selector, spread["podAffinityTerm"].(map[string]any)["labelSelector"], "the replicas prefer nodes without another")
	assert.Equal(t, "kubernetes.io/hostname", spread["podAffinityTerm"].(map[string]any)["topologyKey"])

	// An affinity of the team's replaces the preference.
	values["affinity"] = map[string]any{"nodeAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{}}}
	for _, o := range styletest.RenderChart(t, dir, "platform", "ops", values) {
		if o.GetKind() == "Deployment" {
			pod := o.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			assert.Equal(t, values["affinity"], pod["affinity"])
		}
	}
}

// TestChartValuesSchema: each golden chart's values.schema.json refuses
// values of the wrong type or name, as helm install would, and more than
// one replica where the runtime cannot run two (or, with leader election,
// while it is off); it takes the chart's own values.
func TestChartValuesSchema(t *testing.T) {
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			chartErr := func(values map[string]any) error {
				t.Helper()
				return styletest.ChartValuesError(t, dir, values)
			}
			require.NoError(t, chartErr(nil), "the chart's own values")
			for _, wrong := range []map[string]any{
				{"replicaCount": "two"},
				{"replicaCount": -1},
				{"replicas": 1},
				{"image": map[string]any{"tag": 1}},
				{"image": map[string]any{"tag": "@sha256:" + strings.Repeat("0a", 32)}},
				{"image": map[string]any{"digest": "sha256:0a"}},
				{"serviceAccount": map[string]any{"annotations": map[string]any{"a": 1}}},
				{"extraArgs": "--one"},
				{"extraVolumeMounts": []any{map[string]any{"name": "no-path"}}},
				{"podSecurityContext": "restricted"},
				{"image": map[string]any{"pullPolicy": "Sometimes"}},
				{"env": []any{map[string]any{"value": "no name"}}},
				{"nodeSelector": map[string]any{"disk": 1}},
				{"rbac": map[string]any{"create": "yes"}},
			} {
				assert.Error(t, chartErr(wrong), "%v", wrong)
			}
			rt := c.style.Runtime(c.project)
			two := map[string]any{"replicaCount": 2}
			if !rt.Replicable() {
				assert.ErrorContains(t, chartErr(two), "replicaCount", "%s runs one instance", c.style.Name)
				return
			}
			assert.NoError(t, chartErr(two))
			if len(rt.LeaderElectionArgs) > 0 {
				two["leaderElection"] = map[string]any{"enabled": false}
				assert.ErrorContains(t, chartErr(two), "replicaCount", "two replicas without leader election")
			}
		})
	}
}

// TestChartNameOverrides: fullnameOverride prefixes every object's name in
// place of the release's, and nameOverride is every app.kubernetes.io/name
// label, selectors included, so the objects still find each other.
func TestChartNameOverrides(t *testing.T) {
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			objs := styletest.RenderChart(t, dir, "release", "elsewhere", map[string]any{"fullnameOverride": "shop", "nameOverride": "shop-operator"})
			for _, o := range objs {
				if o.GetKind() == "CustomResourceDefinition" {
					continue
				}
				assert.Regexp(t, "^shop-", o.GetName(), "%s %s", o.GetKind(), o.GetName())
				b, err := json.Marshal(o.Object)
				require.NoError(t, err)
				assert.NotContains(t, string(b), `"app.kubernetes.io/name":"`+c.project.Name+`"`, "%s %s", o.GetKind(), o.GetName())
				if o.GetKind() == "Deployment" {
					labels, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
					assert.Equal(t, "shop-operator", labels["app.kubernetes.io/name"])
					assert.Equal(t, "shop-controller-manager", o.GetName())
				}
			}
		})
	}
}

// TestChartCRDs: a chart's CRDs are templates of the release, kept by Helm
// on uninstall unless crds.keep is off, and left out with crds.install off.
func TestChartCRDs(t *testing.T) {
	for name, c := range goldenCases(t) {
		if len(c.project.APIs) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			crds := func(values map[string]any) []*unstructured.Unstructured {
				t.Helper()
				var out []*unstructured.Unstructured
				for _, o := range styletest.RenderChart(t, dir, c.project.Name, c.project.Namespace(), values) {
					if o.GetKind() == "CustomResourceDefinition" {
						out = append(out, o)
					}
				}
				return out
			}
			kept := crds(nil)
			require.Len(t, kept, len(c.project.APIs))
			for _, crd := range kept {
				want := map[string]string{"helm.sh/resource-policy": "keep"}
				// A CRD with a conversion webhook (the versions cases) takes
				// the CA of the release's serving certificate.
				if ca, ok := crd.GetAnnotations()["cert-manager.io/inject-ca-from"]; ok {
					assert.Equal(t, c.project.Namespace()+"/"+c.project.Name+"-serving-cert", ca, crd.GetName())
					want["cert-manager.io/inject-ca-from"] = ca
				}
				assert.Equal(t, want, crd.GetAnnotations(), crd.GetName())
			}
			for _, crd := range crds(map[string]any{"crds": map[string]any{"keep": false}}) {
				assert.NotContains(t, crd.GetAnnotations(), "helm.sh/resource-policy", crd.GetName())
			}
			assert.Empty(t, crds(map[string]any{"crds": map[string]any{"install": false}}))
			entries, err := os.ReadDir(filepath.Join(dir, render.ChartDir, "crds"))
			assert.True(t, os.IsNotExist(err), "no crds/ directory, which Helm never upgrades: %v", entries)
		})
	}
}

// clusterScopedAdmission are the cluster-scoped kinds admission adds to a
// chart.
var clusterScopedAdmission = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}

// withoutPolicyNamespaces drops the namespace kustomize (v5.5) gives
// ValidatingAdmissionPolicies and their bindings: it does not know they are
// cluster-scoped. The API server drops it too (the e2e suite applies them
// as kustomize builds them); the chart leaves it out.
func withoutPolicyNamespaces(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, o := range objs {
		if strings.HasPrefix(o.GetKind(), "ValidatingAdmissionPolicy") {
			o.SetNamespace("")
		}
	}
	return objs
}

// byKey indexes objects by kind, namespace and name, without the
// annotation by which Helm keeps the chart's CRDs (config/'s have none).
func byKey(objs []*unstructured.Unstructured) map[[3]string]map[string]any {
	out := map[[3]string]map[string]any{}
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			unstructured.RemoveNestedField(o.Object, "metadata", "annotations", "helm.sh/resource-policy")
			if len(o.GetAnnotations()) == 0 {
				unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
			}
		}
		out[[3]string{o.GetKind(), o.GetNamespace(), o.GetName()}] = o.Object
	}
	return out
}

// TestChartMakeTargets runs each style's seed project's own make helm-lint
// and make helm-template with the helm CLI, built from the Go module proxy
// at the version of the Helm SDK opctl's tests use.
func TestChartMakeTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the helm CLI")
	}
	helm := tools.Helm(t)
	for name, c := range goldenCases(t) {
		if !strings.HasSuffix(name, "-seed") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			out := tools.ExecIn(t, dir, "make", "helm-lint", "helm-template", "HELM="+helm)
			assert.Contains(t, out, "1 chart(s) linted, 0 chart(s) failed")
			objs := styletest.DecodeObjects(t, []byte(out[strings.Index(out, "---"):]))
			kinds := map[string]bool{}
			for _, o := range objs {
				kinds[o.GetKind()] = true
				if o.GetKind() == "Deployment" {
					assert.Equal(t, c.project.Namespace(), o.GetNamespace(), "make helm-template renders into the project's namespace")
				}
			}
			assert.True(t, kinds["Deployment"], "helm template printed no Deployment:\n%s", out)
			assert.Equal(t, len(c.project.APIs) > 0, kinds["CustomResourceDefinition"], "helm template --include-crds")
		})
	}
}

// writeTree writes a rendered tree into a new directory.
func writeTree(t *testing.T, tree *machinery.Tree) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range tree.Files() {
		path := filepath.Join(dir, f.Path)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.Content, f.Mode))
	}
	return dir
}
