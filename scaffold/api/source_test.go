package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold/input"
)

// One rule, three front ends: a flag, a key of a file, a prompt (which
// shows the rule alone and asks again).
func TestInputErrorNamesTheInputItCameFrom(t *testing.T) {
	a := API{Group: "myapp", Version: "v1", Kind: "db", Plural: "dbs", Namespaced: true}
	const rule = "must be UpperCamelCase (e.g. Database), at most 63 characters"
	for _, tt := range []struct {
		src  input.Source
		want string
	}{
		{input.FlagSource, `--kind "db": ` + rule},
		{input.FileSource("api.yaml"), `api.yaml: kind "db": ` + rule},
	} {
		err := ValidateAPI(tt.src, "example.com", a)
		assert.EqualError(t, err, tt.want)
		var inputErr *input.Error
		require.True(t, errors.As(err, &inputErr))
		assert.Equal(t, input.Error{Key: "kind", Value: "db", Rule: rule}, input.Error{Key: inputErr.Key, Value: inputErr.Value, Rule: inputErr.Rule})
	}
}
