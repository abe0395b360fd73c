package scaffold

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CRD is the contract between styles: every style must emit the same
// bytes for the same API.
func TestCRDIdenticalInEveryStyle(t *testing.T) {
	want, err := yamlFile(BuildCRD("example.com", seedProject(t, "go").APIs[0]))
	require.NoError(t, err)
	for _, style := range StyleNames() {
		if style == "metacontroller-decorator" {
			continue // it decorates existing kinds: no CRD
		}
		t.Run(style, func(t *testing.T) {
			p := withStyle(seedProject(t, "go"), style)
			tree, err := Render(p)
			require.NoError(t, err)
			f, ok := tree.Get(CRDPath(p, p.APIs[0]))
			require.True(t, ok, "no CRD at %s", CRDPath(p, p.APIs[0]))
			assert.Equal(t, string(want), string(f.Content))
		})
	}
}

func TestCRDValidatesObjects(t *testing.T) {
	p := seedProject(t, "go")
	crd := BuildCRD(p.Domain, p.APIs[0])
	require.NoError(t, ValidateCRD(crd))
	sample, err := BuildSample(p.Domain, p.APIs[0])
	require.NoError(t, err)
	assert.Empty(t, ValidateObject(crd, sample), "the sample must be valid")

	tests := []struct {
		name string
		spec map[string]any
		want string
	}{
		{"outside enum", map[string]any{"engine": "oracle"}, `spec.engine: Unsupported value: "oracle": supported values: "mysql", "postgres"`},
		{"below min", map[string]any{"engine": "mysql", "replicas": int64(0)}, `spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1`},
		{"above max", map[string]any{"engine": "mysql", "replicas": int64(6)}, `spec.replicas: Invalid value: 6: spec.replicas in body should be less than or equal to 5`},
		{"missing required", map[string]any{"version": "8"}, `spec.engine: Required value`},
		{"bad quantity", map[string]any{"engine": "mysql", "storage": "lots"}, `spec.storage: Invalid value: "lots": spec.storage in body should match`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"apiVersion": "myapp.example.com/v1", "kind": "Database",
				"metadata": map[string]any{"name": "x"}, "spec": tt.spec}
			errs := ValidateObject(crd, obj)
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.want)
		})
	}
}

func TestValidateCRDRejectsBrokenSchema(t *testing.T) {
	crd := BuildCRD("example.com", seedProject(t, "go").APIs[0])
	// A property without a type is not structural: the API server refuses it.
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["engine"] = apiextensionsv1.JSONSchemaProps{}
	err := ValidateCRD(crd)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "openAPIV3Schema.properties[spec].properties[engine].type: Required value")
}

func TestSampleUsesDefaultsAndFirstEnum(t *testing.T) {
	a := API{Group: "g", Version: "v1", Kind: "K", Plural: "ks", Namespaced: true,
		Fields: mustFields(t, "mode:string:enum=fast,slow", "size:int32:default=3", "name:string:minLength=10",
			"code:string:required:pattern=^[0-9]+$", "nested.flag:bool:default=true")}
	got, err := BuildSample("example.com", a)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"mode": "fast", "size": int64(3), "name": "examplexxx", "code": "1",
		"nested": map[string]any{"flag": true},
	}, got["spec"])
}

func TestSampleImpossiblePattern(t *testing.T) {
	a := API{Group: "g", Version: "v1", Kind: "K", Plural: "ks", Namespaced: true,
		Fields: mustFields(t, "code:string:pattern=^zz[0-9]{3}$")}
	_, err := BuildSample("example.com", a)
	assert.EqualError(t, err, `field "code": no sample value matches pattern "^zz[0-9]{3}$"; add default=V`)
}
