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

// richKind is the kind of a real operator's API: embedded Kubernetes
// types, free-form configuration, maps of quantities, a required object
// with a required field, a list with an item enum, a list of objects that
// must have one, and an "exactly one of" rule.
func richKind(t *testing.T) API {
	a := API{Group: "db", Version: "v1", Kind: "Cluster", Plural: "clusters", Namespaced: true}
	a.Fields = mustFields(t,
		"resources:core/v1.ResourceRequirements",
		"tolerations:[]core/v1.Toleration",
		"affinity:corev1.Affinity",
		"storage.volumeClaimTemplate:core/v1.PersistentVolumeClaimSpec",
		"parameters:object",
		"limits:map[string]quantity",
		"issuerRef:object:required",
		"issuerRef.name:string:required",
		"issuerRef.kind:string:enum=Issuer,ClusterIssuer:default=Issuer",
		"usages:[]string:enum=digital signature,key encipherment,server auth:minItems=1:listType=set",
		"triggers:[]object:minItems=1",
		"triggers[].type:string:required:key",
		"triggers[].metadata:map[string]string",
		"ratio:number:min=0:max=1",
		"weights:[]int64",
		"flags:[]bool",
		"caBundle:bytes",
		"pg_hba:[]string",
		"extra:any",
		"backup.s3.bucket:string",
		"backup.gcs.bucket:string",
	)
	a.Fields[len(a.Fields)-3].Description = "pg_hba lines, as PostgreSQL writes them."
	a.Rules = []Rule{{Rule: "!has(self.backup) || [has(self.backup.s3), has(self.backup.gcs)].exists_one(x, x)", Message: "exactly one of backup.s3 and backup.gcs"}}
	return a
}

func TestRichKind(t *testing.T) {
	a := richKind(t)
	require.NoError(t, ValidateAPI(input.FlagSource, "example.com", a))
	crd := BuildCRD("example.com", a)
	require.NoError(t, ValidateCRD(crd))
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	assert.Equal(t, []string{"issuerRef"}, spec.Required)
	assert.Equal(t, []string{"name"}, spec.Properties["issuerRef"].Required)
	assert.Equal(t, int64(1), *spec.Properties["usages"].MinItems)
	assert.Equal(t, "set", *spec.Properties["usages"].XListType)
	assert.Len(t, spec.Properties["usages"].Items.Schema.Enum, 3)
	assert.Equal(t, []string{"type"}, spec.Properties["triggers"].XListMapKeys)
	assert.True(t, *spec.Properties["parameters"].XPreserveUnknownFields)
	assert.Equal(t, "number", spec.Properties["ratio"].Type)
	assert.Equal(t, "byte", spec.Properties["caBundle"].Format)
	assert.Contains(t, spec.Properties["resources"].Properties, "limits")
	assert.Equal(t, "array", spec.Properties["tolerations"].Type)
	assert.Contains(t, spec.Properties["tolerations"].Items.Schema.Properties, "effect")

	sample, err := BuildSample("example.com", a)
	require.NoError(t, err)
	assert.Empty(t, validateObject(crd, sample), "the sample must be valid")
	backup := sample["spec"].(map[string]any)["backup"].(map[string]any)
	assert.Len(t, backup, 1, "the sample picks one of backup.s3 and backup.gcs: %v", backup)

	for _, tt := range []struct {
		name string
		spec map[string]any
		want string
	}{
		{"item outside enum", map[string]any{"issuerRef": map[string]any{"name": "x"}, "usages": []any{"signing"}}, `spec.usages[0]: Unsupported value: "signing"`},
		{"required object missing", map[string]any{}, `spec.issuerRef: Required value`},
		{"empty list", map[string]any{"issuerRef": map[string]any{"name": "x"}, "triggers": []any{}}, `spec.triggers: Invalid value: 0: spec.triggers in body should have at least 1 items`},
		{"both branches", map[string]any{"issuerRef": map[string]any{"name": "x"}, "backup": map[string]any{"s3": map[string]any{"bucket": "a"}, "gcs": map[string]any{"bucket": "b"}}}, `exactly one of backup.s3 and backup.gcs`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obj := map[string]any{"apiVersion": "db.example.com/v1", "kind": "Cluster", "metadata": map[string]any{"name": "x"}, "spec": tt.spec}
			errs := validateObject(crd, obj)
			require.NotEmpty(t, errs)
			assert.Contains(t, errs.ToAggregate().Error(), tt.want)
		})
	}
}

// Spec writes back every modifier the field language has.
func TestRichFieldsRoundTrip(t *testing.T) {
	for _, f := range richKind(t).Fields {
		if f.Description != "" {
			continue
		}
		spec, ok := f.Spec()
		require.True(t, ok, f.Name)
		again, err := ParseField(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, f, again, spec)
	}
}
