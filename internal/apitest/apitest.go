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
