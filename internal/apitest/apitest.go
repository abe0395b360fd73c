// Package apitest builds kinds for tests outside the api package.
package apitest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/api"
)

// SeedAPI is the kind of DESIGN.md's seed example, without fields.
func SeedAPI() api.API {
	return api.API{Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true}
}

// MustFields parses --field specs.
func MustFields(t testing.TB, specs ...string) []api.Field {
	t.Helper()
	var out []api.Field
	for _, s := range specs {
		f, err := api.ParseField(s)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}

// ClusterFields are the fields of a kind shaped like a real operator's API
// (a database cluster's, a certificate's): Kubernetes' own types the
// workloads take (resources, tolerations, affinity, a node selector, env)
// and one they do not (a volume claim template), free-form parameters, a
// map of quantities, a required object with a required field, a list with
// an item enum that must have one item, a list of objects keyed by a
// field, a number, bytes, a field named as an API that exists names it,
// and "exactly one of" two objects.
func ClusterFields() []string {
	return []string{
		"resources:core/v1.ResourceRequirements", "tolerations:[]core/v1.Toleration", "affinity:core/v1.Affinity",
		"nodeSelector:map[string]string", "env:[]core/v1.EnvVar", "storage.volumeClaimTemplate:core/v1.PersistentVolumeClaimSpec",
		"parameters:object", "limits:map[string]quantity", "issuerRef:object:required", "issuerRef.name:string:required",
		"issuerRef.kind:string:enum=Issuer,ClusterIssuer:default=Issuer",
		"usages:[]string:enum=digital signature,key encipherment,server auth:minItems=1",
		"triggers:[]object:maxItems=4", "triggers[].type:string:required:key", "triggers[].metadata:map[string]string",
		"ratio:number:min=0:max=1", "caBundle:bytes", "pg_hba:[]string", "extra:any",
		"backup.s3.bucket:string", "backup.gcs.bucket:string",
	}
}
