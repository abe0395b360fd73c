package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Spec is ParseField's inverse: a field written back as --field takes it
// parses to the same field.
func TestFieldSpecRoundTrips(t *testing.T) {
	for _, spec := range []string{
		"engine:string:enum=mysql,postgres:required",
		"replicas:int32:min=1:max=5:default=1",
		"since:datetime:default=2025-01-01T00:00:00Z:column",
		"tier:string:minLength=2:maxLength=8:immutable:pattern=^[a-z]+:[0-9]$",
		"code:string:rule=self.startsWith('x#y')#starts with x",
		"backup.schedule:string:required:default=@daily",
	} {
		f, err := ParseField(spec)
		require.NoError(t, err, spec)
		got, ok := f.Spec()
		require.True(t, ok, spec)
		again, err := ParseField(got)
		require.NoError(t, err, got)
		assert.Equal(t, f, again, "%s written back as %s", spec, got)
	}
	f, err := ParseField("code:string:pattern=^x")
	require.NoError(t, err)
	f.Rules = []Rule{{Rule: "self != 'x'"}}
	_, ok := f.Spec()
	assert.False(t, ok, "a pattern and a rule cannot both come last")
}
