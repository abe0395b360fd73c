// Package cmdtest runs a command's constructor in a test: an Env over
// buffers and the style registry, and a command line executed as the root
// command would.
package cmdtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/scaffold/styles"
)

// Env is an Env in a new directory, over buffers, with every style.
func Env(t *testing.T) cmdutil.Env {
	var out bytes.Buffer
	return cmdutil.Env{IO: cmdutil.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &out}, Dir: t.TempDir(), Styles: styles.All()}
}

// Execute runs cmd with args; it must succeed.
func Execute(t *testing.T, cmd *cobra.Command, args ...string) {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	require.NoError(t, cmd.ExecuteContext(context.Background()))
}
