package decide

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold/styles"
)

// The answers are the flags the command line gave, and the run function
// takes them without cobra.
func TestDecideOptions(t *testing.T) {
	var out bytes.Buffer
	env := cmdutil.Env{IO: cmdutil.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out}, Dir: t.TempDir(), Styles: styles.All()}
	var got *decideOptions
	cmd := NewCmd(env, func(o *decideOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--existing", "no", "--new-crd", "yes", "-o", "json"})
	require.NoError(t, cmd.ExecuteContext(context.Background()))
	assert.Equal(t, "json", got.output)
	assert.True(t, got.Set("existing") && got.Set("new-crd"))
	assert.False(t, got.Set("language"))

	// Without a terminal, a question no flag answers is an error naming it.
	err := runDecide(env, *got)
	assert.ErrorContains(t, err, "--stage")
	got.output = "yaml"
	assert.EqualError(t, runDecide(env, *got), `-o "yaml": want text or json`)
}
