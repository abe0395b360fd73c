//go:build e2e

package scaffold_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// TestE2E checks on a real API server what the CRD every style shares
// promises about spec values (make test-e2e): a map key the children could
// not hold is refused with the CRD's message, a nested default applies
// without its parent object written, an empty list is kept, and the rules
// a user gives (on a field, across fields, immutability) refuse what they
// should with their messages.
func TestE2E(t *testing.T) {
	cluster := styletest.StartAPIServer(t, "make test-e2e")
	ctx := context.Background()
	kind := api.API{Group: "values", Version: "v1", Kind: "Probe", Plural: "probes", Namespaced: true, ShortNames: []string{"pb"}, Categories: []string{"all"},
		Fields: apitest.MustFields(t, "labels:map[string]string", "tags:[]string", "backup.retentionDays:int32:default=7",
			"engine:string:immutable", "replicas:int32:rule=self <= 5#at most 5 replicas", "region:string:immutable"),
		Rules: []api.Rule{api.ParseRule(`!has(self.replicas) || self.replicas <= 3 || self.engine == "postgres"#over 3 replicas needs postgres`)}}
	require.NoError(t, func() error {
		_, err := scaffold.Project{Domain: "example.com"}.AddAPI(input.FlagSource, kind)
		return err
	}(),
		"the rules must pass opctl's own validation")
	crd := api.BuildCRD("example.com", kind)
	_, err := envtest.InstallCRDs(cluster.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}})
	require.NoError(t, err, "the CRD must be accepted")
	cluster.CreateNamespace(t, "values", false)
	probe := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "values.example.com/v1", "kind": "Probe",
			"metadata": map[string]any{"name": name, "namespace": "values"}, "spec": spec}}
	}

	t.Run("a map key with a prefix, as labels have, is kept", func(t *testing.T) {
		obj := probe("prefixed-key", map[string]any{"labels": map[string]any{"app.kubernetes.io/part-of": "x"}})
		require.NoError(t, cluster.Client.Create(ctx, obj))
		require.NoError(t, cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		value, found, _ := unstructured.NestedString(obj.Object, "spec", "labels", "app.kubernetes.io/part-of")
		assert.True(t, found, "spec: %v", obj.Object["spec"])
		assert.Equal(t, "x", value)
	})
	t.Run("a nested default applies without its object", func(t *testing.T) {
		obj := probe("defaults", map[string]any{})
		require.NoError(t, cluster.Client.Create(ctx, obj))
		require.NoError(t, cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		days, found, _ := unstructured.NestedInt64(obj.Object, "spec", "backup", "retentionDays")
		assert.True(t, found, "spec: %v", obj.Object["spec"])
		assert.EqualValues(t, 7, days)
	})
	t.Run("an empty list is kept", func(t *testing.T) {
		obj := probe("empty-list", map[string]any{"tags": []any{}})
		require.NoError(t, cluster.Client.Create(ctx, obj))
		require.NoError(t, cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
		tags, found, _ := unstructured.NestedSlice(obj.Object, "spec", "tags")
		assert.True(t, found)
		assert.Empty(t, tags)
	})
	t.Run("a field's rule and a rule across fields refuse with their messages", func(t *testing.T) {
		err := cluster.Client.Create(ctx, probe("six", map[string]any{"replicas": int64(6), "engine": "postgres"}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "at most 5 replicas")
		err = cluster.Client.Create(ctx, probe("four-mysql", map[string]any{"replicas": int64(4), "engine": "mysql"}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "over 3 replicas needs postgres")
		require.NoError(t, cluster.Client.Create(ctx, probe("four-postgres", map[string]any{"replicas": int64(4), "engine": "postgres"})))
	})
	t.Run("an immutable field cannot change, nor an optional one be set or unset", func(t *testing.T) {
		obj := probe("immutable", map[string]any{"engine": "mysql"})
		require.NoError(t, cluster.Client.Create(ctx, obj))
		update := func(change func(spec map[string]any)) error {
			fresh := obj.DeepCopy()
			require.NoError(t, cluster.Client.Get(ctx, client.ObjectKeyFromObject(fresh), fresh))
			spec, _, _ := unstructured.NestedMap(fresh.Object, "spec")
			change(spec)
			require.NoError(t, unstructured.SetNestedMap(fresh.Object, spec, "spec"))
			return cluster.Client.Update(ctx, fresh)
		}
		err := update(func(spec map[string]any) { spec["engine"] = "postgres" })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "engine is immutable")
		err = update(func(spec map[string]any) { delete(spec, "engine") })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "engine is immutable: it cannot be set or unset")
		err = update(func(spec map[string]any) { spec["region"] = "eu" })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "region is immutable: it cannot be set or unset")
		require.NoError(t, update(func(spec map[string]any) { spec["tags"] = []any{"other fields change freely"} }))
	})
	t.Run("the admission policy of a style without webhooks refuses with its messages", func(t *testing.T) {
		for _, s := range styles.All() {
			if !s.Webhooks && !s.ExistingKinds {
				t.Run(s.Name, func(t *testing.T) { checkAdmissionPolicy(t, cluster, s) })
			}
		}
	})

	t.Run("helm upgrade after a new field updates the chart's CRD; helm uninstall keeps it", func(t *testing.T) {
		checkHelmUpgradesCRD(t, cluster)
	})

	t.Run("people bound to edit may create the kind, to view may only read it", func(t *testing.T) {
		checkAggregatedRoles(t, cluster, kind)
	})
}

// checkAggregatedRoles installs the kind's roles for people as a project
// renders them, lets Kubernetes' ClusterRole aggregation fill the built-in
// admin, edit and view roles, and asks as users bound to them.
func checkAggregatedRoles(t *testing.T, cluster *styletest.Cluster, kind api.API) {
	ctx := context.Background()
	style := styles.All()[0]
	p, err := scaffold.Project{Name: "roles", Domain: "example.com", Repo: "example.com/roles", Style: style.Name,
		Versions: pins.DefaultVersions(), ResyncSeconds: 60}.AddAPI(input.FlagSource, kind)
	require.NoError(t, err)
	tree, err := render.Project(p, style)
	require.NoError(t, err)
	f, ok := tree.Get(render.KindRolesPath(kind))
	require.True(t, ok, "no %s", render.KindRolesPath(kind))
	for _, role := range styletest.DecodeObjects(t, f.Content) {
		require.NoError(t, cluster.Client.Create(ctx, role))
	}
	aggregateClusterRoles(t, cluster.Client)
	for user, role := range map[string]string{"ed": "edit", "vi": "view"} {
		require.NoError(t, cluster.Client.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role, Namespace: "values"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
		}))
	}
	as := func(user string) client.Client {
		cfg := rest.CopyConfig(cluster.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		c, err := client.New(cfg, client.Options{})
		require.NoError(t, err)
		return c
	}
	obj := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "values.example.com/v1", "kind": "Probe",
			"metadata": map[string]any{"name": name, "namespace": "values"}, "spec": map[string]any{}}}
	}
	require.NoError(t, as("ed").Create(ctx, obj("by-an-editor")), "a user bound to edit creates the kind")
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("values.example.com/v1")
	list.SetKind("ProbeList")
	require.NoError(t, as("vi").List(ctx, list, client.InNamespace("values")), "a user bound to view lists the kind")
	err = as("vi").Create(ctx, obj("by-a-viewer"))
	assert.True(t, apierrors.IsForbidden(err), "a user bound to view must not create the kind: %v", err)
	err = as("nobody").Create(ctx, obj("by-nobody"))
	assert.True(t, apierrors.IsForbidden(err), "the check can fail: %v", err)
}

// aggregateClusterRoles does what kube-controller-manager's ClusterRole
// aggregation controller does (the test API server runs no controller
// manager): each ClusterRole with an aggregationRule gets the rules of
// every ClusterRole its selectors match, in name order, without repeats.
func aggregateClusterRoles(t *testing.T, c client.Client) {
	ctx := context.Background()
	roles := &rbacv1.ClusterRoleList{}
	require.NoError(t, c.List(ctx, roles))
	for _, target := range roles.Items {
		if target.AggregationRule == nil {
			continue
		}
		var rules []rbacv1.PolicyRule
		for _, sel := range target.AggregationRule.ClusterRoleSelectors {
			selector, err := metav1.LabelSelectorAsSelector(&sel)
			require.NoError(t, err)
			for _, source := range roles.Items {
				if source.Name == target.Name || !selector.Matches(labels.Set(source.Labels)) {
					continue
				}
				for _, r := range source.Rules {
					if !slices.ContainsFunc(rules, func(have rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(have, r) }) {
						rules = append(rules, r)
					}
				}
			}
		}
		target.Rules = rules
		require.NoError(t, c.Update(ctx, &target))
	}
}

// checkAdmissionPolicy adds admission to the seed example's Database in
// style s (a ValidatingAdmissionPolicy, with a rule of its own), applies
// the policy as kubectl kustomize builds config/ and checks that the API
// server refuses a name too long and a change the rule forbids, with their
// messages, and admits the sample.
func checkAdmissionPolicy(t *testing.T, cluster *styletest.Cluster, s scaffold.Style) {
	tools.RequireTools(t, "kubectl, whose kustomize builds config/", "kubectl")
	ctx := context.Background()
	c := cluster.Client
	dir := styletest.Seed(t, s)
	styletest.MustRun(t, dir, "create", "webhook", "--kind", "Database", "--validate",
		"--rule", "request.operation != 'UPDATE' || object.spec.engine == oldObject.spec.engine#engine cannot change")
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	crd := styletest.ReadObjects(t, filepath.Join(dir, render.CRDPath(p, p.APIs[0])))[0]
	require.NoError(t, client.IgnoreAlreadyExists(c.Create(ctx, crd)))
	out, err := exec.Command("kubectl", "kustomize", filepath.Join(dir, "config")).Output()
	require.NoError(t, err)
	var policies []*unstructured.Unstructured
	for _, o := range styletest.DecodeObjects(t, out) {
		if strings.HasPrefix(o.GetKind(), "ValidatingAdmissionPolicy") {
			policies = append(policies, o)
		}
	}
	require.Len(t, policies, 2, "a policy and its binding")
	for _, o := range policies {
		require.NoError(t, c.Create(ctx, o), "create %s %s as kustomize built it", o.GetKind(), o.GetName())
	}
	defer func() {
		for _, o := range policies {
			assert.NoError(t, c.Delete(ctx, o))
		}
	}()
	ns := "policy-" + s.Name
	cluster.CreateNamespace(t, ns, false)
	sample := func(name string) *unstructured.Unstructured {
		o := styletest.ReadObjects(t, filepath.Join(dir, render.SamplePath(p, p.APIs[0])))[0]
		o.SetNamespace(ns)
		o.SetName(name)
		return o
	}
	// The API server loads a new policy within a few seconds.
	long := sample(strings.Repeat("a", api.MaxNameLength+1))
	var refused error
	styletest.WaitFor(t, "the policy to refuse a name too long", func() (bool, error) {
		refused = c.Create(ctx, long.DeepCopy(), client.DryRunAll)
		return refused != nil, nil
	})
	assert.Contains(t, refused.Error(), p.APIs[0].NameTooLong())
	good := sample(strings.Repeat("a", api.MaxNameLength))
	require.NoError(t, c.Create(ctx, good), "a name of 63 characters is admitted")
	engine, _, _ := unstructured.NestedString(good.Object, "spec", "engine")
	other := map[string]string{"mysql": "postgres", "postgres": "mysql"}[engine]
	require.NoError(t, unstructured.SetNestedField(good.Object, other, "spec", "engine"))
	err = c.Update(ctx, good)
	require.Error(t, err, "the policy's rule refuses a change of engine")
	assert.Contains(t, err.Error(), "engine cannot change")
}

// checkHelmUpgradesCRD installs a project's chart with the helm CLI, adds
// a field with opctl edit api and upgrades the release: the CRD's schema
// has the field (Helm never upgrades a chart's crds/, so the chart's CRDs
// are templates); uninstalled, the release leaves the CRD (crds.keep).
func checkHelmUpgradesCRD(t *testing.T, cluster *styletest.Cluster) {
	helm := tools.Helm(t)
	// Any style: every chart's CRDs are the same templates.
	dir := t.TempDir()
	styletest.MustRun(t, dir, "init", "--style", "shell-operator", "--domain", "example.com", "--name", "helm-probe", "--yes")
	styletest.MustRun(t, dir, "create", "api", "--group", "charts", "--version", "v1", "--kind", "Gadget", "--field", "size:int32")
	kubeconfig := cluster.AdminKubeconfig(t)
	run := func(args ...string) {
		t.Helper()
		tools.ExecIn(t, dir, helm, append(args, "--kubeconfig", kubeconfig, "--namespace", "helm-probe")...)
	}
	getCRD := func() *unstructured.Unstructured {
		t.Helper()
		crd := &unstructured.Unstructured{}
		crd.SetAPIVersion("apiextensions.k8s.io/v1")
		crd.SetKind("CustomResourceDefinition")
		require.NoError(t, cluster.Client.Get(context.Background(), client.ObjectKey{Name: "gadgets.charts.example.com"}, crd))
		return crd
	}
	specFields := func() map[string]any {
		t.Helper()
		versions, _, _ := unstructured.NestedSlice(getCRD().Object, "spec", "versions")
		props, _, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties")
		return props
	}
	run("upgrade", "--install", "probe", "dist/chart", "--create-namespace")
	require.Contains(t, specFields(), "size")
	require.NotContains(t, specFields(), "tier")
	styletest.MustRun(t, dir, "edit", "api", "--kind", "Gadget", "--field", "tier:string")
	run("upgrade", "probe", "dist/chart")
	assert.Contains(t, specFields(), "tier", "helm upgrade updates the CRD")
	run("uninstall", "probe")
	assert.Nil(t, getCRD().GetDeletionTimestamp(), "the CRD stays after helm uninstall, not deleted")
}
