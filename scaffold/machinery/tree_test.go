package machinery

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanKeptWith: a file of the user's that follows the project is kept
// while a file it is kept with is the user's as changed, directly or
// through another such file; a file that Expects is then not created,
// while code is.
func TestPlanKeptWith(t *testing.T) {
	const wrote, now = "as opctl wrote it\n", "as opctl writes it now\n"
	const typesNow = "package v1\n\ntype T struct{ A int }\n"
	for _, tc := range []struct {
		name        string
		typesOnDisk string
		want        map[string]Action
	}{
		{"types as opctl wrote them: all follow", wrote,
			map[string]Action{"types.go": ActionUpdate, "builder.go": ActionUpdate, "case.yaml": ActionUpdate, "new-case.yaml": ActionCreate, "new-code.go": ActionCreate}},
		{"types changed by the team: the code and cases reading them are kept", "package v1\n\ntype T struct{ A, B int }\n",
			map[string]Action{"types.go": ActionKeep, "builder.go": ActionKeep, "case.yaml": ActionKeep, "new-code.go": ActionCreate}},
		{"only comments and layout of the types changed: all follow", "// Package v1 is ours.\npackage v1\n\n// T is ours.\ntype T struct {\n\tA int // a\n}\n",
			map[string]Action{"types.go": ActionKeep, "builder.go": ActionUpdate, "case.yaml": ActionUpdate, "new-case.yaml": ActionCreate, "new-code.go": ActionCreate}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			onDisk := map[string]string{"types.go": tc.typesOnDisk, "builder.go": wrote, "case.yaml": wrote}
			recorded := Recorded{Starters: map[string]string{}}
			for path, content := range onDisk {
				require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
				recorded.Starters[path] = ContentHash([]byte(wrote))
			}
			tree := NewTree()
			for _, f := range []File{
				{Path: "types.go", Merge: true},
				{Path: "builder.go", KeptWith: []string{"types.go"}},
				{Path: "case.yaml", KeptWith: []string{"builder.go"}, Expects: true},
				{Path: "new-case.yaml", KeptWith: []string{"builder.go"}, Expects: true},
				{Path: "new-code.go", KeptWith: []string{"types.go"}},
			} {
				f.Content, f.Owner = []byte(now), UserOwned
				if f.Path == "types.go" {
					f.Content = []byte(typesNow)
				}
				require.NoError(t, tree.Add(f))
			}
			changes, err := Plan(dir, tree, recorded, false)
			require.NoError(t, err)
			got := map[string]Action{}
			for _, c := range changes {
				got[c.Path] = c.Action
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSameCode(t *testing.T) {
	const code = "package v1\n\n// T is a kind.\ntype T struct {\n\tA int `json:\"a\"`\n}\n"
	for _, tc := range []struct {
		name, path, a, b string
		want             bool
	}{
		{"comments added", "t.go", code, "// Package v1 is ours.\npackage v1\n\n// T is ours.\ntype T struct {\n\tA int `json:\"a\"` // a\n}\n", true},
		{"on one line", "t.go", code, "package v1\ntype T struct{ A int `json:\"a\"` }\n", true},
		{"a field added", "t.go", code, "package v1\ntype T struct {\n\tA int `json:\"a\"`\n\tB int\n}\n", false},
		{"a tag changed", "t.go", code, "package v1\ntype T struct {\n\tA int `json:\"b\"`\n}\n", false},
		{"not Go", "t.go", code, "package v1\ntype T struct { \"\n", false},
		{"other files: bytes", "t.yaml", "a: 1\n", "a: 1 # one\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sameCode(tc.path, []byte(tc.a), []byte(tc.b)))
		})
	}
}
