package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

func TestCRDOfAKindWithAnOlderVersion(t *testing.T) {
	p := seedProject(t)
	p, _, err := p.AddVersion(input.FlagSource, "Database", "v2", api.APIEdit{Fields: apitest.MustFields(t, "tier:string:default=standard:column")})
	require.NoError(t, err)
	a := p.APIs[0]
	crd := api.BuildCRD(p.Domain, a)
	require.NoError(t, api.ValidateCRD(crd))
	require.Len(t, crd.Spec.Versions, 2)
	v2, v1 := crd.Spec.Versions[0], crd.Spec.Versions[1]
	assert.Equal(t, []any{"v2", true, true, "v1", true, false}, []any{v2.Name, v2.Served, v2.Storage, v1.Name, v1.Served, v1.Storage})
	assert.Contains(t, v2.Schema.OpenAPIV3Schema.Properties["spec"].Properties, "tier")
	assert.NotContains(t, v1.Schema.OpenAPIV3Schema.Properties["spec"].Properties, "tier")
	assert.Len(t, v2.AdditionalPrinterColumns, len(v1.AdditionalPrinterColumns)+1, "tier's column, in v2 only")
	assert.Nil(t, crd.Spec.Conversion, "None conversion, the default")

	tree := render(t, p)
	file := func(path string) string {
		f, ok := tree.Get(ConformanceDir + "/database/" + path)
		require.True(t, ok, path)
		return string(f.Content)
	}
	assert.Contains(t, file("v1/engine-missing.yaml"), "apiVersion: myapp.example.com/v1\n")
	assert.Contains(t, file("v1/engine-missing.yaml"), "rejected: 'spec.engine: Required value'")
	assert.NotContains(t, file("v1/sample.yaml"), "children:")
	assert.Contains(t, file("sample.yaml"), "apiVersion: myapp.example.com/v2\n")
	assert.Contains(t, file("sample.yaml"), "children:")
}

func TestMovedThroughVersions(t *testing.T) {
	p := seedProject(t)
	p, _, err := p.EditAPI(input.FlagSource, "Database", api.APIEdit{Fields: apitest.MustFields(t, "users[].name:string:required", "backup.schedule:string")})
	require.NoError(t, err)
	p, _, err = p.AddVersion(input.FlagSource, "Database", "v2", api.APIEdit{Renames: []api.Rename{{From: "engine", To: "flavor"}, {From: "users[].name", To: "users[].login"}}})
	require.NoError(t, err)
	p, _, err = p.AddVersion(input.FlagSource, "Database", "v3", api.APIEdit{Renames: []api.Rename{{From: "users", To: "members"}, {From: "backup", To: "backups"}}})
	require.NoError(t, err)
	a := p.APIs[0]
	assert.True(t, a.Converts())
	assert.Equal(t, []api.Rename{{From: "engine", To: "flavor"}, {From: "users[].name", To: "members[].login"}, {From: "backup.schedule", To: "backups.schedule"}}, a.Moved(0))
	assert.Equal(t, []api.Rename{{From: "users[].login", To: "members[].login"}, {From: "backup.schedule", To: "backups.schedule"}}, a.Moved(1))
	assert.Equal(t, []string{"flavor", "version", "storage", "replicas", "members[].login", "backups.schedule"}, fieldList(a.Fields))

	_, _, err = p.AddVersion(input.FlagSource, "Database", "v4", api.APIEdit{Renames: []api.Rename{{From: "members", To: "people"}, {From: "members[].login", To: "members[].user"}}})
	assert.ErrorContains(t, err, `--rename-field "members[].login=members[].user": it renames what --rename-field members=people renames`)
}

// A version keeps what it removes without a default, in the older
// version's names: a field, or an object or list of objects the new
// version has nothing of, whole; a removed field is moved no more.
func TestRemovedThroughVersions(t *testing.T) {
	p := seedProject(t)
	p, _, err := p.EditAPI(input.FlagSource, "Database", api.APIEdit{Fields: apitest.MustFields(t,
		"users[].name:string:required", "users[].role:string", "backup.schedule:string", "backup.target:string", "tier:string:default=gold")})
	require.NoError(t, err)
	p, _, err = p.AddVersion(input.FlagSource, "Database", "v2", api.APIEdit{Renames: []api.Rename{{From: "backup", To: "backups"}, {From: "engine", To: "flavor"}},
		RemoveFields: []string{"version", "backups.schedule", "users[].role", "tier"}})
	require.NoError(t, err)
	a := p.APIs[0]
	assert.Equal(t, []string{"version", "users[].role", "backup.schedule"}, a.Served[0].Removed, "tier has a default: None conversion prunes and fills it")
	assert.True(t, a.Converts())
	assert.True(t, a.KeepsRemoved())
	assert.Equal(t, "myapp.example.com/removed-in-v2", a.RemovedAnnotation(p.Domain, 0))
	assert.Equal(t, []string{"flavor", "storage", "replicas", "users[].name", "backups.target", "tier"}, fieldList(a.Onward(a.Served[0]).Fields), "tier, pruned by the API server, is None conversion's")

	p, _, err = p.AddVersion(input.FlagSource, "Database", "v3", api.APIEdit{RemoveFields: []string{"users", "backups"}, Fields: apitest.MustFields(t, "storage:quantity:default=1Gi")})
	require.NoError(t, err)
	a = p.APIs[0]
	assert.Equal(t, []string{"users", "backups"}, a.Served[1].Removed, "lists and objects v3 has nothing of, whole")
	assert.Equal(t, "myapp.example.com/removed-in-v3", a.RemovedAnnotation(p.Domain, 1))
	assert.Equal(t, []api.Rename{{From: "engine", To: "flavor"}}, a.Moved(0), "backup.target, moved in v2, is removed in v3")
	flag, asked := a.Conversion()
	assert.Equal(t, "rename-field", flag)
	assert.Equal(t, "renames fields between v1 and v2", asked)

	p, _, err = seedProject(t).AddVersion(input.FlagSource, "Database", "v2", api.APIEdit{RemoveFields: []string{"version"}, Fields: apitest.MustFields(t, "version:string:default=latest")})
	require.NoError(t, err)
	assert.Empty(t, p.APIs[0].Served[0].Removed, "version, defined again, stays")
	p, _, err = seedProject(t).AddVersion(input.FlagSource, "Database", "v2", api.APIEdit{RemoveFields: []string{"version"}})
	require.NoError(t, err)
	flag, asked = p.APIs[0].Conversion()
	assert.Equal(t, "remove-field", flag)
	assert.Equal(t, "removes version in v2, which has no default: its values, kept in an annotation, come back in v1", asked)
}

func fieldList(fields []api.Field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Name)
	}
	return out
}
func TestAddAPIRejectsDuplicates(t *testing.T) {
	p := scaffold.Project{Name: "demo", Domain: "example.com", Style: "plain", APIs: []api.API{apitest.SeedAPI()}}
	again := apitest.SeedAPI()
	again.Version = "v2"
	_, err := p.AddAPI(input.FlagSource, again)
	assert.EqualError(t, err, `--kind "Database": the project already has this kind (myapp.example.com/v1); kind names are unique in a project (opctl edit api --kind Database changes it, and adds a version with --new-version)`)
	again.Group = "other"
	_, err = p.AddAPI(input.FlagSource, again)
	assert.EqualError(t, err, `--kind "Database": the project already has this kind (myapp.example.com/v1); kind names are unique in a project (opctl edit api --kind Database changes it, and adds a version with --new-version)`)
	plural := apitest.SeedAPI()
	plural.Kind = "Databasey"
	_, err = p.AddAPI(input.FlagSource, plural)
	assert.EqualError(t, err, `--plural "databases": group myapp already has a kind with this plural (Database)`)
}
