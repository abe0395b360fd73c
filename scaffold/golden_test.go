package scaffold

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden trees under testdata/golden")

// mustFields parses --field specs for test projects.
func mustFields(t *testing.T, specs ...string) []Field {
	t.Helper()
	var out []Field
	for _, s := range specs {
		f, err := ParseField(s)
		require.NoError(t, err)
		out = append(out, f)
	}
	return out
}

// seedProject is the seed example of DESIGN.md in the given style.
func seedProject(t *testing.T, style string) Project {
	p := Project{Name: "db-operator", Domain: "example.com", Repo: "example.com/db-operator", Style: style, Versions: DefaultVersions()}
	p, err := p.AddAPI(FlagSource, API{
		Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true,
		Fields: mustFields(t, "engine:string:enum=mysql,postgres:required", "version:string",
			"storage:quantity", "replicas:int32:min=1:max=5:default=1"),
		Owns: []string{"ConfigMap"},
	})
	require.NoError(t, err)
	return p
}

// goldenCases are the project shapes rendered to testdata/golden.
func goldenCases(t *testing.T) map[string]Project {
	base := Project{Name: "demo", Domain: "example.com", Repo: "example.com/demo", Style: "go", Versions: DefaultVersions()}
	cluster, err := base.AddAPI(FlagSource, API{
		Group: "platform", Version: "v1alpha1", Kind: "Tenant", Plural: "tenants", Namespaced: false,
		Fields: mustFields(t, "owner:string:required:column", "quota:quantity:default=10Gi"),
	})
	require.NoError(t, err)
	two := seedProject(t, "go")
	two, err = two.AddAPI(FlagSource, API{
		Group: "cache", Version: "v2beta1", Kind: "Cache", Plural: "caches", Namespaced: true,
		Fields: mustFields(t, "size:int64:min=0:column", "ttl:duration:default=1h", "enabled:bool:default=true",
			"since:datetime", "tags:[]string", "labels:map[string]string", "backup.schedule:string:default=@daily",
			"backup.target.bucket:string:required:pattern=^[a-z0-9-]+$", "tier:string:minLength=2:maxLength=8"),
		Owns: []string{"Deployment", "Service", "Secret", "StatefulSet", "Job"},
	})
	require.NoError(t, err)
	cases := map[string]Project{
		"go-init":      base,
		"go-seed":      seedProject(t, "go"),
		"go-cluster":   cluster,
		"go-two-kinds": two,
	}
	// Every other style: the seed example and the two-kinds project.
	decorator := Project{Name: "web-services", Domain: "example.com", Style: "metacontroller-decorator", Versions: DefaultVersions(), ResyncSeconds: 60}
	decorator, err = decorator.AddDecorator(Decorator{Name: "deployments", Target: Target{APIVersion: "apps/v1", Kind: "Deployment", Resource: "deployments"},
		Selector: map[string]string{"app-type": "web"}, Owns: []string{"Service"}})
	require.NoError(t, err)
	cases["metacontroller-decorator-seed"] = decorator
	for _, style := range StyleNames() {
		if style == "go" || style == "metacontroller-decorator" {
			continue
		}
		cases[style+"-seed"] = withStyle(seedProject(t, "go"), style)
		cases[style+"-two-kinds"] = withStyle(two, style)
	}
	return cases
}

// withStyle switches a project's style; the go style's module path is
// dropped, as init only records it for go.
func withStyle(p Project, style string) Project {
	p.Style = style
	if style != "go" {
		p.Repo = ""
	}
	if style == "metacontroller" || style == "ansible" {
		p.ResyncSeconds = 60
	}
	return p
}

// archive renders a tree as txtar; the comment lists each file's mode and
// ownership, which matter as much as the bytes. Go checksum files are
// copied verbatim from templates/ and are large: they are kept as their
// SHA-256, which still changes with any byte.
func archive(tree *Tree) []byte {
	var a txtar.Archive
	var comment bytes.Buffer
	for _, f := range tree.Files() {
		owner := "generated"
		if f.Owner == UserOwned {
			owner = "user-owned"
		}
		fmt.Fprintf(&comment, "%s %o %s\n", f.Path, f.Mode, owner)
		data := f.Content
		if strings.HasSuffix(f.Path, ".sum") {
			data = []byte(fmt.Sprintf("sha256 %x\n", sha256.Sum256(f.Content)))
		}
		a.Files = append(a.Files, txtar.File{Name: f.Path, Data: data})
	}
	a.Comment = comment.Bytes()
	return txtar.Format(&a)
}

func TestGolden(t *testing.T) {
	for name, p := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			tree, err := Render(p)
			require.NoError(t, err)
			got := archive(tree)
			path := filepath.Join("..", "testdata", "golden", name+".txtar")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run `make golden` to create it")
			again, err := Render(p)
			require.NoError(t, err)
			assert.Equal(t, got, archive(again), "rendering is not deterministic")
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from the rendered tree; run `make golden` and review the diff\n%s", path, firstDiff(want, got))
			}
		})
	}
}

// firstDiff shows the first differing line, enough to find the template.
func firstDiff(want, got []byte) string {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl []byte
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if !bytes.Equal(wl, gl) {
			return fmt.Sprintf("line %d:\n  golden:   %q\n  rendered: %q", i+1, wl, gl)
		}
	}
	return ""
}

// User-owned files are written once, usually by init before any kind
// exists, and never re-rendered: they must not depend on the kinds, or
// init + create api would differ from scaffolding everything at once.
func TestUserOwnedFilesDoNotDependOnKinds(t *testing.T) {
	for name, p := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			full, err := Render(p)
			require.NoError(t, err)
			bare := p
			bare.APIs, bare.Decorators = nil, nil
			initial, err := Render(bare)
			require.NoError(t, err)
			for _, f := range initial.Files() {
				if f.Owner != UserOwned {
					continue
				}
				later, ok := full.Get(f.Path)
				require.True(t, ok, f.Path)
				assert.Equal(t, string(f.Content), string(later.Content), "%s depends on the kinds", f.Path)
			}
		})
	}
}
