package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/input"
)

func TestParseField(t *testing.T) {
	one, five := int64(1), int64(5)
	def := func(s string) *string { return &s }
	tests := []struct {
		spec string
		want Field
	}{
		{"engine:string:enum=mysql,postgres:required", Field{Name: "engine", Type: TypeString, Enum: []string{"mysql", "postgres"}, Required: true}},
		{"replicas:int32:min=1:max=5:default=1", Field{Name: "replicas", Type: TypeInt32, Min: &one, Max: &five, Default: def("1")}},
		{"storage:quantity:column", Field{Name: "storage", Type: TypeQuantity, Column: true}},
		{"backup.schedule:string", Field{Name: "backup.schedule", Type: TypeString}},
		{"tags:[]string", Field{Name: "tags", Type: TypeStringArr}},
		{"labels:map[string]string", Field{Name: "labels", Type: TypeStringMap}},
		{"host:string:pattern=^[a-z]+:[0-9]+$", Field{Name: "host", Type: TypeString, Pattern: "^[a-z]+:[0-9]+$"}},
		{"since:datetime:default=2025-01-01T00:00:00Z:required", Field{Name: "since", Type: TypeDatetime, Default: def("2025-01-01T00:00:00Z"), Required: true}},
		{"name:string:minLength=1:maxLength=5", Field{Name: "name", Type: TypeString, MinLength: &one, MaxLength: &five}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseField(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseFieldErrors(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"engine", `--field "engine": want NAME:TYPE[:MODIFIER...], e.g. replicas:int32:min=1`},
		{"engine:strng", `--field "engine:strng": unknown type "strng" (types: string, bool, int32, int64, number, quantity, int-or-string, duration, datetime, bytes, object, any, []TYPE, map[string]TYPE, or a Kubernetes type such as core/v1.ResourceRequirements (opctl types lists them))`},
		{"engine:string:unique", `--field "engine:string:unique": unknown modifier "unique" (modifiers: required, default, enum, min, max, minLength, maxLength, pattern, format, minItems, maxItems, listType, mapKeys, minProperties, maxProperties, column, key, immutable, rule, itemRule)`},
		{"engine:string:required=yes", `--field "engine:string:required=yes": modifier "required" takes no value`},
		{"replicas:int32:min", `--field "replicas:int32:min": modifier "min" needs a value: min=V`},
		{"replicas:int32:min=one", `--field "replicas:int32:min=one": min=one is not an integer`},
		{"n:int64:max=9223372036854775808", `--field "n:int64:max=9223372036854775808": max=9223372036854775808 is outside int64`},
		{"replicas:int32:min=\n", `--field "replicas:int32:min=\n": min="\n" is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := ParseField(tt.spec)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var inputErr *input.Error
			assert.True(t, errors.As(err, &inputErr), "want an input.Error")
		})
	}
}

func TestValidateAPIErrors(t *testing.T) {
	field := func(spec string) Field {
		f, err := ParseField(spec)
		require.NoError(t, err)
		return f
	}
	tests := []struct {
		name   string
		mutate func(*API)
		want   string
	}{
		{"kind lower case", func(a *API) { a.Kind = "database" }, `--kind "database": must be UpperCamelCase (e.g. Database), at most 63 characters`},
		{"kind with dash", func(a *API) { a.Kind = "Data-base" }, `--kind "Data-base": must be UpperCamelCase (e.g. Database), at most 63 characters`},
		{"bad version", func(a *API) { a.Version = "1.0" }, `--version "1.0": must look like v1, v1alpha1 or v2beta3`},
		{"version v0", func(a *API) { a.Version = "v0" }, `--version "v0": must look like v1, v1alpha1 or v2beta3`},
		{"group underscore", func(a *API) { a.Group = "my_app" }, `--group "my_app": must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')`},
		{"group upper case", func(a *API) { a.Group = "MyApp" }, `--group "MyApp": must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')`},
		{"plural upper case", func(a *API) { a.Plural = "Databases" }, `--plural "Databases": must be lower-case letters and digits, starting with a letter`},
		{"min greater than max", func(a *API) { a.Fields = []Field{field("replicas:int32:min=5:max=1")} }, `--field "replicas": min 5 is greater than max 1`},
		{"bound past 2^53", func(a *API) { a.Fields = []Field{field("n:int64:max=9007199254740993")} }, `--field "n": bound 9007199254740993 is beyond ±9007199254740992 (2^53): a CRD's bounds are JSON numbers, exact only up to that`},
		{"the least int64 as min", func(a *API) { a.Fields = []Field{field("n:int64:min=-9223372036854775808")} }, `--field "n": bound -9223372036854775808 is beyond ±9007199254740992 (2^53): a CRD's bounds are JSON numbers, exact only up to that`},
		{"default outside enum", func(a *API) { a.Fields = []Field{field("engine:string:enum=mysql,postgres:default=oracle")} }, `--field "engine": default "oracle" is not in enum mysql,postgres`},
		{"enum value beginning with a space", func(a *API) { a.Fields = []Field{field("engine:string:enum=mysql, postgres")} }, `--field "engine": enum value " postgres" must not begin or end with a space`},
		{"default outside range", func(a *API) { a.Fields = []Field{field("replicas:int32:min=1:max=5:default=9")} }, `--field "replicas": default 9 is outside min/max`},
		{"duplicate field", func(a *API) { a.Fields = []Field{field("engine:string"), field("engine:bool")} }, `--field "engine": defined twice`},
		{"reserved status", func(a *API) { a.Fields = []Field{field("status:string")} }, `--field "status": name "status" is reserved`},
		{"reserved spec", func(a *API) { a.Fields = []Field{field("spec:string")} }, `--field "spec": name "spec" is reserved`},
		{"reserved deepCopy", func(a *API) { a.Fields = []Field{field("deepCopy:string")} }, `--field "deepCopy": name "deepCopy" is reserved`},
		{"dash", func(a *API) { a.Fields = []Field{field("storage-class:string")} }, `--field "storage-class": name "storage-class" must be letters, digits and underscores, not starting with a digit (storageClass, pg_hba)`},
		{"same Go name", func(a *API) { a.Fields = []Field{field("pgHba:string"), field("pg_hba:string")} }, `--field "pg_hba": its Go name PgHba is pgHba's too: give one another name`},
		{"field and object", func(a *API) { a.Fields = []Field{field("backup:string"), field("backup.schedule:string")} }, `--field "backup.schedule": "backup" is a field of type string, so it cannot also be an object or a list; declare it backup:object (or backup:[]object) to give it fields`},
		{"object declared as a list", func(a *API) { a.Fields = []Field{field("backup:object"), field("backup[].schedule:string")} }, `--field "backup[].schedule": "backup" is an object: its fields are backup.NAME, not backup[].NAME`},
		{"enum on a list of integers", func(a *API) { a.Fields = []Field{field("ports:[]int32:enum=1,2")} }, `--field "ports": modifier "enum" does not apply to type []int32`},
		{"set of objects", func(a *API) { a.Fields = []Field{field("items:[]object:listType=set")} }, `--field "items": listType set holds scalars (strings, numbers), not object: use map with mapKeys, or atomic`},
		{"map without keys", func(a *API) { a.Fields = []Field{field("env:[]core/v1.EnvVar:listType=map")} }, `--field "env": listType map needs mapKeys (the fields that tell its objects apart: mapKeys=name)`},
		{"unknown map key", func(a *API) { a.Fields = []Field{field("env:[]core/v1.EnvVar:mapKeys=key")} }, `--field "env": mapKeys: core/v1.EnvVar has no field key`},
		{"minItems above maxItems", func(a *API) { a.Fields = []Field{field("tags:[]string:minItems=3:maxItems=2")} }, `--field "tags": minItems 3 is greater than maxItems 2`},
		{"default not JSON", func(a *API) { a.Fields = []Field{field("tags:[]string:default=a,b")} }, `--field "tags": default a,b is not JSON (a []string's default is JSON: ["a","b"])`},
		{"default of another type", func(a *API) { a.Fields = []Field{field("limits:map[string]quantity:default={\"cpu\":true}")} }, `--field "limits": default {"cpu":true} does not fit the type: cpu: Invalid value: "boolean": .cpu in body must be of type integer,string: "boolean"`},
		{"modifier on wrong type", func(a *API) { a.Fields = []Field{field("replicas:int32:enum=1,2")} }, `--field "replicas": modifier "enum" does not apply to type int32`},
		{"bad pattern", func(a *API) { a.Fields = []Field{field("host:string:pattern=([a-z")} }, "--field \"host\": pattern \"([a-z\" does not compile: error parsing regexp: missing closing ]: `[a-z`"},
		{"bad bool default", func(a *API) { a.Fields = []Field{field("enabled:bool:default=yes")} }, `--field "enabled": default "yes" is not true or false`},
		{"bad quantity default", func(a *API) { a.Fields = []Field{field("storage:quantity:default=ten")} }, `--field "storage": default "ten" is not a quantity (e.g. 10Gi, 500m)`},
		{"unknown owned kind", func(a *API) { a.Owns = []string{"Pod"} }, `--owns "Pod": unknown kind (kinds: ConfigMap, Secret, Service, Deployment, StatefulSet, Job, PodDisruptionBudget, NetworkPolicy, HorizontalPodAutoscaler, Ingress, CronJob, ServiceMonitor)`},
		{"autoscaler without a workload", func(a *API) { a.Owns = []string{"Service", "HorizontalPodAutoscaler"} }, `--owns "HorizontalPodAutoscaler": needs Deployment or StatefulSet owned too: it refers to it`},
		{"service monitor without a Service", func(a *API) { a.Owns = []string{"Deployment", "ServiceMonitor"} }, `--owns "ServiceMonitor": needs Service owned too: it refers to it`},
		{"cluster-scoped owner", func(a *API) { a.Namespaced = false; a.Owns = []string{"ConfigMap"} }, `--owns "ConfigMap": a cluster-scoped kind has no namespace to put children in; use --namespaced or drop --owns`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := seedAPI()
			tt.mutate(&a)
			err := ValidateAPI(input.FlagSource, "example.com", a)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestValidateAPIFileSource(t *testing.T) {
	a := seedAPI()
	a.Kind = "database"
	err := ValidateAPI(input.FileSource("db.yaml"), "example.com", a)
	assert.EqualError(t, err, `db.yaml: kind "database": must be UpperCamelCase (e.g. Database), at most 63 characters`)
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		spec string
		want Rule
	}{
		{"self > 0", Rule{Rule: "self > 0"}},
		{"self > 0#must be positive", Rule{Rule: "self > 0", Message: "must be positive"}},
		{"self > 0 # must be positive ", Rule{Rule: "self > 0", Message: "must be positive"}},
		{"self != '#'#no hash", Rule{Rule: "self != '#'", Message: "no hash"}},
		{`self != "a\"#b"`, Rule{Rule: `self != "a\"#b"`}},
		{"self#a#b", Rule{Rule: "self#a", Message: "b"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ParseRule(tt.spec), tt.spec)
	}
}
