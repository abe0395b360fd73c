package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/opctl/opctl/internal/cmdtest"
)

// The answers are the flags the command line gave, and the run function
// takes them without cobra.
func TestDecideOptions(t *testing.T) {
	env := cmdtest.Env(t)
	var got *decideOptions
	cmdtest.Execute(t, NewCmd(env, func(o *decideOptions) error { got = o; return nil }), "--existing", "no", "--new-crd", "yes", "-o", "json")
	assert.Equal(t, "json", got.output)
	assert.True(t, got.Set("existing") && got.Set("new-crd"))
	assert.False(t, got.Set("language"))

	// Without a terminal, a question no flag answers is an error naming it.
	err := runDecide(env, *got)
	assert.ErrorContains(t, err, "--stage")
	got.output = "yaml"
	assert.EqualError(t, runDecide(env, *got), `-o "yaml": want text or json`)
}
