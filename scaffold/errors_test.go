package scaffold

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule, three front ends: a flag, a key of a file, a prompt (which
// shows the rule alone and asks again).
func TestInputErrorNamesTheInputItCameFrom(t *testing.T) {
	a := API{Group: "myapp", Version: "v1", Kind: "db", Plural: "dbs", Namespaced: true}
	const rule = "must be UpperCamelCase (e.g. Database), at most 63 characters"
	for _, tt := range []struct {
		src  Source
		want string
	}{
		{FlagSource, `--kind "db": ` + rule},
		{FileSource("api.yaml"), `api.yaml: kind "db": ` + rule},
	} {
		err := validateAPI(tt.src, "example.com", a)
		assert.EqualError(t, err, tt.want)
		var inputErr *InputError
		require.True(t, errors.As(err, &inputErr))
		assert.Equal(t, InputError{Key: "kind", Value: "db", Rule: rule}, InputError{Key: inputErr.Key, Value: inputErr.Value, Rule: inputErr.Rule})
	}
}
