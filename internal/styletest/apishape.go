//go:build e2e

package styletest

import (
	"context"
	"os/exec"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
)

// checkListMerge: the users of an Other (see seedWithOther), a list of
// objects keyed by their required name, keep the user each of two field
// managers server-side applies: the API server merges the objects by key,
// where an atomic list would keep the last manager's only.
func checkListMerge(t *testing.T, c client.Client, p scaffold.Project, ns string) {
	ctx := context.Background()
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == "Other" })
	require.NotEqual(t, -1, i, "the project has no Other kind: use seedWithOther")
	a := p.APIs[i]
	object := func(users ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": a.FullGroup(p.Domain) + "/" + a.Version, "kind": a.Kind,
			"metadata": map[string]any{"name": "list-merge", "namespace": ns},
			"spec":     map[string]any{"users": users},
		}}
	}
	for _, apply := range []struct{ manager, user string }{{"team-a", "alice"}, {"team-b", "bob"}} {
		user := map[string]any{"name": apply.user, "roles": []any{"read"}}
		require.NoError(t, c.Apply(ctx, client.ApplyConfigurationFromUnstructured(object(user)), client.FieldOwner(apply.manager)))
	}
	got := object()
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(got), got))
	users, _, err := unstructured.NestedSlice(got.Object, "spec", "users")
	require.NoError(t, err)
	var names []any
	for _, u := range users {
		names = append(names, u.(map[string]any)["name"])
	}
	assert.ElementsMatch(t, []any{"alice", "bob"}, names, "the users after two managers applied one each")
	require.NoError(t, c.Delete(ctx, got))
}

// checkScale: kubectl scale sets the replicas of an Other (see
// seedWithOther) through its scale subresource, as an autoscaler does.
func checkScale(t *testing.T, cluster *Cluster, p scaffold.Project, ns string) {
	ctx := context.Background()
	a := p.APIs[slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == "Other" })]
	require.Equal(t, "replicas", a.ScaleReplicas, "Other scales its replicas: use seedWithOther")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": a.FullGroup(p.Domain) + "/" + a.Version, "kind": a.Kind,
		"metadata": map[string]any{"name": "scaled", "namespace": ns},
		"spec":     map[string]any{},
	}}
	require.NoError(t, cluster.Client.Create(ctx, obj))
	out, err := exec.Command("kubectl", "--kubeconfig", cluster.AdminKubeconfig(t), "--namespace", ns,
		"scale", "--replicas=3", a.Plural+"."+a.FullGroup(p.Domain)+"/scaled").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, cluster.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj))
	replicas, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	assert.Equal(t, int64(3), replicas, "spec.replicas after kubectl scale --replicas=3")
	require.NoError(t, cluster.Client.Delete(ctx, obj))
}
