package cmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shell completes styles, owned kinds (after those already given) and
// the project's own kinds and watches, and offers no files for them.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, seedInit...).code)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"styles", []string{"init", "--style", ""}, toyStyles().Names()},
		{"styles to migrate to", []string{"migrate", "--to", ""}, toyStyles().Names()},
		{"the project's kinds", []string{"edit", "api", "--kind", ""}, []string{"Database"}},
		{"the kinds to admit", []string{"create", "webhook", "--kind", ""}, []string{"Database"}},
		{"what delete api removes", []string{"delete", "api", ""}, []string{"Database"}},
		{"nothing after the one argument", []string{"delete", "api", "Database", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, directive := complete(t, dir, tt.args...)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, ":4", directive, "no file completion")
		})
	}
	t.Run("owned kinds after those given", func(t *testing.T) {
		got, directive := complete(t, dir, "create", "api", "--owns", "ConfigMap,")
		assert.Contains(t, got, "ConfigMap,Secret")
		assert.NotContains(t, got, "ConfigMap,ConfigMap")
		assert.Equal(t, ":6", directive, "no file completion and no space: more kinds may follow")
	})
	t.Run("outside a project, no kinds", func(t *testing.T) {
		got, _ := complete(t, t.TempDir(), "edit", "api", "--kind", "")
		assert.Empty(t, got)
	})
}

// complete returns what the shell would offer after args, and cobra's
// directive line.
func complete(t *testing.T, dir string, args ...string) ([]string, string) {
	t.Helper()
	r := run(t, dir, nil, false, append([]string{"__complete"}, args...)...)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var words []string
	for _, l := range lines[:len(lines)-1] {
		words = append(words, strings.SplitN(l, "\t", 2)[0])
	}
	return words, lines[len(lines)-1]
}
