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

// BuilderEdit is a team's change to the seed's ConfigMap builder, in a
// style's language: the file and each text replaced.
type BuilderEdit struct {
	Path  string
	Edits [][2]string
}

// Apply makes the change in the project in dir.
func (e BuilderEdit) Apply(t *testing.T, dir string) {
	t.Helper()
	file := filepath.Join(dir, e.Path)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for _, edit := range e.Edits {
		require.Contains(t, string(b), edit[0], "%s: the seed's builder", e.Path)
		b = []byte(strings.Replace(string(b), edit[0], edit[1], 1))
	}
	require.NoError(t, os.WriteFile(file, b, 0o644))
}

// teamsKey is the data key and label a team's builder adds to its child.
const teamsKey = "team: payments"

// CheckEditKeepsUserCode: on the seed, every file of the user's that the
// edit does not concern is changed, as a team's work changes them (the
// kind's reconcile code among them), and the ConfigMap's builder gets a
// data key and a label, teamsKey (builder), with the conformance cases
// expecting them; opctl edit api then adds an optional field, a status
// field and an owned kind. No changed file is touched, opctl's change is
// merged into the team's builder and cases beside the team's lines, the
// new kind's builder and the status starter are written, and the project's
// own tests (test, a command run in it: the conformance cases expect the
// starter's status and the team's label on the child) pass. It returns
// their output.
func CheckEditKeepsUserCode(t *testing.T, style scaffold.Style, builder BuilderEdit, test ...string) string {
	t.Helper()
	dir := Seed(t, style)
	cases := teamsChange(t, dir, builder)
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
	for _, file := range append(cases, builder.Path) {
		b, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		assert.Contains(t, string(b), "payments", "%s: the team's lines are kept", file)
		assert.Contains(t, string(b), "backup", "%s: opctl's change is merged", file)
	}
	return tools.ExecIn(t, dir, test[0], test[1:]...)
}

// teamsChange makes the team's change to the ConfigMap's builder and to
// every conformance case with children, whose ConfigMap then has
// teamsKey among its data and its labels; it returns the cases of the
// sample's spec (which edit api's new field reaches).
func teamsChange(t *testing.T, dir string, builder BuilderEdit) []string {
	t.Helper()
	builder.Apply(t, dir)
	cases, err := filepath.Glob(filepath.Join(dir, render.ConformanceDir, "database", "*.yaml"))
	require.NoError(t, err)
	var sampled []string
	for _, c := range cases {
		b, err := os.ReadFile(c)
		require.NoError(t, err)
		head, children, ok := strings.Cut(string(b), "\nchildren:\n")
		if !ok {
			continue
		}
		children = strings.Replace(children, "\n  data:\n", "\n  data:\n    "+teamsKey+"\n", 1)
		children = strings.Replace(children, "\n    labels:\n", "\n    labels:\n      "+teamsKey+"\n", 1)
		require.NoError(t, os.WriteFile(c, []byte(head+"\nchildren:\n"+children), 0o644))
		if object, _, _ := strings.Cut(head, "\nobserved:"); strings.Contains(object, "storage:") {
			rel, err := filepath.Rel(dir, c)
			require.NoError(t, err)
			sampled = append(sampled, filepath.ToSlash(rel))
		}
	}
	require.NotEmpty(t, sampled)
	return sampled
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

// PythonTeamsBuilder is the team's change to the seed's ConfigMap builder
// of the Python styles (kopf, metacontroller): teamsKey as a data key and
// a label.
var PythonTeamsBuilder = BuilderEdit{Path: "db_operator/database_configmap.py", Edits: [][2]string{
	{`"engine": spec["engine"],`, `"engine": spec["engine"],` + "\n        \"team\": \"payments\","},
	{`"metadata": {"name": database["metadata"]["name"] + "-configmap"},`,
		`"metadata": {"name": database["metadata"]["name"] + "-configmap", "labels": {"team": "payments"}},`},
}}

// PythonOmittingBuilder has the seed's ConfigMap builder of the Python
// styles make nothing for an object whose spec.version is OmittingVersion.
var PythonOmittingBuilder = BuilderEdit{Path: "db_operator/database_configmap.py", Edits: [][2]string{
	{"def config_map(database):\n", "def config_map(database):\n    if database.get(\"spec\", {}).get(\"version\") == \"" + OmittingVersion + "\":\n        return None\n"},
}}

// OmittingVersion is the spec.version for which a builder edited to omit
// its child (an omitting BuilderEdit) makes none.
const OmittingVersion = "none"
