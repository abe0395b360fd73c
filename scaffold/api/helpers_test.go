package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func seedAPI() API {
	return API{Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true}
}

// seedKind is the kind of DESIGN.md's seed example.
func seedKind(t *testing.T) API {
	a := seedAPI()
	a.Fields = mustFields(t, "engine:string:enum=mysql,postgres:required", "version:string",
		"storage:quantity", "replicas:int32:min=1:max=5:default=1")
	a.Owns = []string{"ConfigMap"}
	return a
}

// mustFields parses --field specs for test kinds.
func mustFields(t *testing.T, specs ...string) []Field {
	t.Helper()
	var out []Field
	for _, s := range specs {
		f, err := ParseField(s)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}
