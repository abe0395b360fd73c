package render

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
)

// plainStyle is a style of the engine's tests only: the engine's own
// manifests plus a user-owned Makefile and one generated file per kind,
// so that the engine is tested without any real style.
func plainStyle() scaffold.Style {
	templates := fstest.MapFS{
		"Makefile.tmpl": {Data: []byte("# {{.Name}}\nall:\n")},
		"kind.txt.tmpl": {Data: []byte("# {{header}}\n{{.Kind}}\n")},
	}
	return scaffold.Style{
		Name:    "plain",
		Summary: "a style for the engine's tests",
		Access: scaffold.Access{Parent: []string{"get", "list", "watch"}, Status: []string{"patch"},
			Child: func(api.ChildKind) []string { return []string{"create", "get", "list", "update", "watch"} }},
		Runtime: func(scaffold.Project) scaffold.Runtime {
			return scaffold.Runtime{Command: []string{"/manager"}, HealthPort: 8081, LivenessPath: "/healthz", ReadinessPath: "/readyz"}
		},
		Files: func(p scaffold.Project, t *machinery.Tree) error {
			r := NewRenderer(t, templates)
			r.File("Makefile", "Makefile.tmpl", machinery.UserOwned, p)
			for _, a := range p.APIs {
				r.File("kinds/"+a.Singular()+".txt", "kind.txt.tmpl", machinery.Generated, a)
			}
			return r.Err()
		},
		CI: func(p scaffold.Project) scaffold.CI {
			return scaffold.CI{Targets: []string{"all"}, DevImage: p.Versions.DevContainerBase}
		},
	}
}

// testStyles is the registry of the engine's tests: plain, and a style
// that decorates existing kinds.
func testStyles() scaffold.Styles {
	decorating := plainStyle()
	decorating.Name, decorating.ExistingKinds = "decorating", true
	return scaffold.Styles{plainStyle(), decorating}
}

func bareProject() scaffold.Project {
	return scaffold.Project{Name: "db-operator", Domain: "example.com", Style: "plain", Versions: pins.DefaultVersions()}
}

// seedProject is the seed example of DESIGN.md in the test style.
func seedProject(t *testing.T) scaffold.Project {
	p, err := bareProject().AddAPI(input.FlagSource, api.API{
		Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true,
		Fields: apitest.MustFields(t, "engine:string:enum=mysql,postgres:required", "version:string",
			"storage:quantity", "replicas:int32:min=1:max=5:default=1"),
		Owns: []string{"ConfigMap"},
	})
	require.NoError(t, err)
	return p
}

func render(t *testing.T, p scaffold.Project) *machinery.Tree {
	t.Helper()
	tree, err := Project(p, plainStyle())
	require.NoError(t, err)
	return tree
}

// A mode set on a path the tree lacks is the renderer's error, not an
// empty file added to the project.
func TestChmodOfAMissingFile(t *testing.T) {
	tree := machinery.NewTree()
	r := NewRenderer(tree, fstest.MapFS{"a.sh.tmpl": {Data: []byte("echo a\n")}})
	r.File("a.sh", "a.sh.tmpl", machinery.Generated, nil)
	r.Chmod("a.sh", 0o755)
	require.NoError(t, r.Err())
	f, _ := tree.Get("a.sh")
	require.Equal(t, 0o755, int(f.Mode))
	r.Chmod("b.sh", 0o755)
	require.EqualError(t, r.Err(), "internal error: chmod of b.sh, which is not in the tree")
	_, ok := tree.Get("b.sh")
	require.False(t, ok)
}
