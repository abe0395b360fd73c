package project

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/cmdtest"
)

// The flags and arguments make each command's options: directories are
// resolved against the working directory, and the options say which flags
// were given.
func TestFlagsMakeOptions(t *testing.T) {
	env := cmdtest.Env(t)
	var in *initOptions
	cmdtest.Execute(t, NewInitCmd(env, func(o *initOptions) error { in = o; return nil }), "db", "--style", "kopf", "--domain", "example.com", "--yes", "--dry-run")
	assert.Equal(t, filepath.Join(env.Dir, "db"), in.dir)
	assert.Equal(t, []string{"kopf", "example.com"}, []string{in.style, in.domain})
	assert.True(t, in.yes && in.write.DryRun)
	assert.True(t, in.Set("domain"))
	assert.False(t, in.Set("name"), "the name comes from the directory when not given")

	var mig *migrateOptions
	cmdtest.Execute(t, NewMigrateCmd(env, func(o *migrateOptions) error { mig = o; return nil }), "--to", "go", "../db-go")
	assert.Equal(t, filepath.Join(filepath.Dir(env.Dir), "db-go"), mig.dir)
	assert.Equal(t, "go", mig.to)

	var ver *verifyOptions
	cmdtest.Execute(t, NewVerifyCmd(env, func(o *verifyOptions) error { ver = o; return nil }), "a", "/abs/b")
	assert.Equal(t, [2]string{filepath.Join(env.Dir, "a"), "/abs/b"}, ver.dirs)

	var up *upgradeOptions
	cmdtest.Execute(t, NewUpgradeCmd(env, func(o *upgradeOptions) error { up = o; return nil }), "--force")
	assert.True(t, up.write.Force)
	var gen *generateOptions
	cmdtest.Execute(t, NewGenerateCmd(env, func(o *generateOptions) error { gen = o; return nil }), "--dry-run")
	assert.True(t, gen.write.DryRun)
}

// The run functions take options, not a command.
func TestRunFunctionsCheckTheirOptions(t *testing.T) {
	ctx := context.Background()
	env := cmdtest.Env(t)
	file := filepath.Join(env.Dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"init into a file", runInit(env, initOptions{Given: cmdutil.GivenFlags(ctx), dir: file, yes: true}), "a-file is a file: init needs a directory"},
		{"migrate without --to", runMigrate(env, migrateOptions{Given: cmdutil.GivenFlags(ctx), dir: filepath.Join(env.Dir, "new")}), "--to is required"},
		{"migrate to no style", runMigrate(env, migrateOptions{Given: cmdutil.GivenFlags(ctx, "to"), to: "cobol", dir: filepath.Join(env.Dir, "new")}), `--to "cobol"`},
		{"generate outside a project", runGenerate(env, generateOptions{Given: cmdutil.GivenFlags(ctx)}), "opctl.yaml"},
		{"upgrade outside a project", runUpgrade(env, upgradeOptions{Given: cmdutil.GivenFlags(ctx)}), "opctl.yaml"},
	} {
		assert.ErrorContains(t, tc.err, tc.want, tc.name)
	}
}
