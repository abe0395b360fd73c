package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnguardedOptional(t *testing.T) {
	a := API{}
	for _, spec := range []string{"engine:string:required", "replicas:int32", "size:int32:default=1", "backup.schedule:string"} {
		f, err := ParseField(spec)
		require.NoError(t, err)
		a.Fields = append(a.Fields, f)
	}
	for rule, want := range map[string][]string{
		`self.replicas <= 3 || self.engine == "postgres"`:                               {"replicas"},
		`!has(self.replicas) || self.replicas <= 3`:                                     nil,
		`self.size <= 3 && self.engine != ""`:                                           nil,
		`self.backup.schedule != ""`:                                                    {"backup.schedule"},
		`!has(self.backup) || !has(self.backup.schedule) || self.backup.schedule != ""`: nil,
		`self.replicas <=`:                                                              nil,
	} {
		assert.Equal(t, want, UnguardedOptional(a, Rule{Rule: rule}), rule)
	}
}
