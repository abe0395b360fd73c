package metacontroller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/styles/hookserver"
)

// One CompositeController per kind, its parent the kind's storage
// version, its children each owned kind (a Job's never updated in place,
// which the API server would refuse), its hook the Service by the name
// kustomize gives it.
func TestCompositeControllers(t *testing.T) {
	p := scaffold.Project{Name: "db-operator", Domain: "example.com", ResyncSeconds: 60, APIs: []api.API{
		{Group: "myapp", Version: "v2", Kind: "Database", Plural: "databases", Owns: []string{"ConfigMap", "Job"}},
		{Group: "myapp", Version: "v1", Kind: "Cache", Plural: "caches"},
	}}
	files := manifests(p)
	assert.Len(t, files, 3, "the hook Service and a controller per kind")
	require.Contains(t, files, hookserver.ServicePath)
	require.Contains(t, files, "config/metacontroller/databases.yaml")
	cc := files["config/metacontroller/databases.yaml"][0].(*compositeController)
	assert.Equal(t, "databases", cc.Name)
	assert.Equal(t, hookserver.ResourceRule{APIVersion: "myapp.example.com/v2", Resource: "databases"}, cc.Spec.ParentResource)
	assert.Equal(t, int32(60), cc.Spec.ResyncPeriodSeconds)
	assert.True(t, cc.Spec.GenerateSelector)
	assert.Equal(t, "http://db-operator-hook.db-operator-system/sync/databases", cc.Spec.Hooks.Sync.Webhook.URL)
	require.Len(t, cc.Spec.ChildResources, 2)
	assert.Equal(t, hookserver.ChildResourceRule{ResourceRule: hookserver.ResourceRule{APIVersion: "v1", Resource: "configmaps"}, UpdateStrategy: hookserver.UpdateStrategy{Method: "InPlace"}}, cc.Spec.ChildResources[0])
	assert.Equal(t, hookserver.ChildResourceRule{ResourceRule: hookserver.ResourceRule{APIVersion: "batch/v1", Resource: "jobs"}, UpdateStrategy: hookserver.UpdateStrategy{Method: "OnDelete"}}, cc.Spec.ChildResources[1])
	assert.Empty(t, files["config/metacontroller/caches.yaml"][0].(*compositeController).Spec.ChildResources)
}
