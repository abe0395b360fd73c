package styletest

import (
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// CheckEditKeepsUserCode: on the seed, every file of the user's that the
// edit does not concern is changed, as a team's work changes them (the
// kind's reconcile code among them); opctl edit api then adds an optional
// field, a status field and an owned kind. No changed file is touched, the
// new kind's builder and the status starter are written, and the project's
// own tests (test, a command run in it: the conformance cases expect the
// starter's status) pass. It returns their output.
func CheckEditKeepsUserCode(t *testing.T, style scaffold.Style, test ...string) string {
	t.Helper()
	dir := Seed(t, style)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	edit := api.APIEdit{Owns: []string{"Secret"}}
	f, err := api.ParseField("backup.schedule:string")
	require.NoError(t, err)
	edit.Fields = []api.Field{f}
	sf, err := api.ParseStatusField("endpoint:string:column")
	require.NoError(t, err)
	edit.StatusFields = []api.Field{sf}
	edited, _, err := p.EditAPI(input.FlagSource, "Database", edit)
	require.NoError(t, err)
	before, err := render.Project(p, style)
	require.NoError(t, err)
	after, err := render.Project(edited, style)
	require.NoError(t, err)

	changed := map[string][]byte{}
	for _, was := range before.Files() {
		is, ok := after.Get(was.Path)
		if was.Owner != machinery.UserOwned || !ok || string(is.Content) != string(was.Content) {
			continue // a starter the edit concerns follows the project
		}
		if b, ok := withComment(t, filepath.Join(dir, was.Path)); ok {
			changed[was.Path] = b
		}
	}
	require.NotEmpty(t, changed)
	t.Logf("changed by the team: %s", strings.Join(slices.Sorted(maps.Keys(changed)), " "))
	MustRun(t, dir, "edit", "api", "--kind", "Database", "--field", "backup.schedule:string", "--owns", "Secret",
		"--status-field", "endpoint:string:column")
	for file, want := range changed {
		got, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s is the user's: edit api must not touch it", file)
	}
	var builders []string
	for _, f := range after.Files() {
		if _, ok := before.Get(f.Path); !ok && f.Owner == machinery.UserOwned {
			builders = append(builders, f.Path)
		}
	}
	require.Len(t, builders, 2, "the Secret's builder and the status starter, as files of the user's")
	for _, b := range builders {
		assert.FileExists(t, filepath.Join(dir, b))
	}
	return tools.ExecIn(t, dir, test[0], test[1:]...)
}

// withComment appends a comment to a file that takes one, as a user's
// change, and returns what the file then holds.
func withComment(t *testing.T, file string) ([]byte, bool) {
	comment := map[string]string{
		".go": "\n// Changed by the team.\n", ".py": "\n# Changed by the team.\n", ".sh": "\n# Changed by the team.\n",
		".jq": "\n# Changed by the team.\n", ".yml": "\n# Changed by the team.\n", ".yaml": "\n# Changed by the team.\n",
		".j2": "{# Changed by the team. #}\n", ".md": "\nChanged by the team.\n", ".txt": "\n# Changed by the team.\n",
		"Makefile": "\n# Changed by the team.\n", "Dockerfile": "\n# Changed by the team.\n",
	}[map[bool]string{true: path.Base(file), false: path.Ext(file)}[path.Ext(file) == ""]]
	if comment == "" {
		return nil, false
	}
	info, err := os.Stat(file)
	require.NoError(t, err)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	b = append(b, comment...)
	require.NoError(t, os.WriteFile(file, b, info.Mode()))
	return b, true
}
