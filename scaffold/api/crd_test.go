package api

import (
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/input"
)

func TestCRDValidatesObjects(t *testing.T) {
	a := seedKind(t)
	crd := BuildCRD("example.com", a)
	require.NoError(t, ValidateCRD(crd))
	sample, err := BuildSample("example.com", a)
	require.NoError(t, err)
	assert.Empty(t, validateObject(crd, sample), "the sample must be valid")

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
			errs := validateObject(crd, obj)
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.want)
		})
	}
}

// A map field takes every key Kubernetes allows in a map (a label's key,
// with a slash, among them): the children hold a map whole, as JSON, under
// the field's name, so no convention narrows its keys.
func TestMapKeysAreAnyKeys(t *testing.T) {
	a := API{Group: "g", Version: "v1", Kind: "K", Plural: "ks", Namespaced: true, Fields: mustFields(t, "labels:map[string]string")}
	crd := BuildCRD("example.com", a)
	require.NoError(t, ValidateCRD(crd))
	for _, key := range []string{"app-type", "app.kubernetes.io/part-of", "two words", "café", strings.Repeat("k", 300)} {
		obj := map[string]any{"apiVersion": "g.example.com/v1", "kind": "K", "metadata": map[string]any{"name": "x"},
			"spec": map[string]any{"labels": map[string]any{key: "v"}}}
		assert.Empty(t, validateObject(crd, obj), key)
	}
}

func TestValidateCRDRejectsBrokenSchema(t *testing.T) {
	crd := BuildCRD("example.com", seedKind(t))
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

// A sample value is built from the pattern when no common word matches;
// an optional field no value fits is left out of the sample, and a required
// one is refused by validation, before anything is rendered.
func TestSampleFromPattern(t *testing.T) {
	tests := []struct {
		spec string
		want any // nil: left out of the sample
	}{
		{"schedule:string:pattern=^@(daily|hourly)$", "@hourly"},
		{"schedule:string:pattern=^@(daily|weekly)$", "@daily"},
		{"schedule:string", "@hourly"},
		{"host:string", "example.com"},
		{"code:string:pattern=^zz[0-9]{3}$", "zz000"},
		{"code:string:maxLength=4:pattern=^[A-Z]{2}-[0-9]+$", "AA-0"},
		{"tier:string:minLength=2:maxLength=8:pattern=^[a-z]+$", "example"},
		{"code:string:maxLength=3:pattern=^zz[0-9]{3}$", nil},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			f := mustFields(t, tt.spec)
			require.NoError(t, ValidateFields(input.FlagSource, f))
			a := API{Group: "g", Version: "v1", Kind: "K", Plural: "ks", Namespaced: true, Fields: f}
			sample, err := BuildSample("example.com", a)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sample["spec"].(map[string]any)[f[0].Name])
		})
	}
	err := ValidateFields(input.FlagSource, mustFields(t, "code:string:maxLength=3:required:pattern=^zz[0-9]{3}$"))
	assert.EqualError(t, err, `--field "code": no value for the sample fits pattern "^zz[0-9]{3}$" and the length bounds; add default=V`)
}

// A nested field's default applies even when the object holding it is left
// out: the object defaults to {} unless it has a required field of its own.
func TestNestedDefaultsApply(t *testing.T) {
	fields := mustFields(t, "engine:string:required", "backup.schedule:string:default=@daily",
		"backup.retention.days:int32:default=7", "tls.secret:string:required", "tls.port:int32:default=443", "notes.text:string")
	a := API{Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true, Fields: fields}
	crd := BuildCRD("example.com", a)
	require.NoError(t, ValidateCRD(crd))
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	assert.Equal(t, "{}", string(spec.Properties["backup"].Default.Raw))
	assert.Equal(t, "{}", string(spec.Properties["backup"].Properties["retention"].Default.Raw))
	assert.Nil(t, spec.Properties["tls"].Default, "tls has a required field: {} would be invalid")
	assert.Nil(t, spec.Properties["notes"].Default, "nothing to default in notes")
	obj := map[string]any{"apiVersion": "myapp.example.com/v1", "kind": "Database",
		"metadata": map[string]any{"name": "x"}, "spec": map[string]any{"engine": "mysql"}}
	assert.Empty(t, validateObject(crd, obj))
	assert.Equal(t, map[string]any{"engine": "mysql", "backup": map[string]any{"schedule": "@daily", "retention": map[string]any{"days": int64(7)}}},
		defaulted(t, crd, obj)["spec"])
}

// defaulted applies the CRD's defaults to obj with the API server's own
// structural defaulting.
func defaulted(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, obj map[string]any) map[string]any {
	var internal apiextensions.JSONSchemaProps
	require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil))
	s, err := structuralschema.NewStructural(&internal)
	require.NoError(t, err)
	structuraldefaulting.Default(obj, s)
	return obj
}

// A kind with an older version: the CRD serves both, stores the kind's
// version, and each has its own schema and columns; the older version gets
// its own conformance cases, with no children (the API server checks them).
// Fields renamed over several versions: each older version's fields are
// known by their names in the current one, lists and objects included.
