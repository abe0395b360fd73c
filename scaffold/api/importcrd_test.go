package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold/api"
)

// TestFromCRDWritesBack takes kinds back from the CRDs opctl writes for
// them: the same kind, but for the order of its fields, and no field of
// type schema, which the language writes.
func TestFromCRDWritesBack(t *testing.T) {
	seed := apitest.SeedAPI()
	seed.Fields = apitest.MustFields(t, "engine:string:enum=mysql,postgres:required", "version:string",
		"storage:quantity", "replicas:int32:min=1:max=5:default=1")
	cluster := api.API{Group: "db", Version: "v1", Kind: "Cluster", Plural: "clusters", Namespaced: true,
		Fields: apitest.MustFields(t, apitest.ClusterFields()...),
		Rules:  []api.Rule{{Rule: "!has(self.backup) || [has(self.backup.s3), has(self.backup.gcs)].exists_one(x, x)", Message: "exactly one of"}}}
	for _, a := range []api.API{seed, cluster} {
		t.Run(a.Kind, func(t *testing.T) {
			crd := api.BuildCRD("example.com", a)
			back, err := api.FromCRD(crd, "", "example.com")
			require.NoError(t, err)
			assert.Equal(t, crd, api.BuildCRD("example.com", back))
			for _, f := range back.Fields {
				assert.NotEqual(t, api.TypeSchema, f.Type, "%s is of type schema", f.Name)
			}
			assert.ElementsMatch(t, a.Fields, back.Fields)
		})
	}
}
