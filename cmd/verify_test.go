//go:build generated

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest/tools"
)

// The seed in kopf and moved to shell-operator gives every conformance
// case the same outcome; a hook that labels its children otherwise does
// not, and verify names the cases; cases only one project has are refused.
func TestVerify(t *testing.T) {
	tools.RequireTools(t, "bash, jq and yq (Debian packages)", "bash", "jq", "yq")
	tools.Python(t) // the test modules are installed where the Makefile looks
	// verify runs the Python the project's Makefile picks, as make test does.
	t.Setenv("PYTHON", "")
	require.NoError(t, os.Unsetenv("PYTHON"))
	root := t.TempDir()
	realSeed(t, root, "db-kopf", "kopf")
	r := runReal(t, filepath.Join(root, "db-kopf"), "migrate", "--to", "shell-operator", "../db-shell")
	require.Equal(t, 0, r.code, r.stderr)

	r = runReal(t, root, "verify", "db-kopf", "db-shell")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^conformance case +kopf +shell-operator$`, r.stdout)
	assert.Regexp(t, `(?m)^database/sample.yaml +pass +pass$`, r.stdout)
	assert.Regexp(t, `(?m)^database/engine-not-in-enum.yaml +skip +skip$`, r.stdout)
	assert.Contains(t, r.stdout, "give every conformance case the same outcome")

	// The team changes what its ConfigMap holds.
	jq := filepath.Join(root, "db-shell", "hooks", "lib", "databases", "configmap.jq")
	b, err := os.ReadFile(jq)
	require.NoError(t, err)
	edited := strings.Replace(string(b), `"engine": .spec.engine,`, `"engine": "someone-else",`, 1)
	require.NotEqual(t, string(b), edited)
	require.NoError(t, os.WriteFile(jq, []byte(edited), 0o644))
	r = runReal(t, root, "verify", "db-kopf", "db-shell")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `(?m)^database/sample.yaml +pass +fail  <- differs$`, r.stdout)
	assert.Contains(t, r.stderr, "conformance cases do not give the same outcome")

	ours := filepath.Join(root, "db-kopf", "test", "conformance", "database", "ours.yaml")
	require.NoError(t, os.WriteFile(ours, []byte("object: {}\nrejected: ours\n"), 0o644))
	r = runReal(t, root, "verify", "db-kopf", "db-shell")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "conformance case test/conformance/database/ours.yaml is only in "+filepath.Join(root, "db-kopf"))
}
