package machinery

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A list of files is data: each path may name the data's fields, each file
// keeps its owner, and an executable one gets its mode.
func TestFiles(t *testing.T) {
	tree := NewTree()
	r := NewRenderer(tree, fstest.MapFS{
		"handler.py.tmpl": {Data: []byte("# {{.Kind}}\n")},
		"run.sh.tmpl":     {Data: []byte("echo {{.Kind}}\n")},
	}, nil)
	kind := struct{ Kind, Singular string }{"Database", "database"}
	r.Files(kind,
		UserFile("pkg/handlers_{{.Singular}}.py", "handler.py.tmpl"),
		GeneratedFile("hooks/{{.Singular}}.sh", "run.sh.tmpl").Executable(),
	)
	require.NoError(t, r.Err())
	handler, ok := tree.Get("pkg/handlers_database.py")
	require.True(t, ok)
	assert.Equal(t, "# Database\n", string(handler.Content))
	assert.Equal(t, UserOwned, handler.Owner)
	hook, ok := tree.Get("hooks/database.sh")
	require.True(t, ok)
	assert.Equal(t, Generated, hook.Owner)
	assert.EqualValues(t, 0o755, hook.Mode)

	r.Files(kind, UserFile("{{.Plural}}.py", "handler.py.tmpl"))
	assert.ErrorContains(t, r.Err(), "the path {{.Plural}}.py")
}
