//go:build e2e

package scaffold_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles/styletest"
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
	api := scaffold.API{Group: "values", Version: "v1", Kind: "Probe", Plural: "probes", Namespaced: true,
		Fields: mustFields(t, "labels:map[string]string", "tags:[]string", "backup.retentionDays:int32:default=7",
			"engine:string:immutable", "replicas:int32:rule=self <= 5#at most 5 replicas", "region:string:immutable"),
		Rules: []scaffold.Rule{scaffold.ParseRule(`!has(self.replicas) || self.replicas <= 3 || self.engine == "postgres"#over 3 replicas needs postgres`)}}
	require.NoError(t, func() error { _, err := scaffold.Project{Domain: "example.com"}.AddAPI(scaffold.FlagSource, api); return err }(),
		"the rules must pass opctl's own validation")
	crd := scaffold.BuildCRD("example.com", api)
	_, err := envtest.InstallCRDs(cluster.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}})
	require.NoError(t, err, "the CRD must be accepted")
	cluster.CreateNamespace(t, "values", false)
	probe := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "values.example.com/v1", "kind": "Probe",
			"metadata": map[string]any{"name": name, "namespace": "values"}, "spec": spec}}
	}

	t.Run("a map key the children cannot hold is refused", func(t *testing.T) {
		err := cluster.Client.Create(ctx, probe("bad-key", map[string]any{"labels": map[string]any{"app.kubernetes.io/part-of": "x"}}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "keys must be at most")
		require.NoError(t, cluster.Client.Create(ctx, probe("good-key", map[string]any{"labels": map[string]any{"app.kubernetes.io_part-of": "x"}})))
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
}
