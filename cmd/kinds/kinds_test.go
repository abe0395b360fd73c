package kinds

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/cmdtest"
)

// The flags make create api's options, a style's kind option among them,
// and the options say which flags were given.
func TestCreateAPIFlagsMakeOptions(t *testing.T) {
	var got *createAPIOptions
	cmd := newCreateAPICmd(cmdtest.Env(t), func(o *createAPIOptions) error { got = o; return nil })
	cmdtest.Execute(t, cmd, "--group", "myapp", "--version", "v1", "--kind", "Database", "--field", "engine:string",
		"--field", "replicas:int32:min=1", "--owns", "ConfigMap,Secret", "--namespaced=false", "--playbook", "playbooks/db.yml", "--dry-run")
	require.NotNil(t, got)
	assert.Equal(t, []string{"myapp", "v1", "Database"}, []string{got.group, got.version, got.kind})
	assert.Equal(t, []string{"engine:string", "replicas:int32:min=1"}, got.fields)
	assert.Equal(t, []string{"ConfigMap", "Secret"}, got.owns)
	assert.False(t, got.namespaced)
	assert.Equal(t, "playbooks/db.yml", *got.options["playbook"])
	assert.True(t, got.write.DryRun)
	assert.True(t, got.Set("kind"))
	assert.True(t, got.Set("namespaced"))
	assert.False(t, got.Set("plural"), "a flag left at its default is not given")
}

// create watch and create decorator take the flags of an existing kind,
// and nothing of a new one.
func TestCreateWatchAndDecoratorFlags(t *testing.T) {
	var watch, decorator *createAPIOptions
	cmdtest.Execute(t, newCreateWatchCmd(cmdtest.Env(t), func(o *createAPIOptions) error { watch = o; return nil }),
		"--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault", "--name", "vault")
	assert.Equal(t, []string{"v1/Secret", "payments", "sync=vault", "vault"}, []string{watch.target, watch.namespace, watch.selector, watch.name})
	cmdtest.Execute(t, newCreateDecoratorCmd(cmdtest.Env(t), func(o *createAPIOptions) error { decorator = o; return nil }),
		"--target", "apps/v1/Deployment", "--owns", "Service")
	assert.Equal(t, "apps/v1/Deployment", decorator.target)
	assert.Equal(t, []string{"Service"}, decorator.owns)
	for _, cmd := range []*cobra.Command{newCreateWatchCmd(cmdtest.Env(t), nil), newCreateDecoratorCmd(cmdtest.Env(t), nil)} {
		assert.Nil(t, cmd.Flags().Lookup("field"), cmd.Use)
		assert.Nil(t, cmd.Flags().Lookup("group"), cmd.Use)
	}
}

// The run functions take options, not a command: each refuses what it must
// before it reads the project, with no cobra in the test.
func TestRunFunctionsCheckTheirOptions(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(cmdutil.Env) error
		want string
	}{
		{"create api --from with a model flag", func(env cmdutil.Env) error {
			return runCreateAPI(env, createAPIOptions{Given: cmdutil.GivenFlags(ctx, "from", "field"), from: "db.yaml", fields: []string{"a:string"}})
		}, "--from db.yaml cannot be combined with --field: put it in the file"},
		{"create webhook without --kind", func(env cmdutil.Env) error {
			return runCreateWebhook(env, createWebhookOptions{Given: cmdutil.GivenFlags(ctx), validate: true})
		}, "--kind is required: the kind to admit"},
		{"create webhook admitting nothing", func(env cmdutil.Env) error {
			return runCreateWebhook(env, createWebhookOptions{Given: cmdutil.GivenFlags(ctx, "kind"), kind: "Database"})
		}, "--validate, --default or both are required"},
		{"edit api without --kind", func(env cmdutil.Env) error {
			return runEditAPI(env, editAPIOptions{Given: cmdutil.GivenFlags(ctx)})
		}, "--kind is required: the kind to change"},
		{"delete api outside a project", func(env cmdutil.Env) error {
			return runDeleteAPI(env, deleteAPIOptions{Given: cmdutil.GivenFlags(ctx), name: "Database"})
		}, "opctl.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.run(cmdtest.Env(t)), tc.want)
		})
	}
}

// delete api takes what to remove as its argument.
func TestDeleteAPIArgument(t *testing.T) {
	var got *deleteAPIOptions
	cmdtest.Execute(t, newDeleteAPICmd(cmdtest.Env(t), func(o *deleteAPIOptions) error { got = o; return nil }), "Database", "--force")
	assert.Equal(t, "Database", got.name)
	assert.True(t, got.write.Force)
}
