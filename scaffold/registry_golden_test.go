package scaffold_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

var update = flag.Bool("update", false, "rewrite the golden trees under testdata/golden")

// goldenDir is testdata/golden at the repository's root.
var goldenDir = filepath.Join("..", "testdata", "golden")

// goldenCase is a project and the style it is rendered in.
type goldenCase struct {
	style   scaffold.Style
	project scaffold.Project
}

func (c goldenCase) render(t testing.TB) *machinery.Tree {
	t.Helper()
	tree, err := render.Project(c.project, c.style)
	require.NoError(t, err)
	return tree
}

// newProject is a project as init writes it in style s: the module path
// and resync period only where the style takes them.
func newProject(s scaffold.Style, name string) scaffold.Project {
	p := scaffold.Project{Name: name, Domain: "example.com", Version: scaffold.DefaultVersion, Style: s.Name, Versions: pins.DefaultVersions()}
	if s.ModulePath {
		p.Repo = "example.com/" + name
	}
	if s.Resync {
		p.ResyncSeconds = 60
	}
	return p
}

// seedProject is the seed example of DESIGN.md in style s.
func seedProject(t testing.TB, s scaffold.Style) scaffold.Project {
	p, err := newProject(s, "db-operator").AddAPI(input.FlagSource, api.API{
		Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true,
		Fields: apitest.MustFields(t, "engine:string:enum=mysql,postgres:required", "version:string",
			"storage:quantity", "replicas:int32:min=1:max=5:default=1"),
		Owns: []string{"ConfigMap"},
	})
	require.NoError(t, err)
	return p
}

// decoratorSeed is the seed example of a style that decorates existing kinds.
func decoratorSeed(t testing.TB, s scaffold.Style) scaffold.Project {
	p, err := newProject(s, "web-services").AddDecorator(input.FlagSource, scaffold.Decorator{Name: "deployments",
		Target:   scaffold.Target{APIVersion: "apps/v1", Kind: "Deployment", Resource: "deployments"},
		Selector: map[string]string{"app-type": "web"}, Owns: []string{"Service"}})
	require.NoError(t, err)
	return p
}

// secretWatch is the article's shell-operator scenario: Secrets labelled
// sync=vault in one namespace, handed to the user's code.
var secretWatch = scaffold.Watch{Name: "secrets", Target: scaffold.Target{APIVersion: "v1", Kind: "Secret", Resource: "secrets"},
	Namespace: "payments", Selector: map[string]string{"sync": "vault"}}

// goldenCases are the project shapes rendered to testdata/golden, for
// every style of the registry: the bare project init writes, and the seed
// example; for styles that watch existing kinds a watch of Secrets; for styles with their own kinds also a cluster-scoped kind and
// a second kind owning every child kind.
func goldenCases(t testing.TB) map[string]goldenCase {
	cases := map[string]goldenCase{}
	for _, s := range styles.All() {
		add := func(name string, p scaffold.Project) { cases[s.Name+"-"+name] = goldenCase{s, p} }
		add("init", newProject(s, "demo"))
		if s.ExistingKinds {
			add("seed", decoratorSeed(t, s))
			continue
		}
		add("seed", seedProject(t, s))
		if s.Watches {
			watch, err := newProject(s, "vault-sync").AddWatch(input.FlagSource, secretWatch)
			require.NoError(t, err)
			add("watch", watch)
		}
		if s.CannotScopeNamespace == "" {
			// The seed seeing its own namespace alone, with a watch there.
			scoped := seedProject(t, s)
			scoped.Scope = scaffold.ScopeNamespace
			if s.Watches {
				w := secretWatch
				w.Namespace = ""
				var err error
				scoped, err = scoped.AddWatch(input.FlagSource, w)
				require.NoError(t, err)
			}
			require.NoError(t, scoped.Validate(input.FlagSource, styles.All()))
			add("namespace", scoped)
		}
		cluster, err := newProject(s, "demo").AddAPI(input.FlagSource, api.API{
			Group: "platform", Version: "v1alpha1", Kind: "Tenant", Plural: "tenants", Namespaced: false,
			Fields: apitest.MustFields(t, "owner:string:required:column:immutable", "quota:quantity:default=10Gi:immutable"),
			Rules:  []api.Rule{{Rule: "self.owner != 'root'", Message: "root owns no tenant"}},
			Status: apitest.MustFields(t, "namespace:string:column"),
		})
		require.NoError(t, err)
		add("cluster", cluster)
		two, err := seedProject(t, s).AddAPI(input.FlagSource, api.API{
			Group: "cache", Version: "v2beta1", Kind: "Cache", Plural: "caches", Namespaced: true, ShortNames: []string{"kv", "cch"}, Categories: []string{"all", "storage"},
			Fields: apitest.MustFields(t, "size:int64:min=0:column", "ttl:duration:default=1h", "enabled:bool:default=true",
				"since:datetime", "type:string", "range.func:int32", "tags:[]string", "shards:[]int32", "surge:int-or-string:default=25%", "labels:map[string]string", "backup.schedule:string:default=@daily",
				"backup.target.bucket:string:required:pattern=^[a-z0-9-]+$", "tier:string:minLength=2:maxLength=8:rule=self != 'root'#tier root is reserved",
				"replicas:int32:min=1:default=2", "nodes[].host:string:required:key", "nodes[].weight:int32:default=1", "nodes[].labels:map[string]string", "backup.targets[].bucket:string:required"),
			Owns:          []string{"Deployment", "Service", "Secret", "StatefulSet", "Job"},
			RBAC:          []string{"pods/log:get", "deployments.apps/scale:get,patch"},
			ScaleReplicas: "replicas",
			Status:        apitest.MustFields(t, "endpoint:string", "hits:int64:min=0:column", "phase:string:enum=Warming,Serving", "lastCompaction:datetime", "usage:quantity", "shards:[]string"),
		})
		require.NoError(t, err)
		// Admission: the runtime's webhooks where it serves them, else
		// policies (which take further rules).
		two, err = two.AddAdmission(input.FlagSource, s, "Database", api.Admission{Validate: true, Default: s.Webhooks})
		require.NoError(t, err)
		cacheAdmission := api.Admission{Validate: true}
		if !s.Webhooks {
			cacheAdmission.Rules = []api.Rule{{Rule: "request.operation != 'UPDATE' || object.spec.size >= oldObject.spec.size", Message: "size cannot shrink"}}
		}
		two, err = two.AddAdmission(input.FlagSource, s, "Cache", cacheAdmission)
		require.NoError(t, err)
		add("two-kinds", two)
		if s.CannotConvert == "" {
			// Three versions, v2 removing a field without a default, v3
			// renaming one: the conversion webhook, v1 converting through
			// v2 (which keeps v1's version in an annotation) to v3.
			versions, _, err := seedProject(t, s).AddVersion(input.FlagSource, "Database", "v2",
				api.APIEdit{Fields: apitest.MustFields(t, "tier:string:default=standard"), RemoveFields: []string{"version"}})
			require.NoError(t, err)
			versions, _, err = versions.AddVersion(input.FlagSource, "Database", "v3",
				api.APIEdit{Renames: []api.Rename{{From: "engine", To: "flavor"}}})
			require.NoError(t, err)
			add("versions", versions)
		}
	}
	return cases
}

// archive renders a tree as txtar; the comment lists each file's mode and
// ownership, which matter as much as the bytes. Go checksum files are
// copied verbatim from templates/ and are large: they are kept as their
// SHA-256, which still changes with any byte.
func archive(tree *machinery.Tree) []byte {
	var a txtar.Archive
	var comment bytes.Buffer
	for _, f := range tree.Files() {
		owner := "generated"
		if f.Owner == machinery.UserOwned {
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
	t.Parallel()
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tree := c.render(t)
			// The templates write gofmt's layout: opctl does not run it.
			for _, f := range tree.Files() {
				if strings.HasSuffix(f.Path, ".go") {
					formatted, err := format.Source(f.Content)
					require.NoError(t, err, f.Path)
					assert.Equal(t, string(formatted), string(f.Content), "%s is not as gofmt writes it", f.Path)
				}
			}
			got := archive(tree)
			path := filepath.Join(goldenDir, name+".txtar")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run `make golden` to create it")
			assert.Equal(t, got, archive(c.render(t)), "rendering is not deterministic")
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from the rendered tree; run `make golden` and review the diff\n%s", path, goldenDiff(want, got))
			}
		})
	}
}

// goldenDiff is a unified diff of each file that differs between two
// golden trees, and the files only one of them has, cut at maxDiffLines.
func goldenDiff(want, got []byte) string {
	const maxDiffLines = 300
	files := func(b []byte) map[string]string {
		out := map[string]string{"(comment)": string(txtar.Parse(b).Comment)}
		for _, f := range txtar.Parse(b).Files {
			out[f.Name] = string(f.Data)
		}
		return out
	}
	w, g := files(want), files(got)
	names := map[string]bool{}
	for n := range w {
		names[n] = true
	}
	for n := range g {
		names[n] = true
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(names)) {
		wf, inW := w[name]
		gf, inG := g[name]
		switch {
		case !inG:
			out = append(out, "only in the golden: "+name)
		case !inW:
			out = append(out, "only in the rendered tree: "+name)
		case wf != gf:
			diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
				A: difflib.SplitLines(wf), B: difflib.SplitLines(gf),
				FromFile: "golden/" + name, ToFile: "rendered/" + name, Context: 2,
			})
			out = append(out, strings.Split(strings.TrimSuffix(diff, "\n"), "\n")...)
		}
	}
	if len(out) > maxDiffLines {
		out = append(out[:maxDiffLines], fmt.Sprintf("... %d more lines", len(out)-maxDiffLines))
	}
	return strings.Join(out, "\n")
}

// Files of the user's are written by init, before any kind exists, and
// follow the project while the user has not changed them (a README listing
// the files to edit, a kind's starter builders): init, then the kinds added,
// writes exactly what scaffolding everything at once does.
func TestUntouchedUserFilesFollowTheKinds(t *testing.T) {
	t.Parallel()
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bare := c
			bare.project.APIs, bare.project.Decorators = nil, nil
			write := func(tree *machinery.Tree) {
				recorded := machinery.Recorded{}
				if p, err := scaffold.LoadProject(dir, styles.All()); err == nil {
					recorded = p.Recorded()
				}
				changes, err := machinery.Plan(dir, tree, recorded, false)
				require.NoError(t, err)
				require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
			}
			write(bare.render(t))
			full := c.render(t)
			write(full)
			for _, f := range full.Files() {
				b, err := os.ReadFile(filepath.Join(dir, f.Path))
				require.NoError(t, err)
				assert.Equal(t, string(f.Content), string(b), "%s: init, then the kinds, differs from everything at once", f.Path)
			}
		})
	}
}

// The CRD is the contract between styles: every style must emit the same
// bytes for the same API.
func TestCRDIdenticalInEveryStyle(t *testing.T) {
	t.Parallel()
	var want []byte
	for _, style := range styles.All() {
		if style.ExistingKinds {
			continue // no CRD
		}
		t.Run(style.Name, func(t *testing.T) {
			p := seedProject(t, style)
			f, ok := goldenCase{style, p}.render(t).Get(render.CRDPath(p, p.APIs[0]))
			require.True(t, ok, "no CRD at %s", render.CRDPath(p, p.APIs[0]))
			if want == nil {
				want = f.Content
			}
			assert.Equal(t, string(want), string(f.Content))
		})
	}
}
