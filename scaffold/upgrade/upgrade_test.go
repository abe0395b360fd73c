package upgrade

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// fakeBases are bases by path.
type fakeBases map[string][]byte

func (f fakeBases) Base(path, _ string) ([]byte, bool, error) {
	b, ok := f[path]
	return b, ok, nil
}

func (f fakeBases) Scaffolded() ([]string, error) { return nil, nil }

// kopfSeed writes the seed project in the kopf style into a new directory,
// as this opctl writes it, and returns it as loaded from there.
func kopfSeed(t *testing.T) (string, scaffold.Project, scaffold.Style) {
	t.Helper()
	style, err := styles.All().Lookup("kopf")
	require.NoError(t, err)
	fields := []api.Field{}
	for _, spec := range []string{"engine:string:enum=mysql,postgres:required", "replicas:int32:min=1:max=5:default=1"} {
		f, err := api.ParseField(spec)
		require.NoError(t, err)
		fields = append(fields, f)
	}
	p, err := scaffold.Project{Name: "db-operator", Domain: "example.com", Version: scaffold.DefaultVersion, Style: "kopf",
		Versions: pins.DefaultVersions(), ResyncSeconds: 60}.AddAPI(input.FlagSource, api.API{
		Group: "myapp", Version: "v1", Kind: "Database", Plural: "databases", Namespaced: true, Fields: fields, Owns: []string{"ConfigMap"}})
	require.NoError(t, err)
	tree, err := render.Project(p, style)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, f := range tree.Files() {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.Content, f.Mode))
	}
	p, err = scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	return dir, p, style
}

// aged is what an earlier opctl wrote at path: this opctl's file with its
// first line otherwise. The project records it as written there.
func aged(t *testing.T, dir string, p *scaffold.Project, path string) (older, current string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, path))
	require.NoError(t, err)
	current = string(b)
	_, rest, _ := strings.Cut(current, "\n")
	older = "# as an earlier opctl wrote it\n" + rest
	p.Starters[path] = machinery.ContentHash([]byte(older))
	return older, current
}

func write(t *testing.T, dir, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644))
}

func change(t *testing.T, plan Plan, path string) machinery.Change {
	t.Helper()
	for _, c := range plan.Changes {
		if c.Path == path {
			return c
		}
	}
	t.Fatalf("no change of %s planned", path)
	return machinery.Change{}
}

func TestPrepare(t *testing.T) {
	dir, p, style := kopfSeed(t)
	bases := fakeBases{}

	// Changed by the user away from what opctl changed: merged.
	older, current := aged(t, dir, &p, "Makefile")
	write(t, dir, "Makefile", older+"# our target\n")
	bases["Makefile"] = []byte(older)
	// Changed by the user where opctl changed: a conflict.
	olderReadme, _ := aged(t, dir, &p, "README.md")
	write(t, dir, "README.md", "# Our operator\n"+olderReadme[strings.Index(olderReadme, "\n")+1:])
	bases["README.md"] = []byte(olderReadme)
	// Changed by the user, its base lost: merged two ways.
	olderDockerfile, _ := aged(t, dir, &p, "Dockerfile")
	write(t, dir, "Dockerfile", olderDockerfile+"# ours\n")
	// Not changed by the user: it follows this opctl.
	olderIgnore, currentIgnore := aged(t, dir, &p, ".dockerignore")
	write(t, dir, ".dockerignore", olderIgnore)
	// An earlier opctl's starters this one no longer writes.
	write(t, dir, "gone.py", "pass\n")
	p.Starters["gone.py"] = machinery.ContentHash([]byte("pass\n"))
	write(t, dir, "kept.py", "pass  # ours\n")
	p.Starters["kept.py"] = machinery.ContentHash([]byte("pass\n"))
	// Earlier pins, one with an upgrade note.
	p.Versions.Kopf = ">=1.40,<2"
	p.Versions.PythonImage = "python:3.13-slim-bookworm"

	plan, err := Prepare(dir, p, style, bases, false)
	require.NoError(t, err)

	makefile := change(t, plan, "Makefile")
	assert.Equal(t, machinery.ActionMerge, makefile.Action)
	assert.Equal(t, current+"# our target\n", string(makefile.File.Content), "opctl's change and the user's, both")
	assert.Equal(t, current, string(makefile.Rendered), "the next base is what opctl writes now")

	readme := change(t, plan, "README.md")
	assert.Equal(t, machinery.ActionMergeConflict, readme.Action)
	assert.Contains(t, string(readme.File.Content), "<<<<<<< yours\n# Our operator\n||||||| opctl before\n# as an earlier opctl wrote it\n=======\n")

	dockerfile := change(t, plan, "Dockerfile")
	assert.Equal(t, machinery.ActionMergeConflict, dockerfile.Action)
	assert.Equal(t, []string{"Dockerfile"}, plan.Unbased)
	assert.Equal(t, []string{"Dockerfile", "README.md"}, slices.Sorted(slices.Values(plan.Conflicts())))

	ignore := change(t, plan, ".dockerignore")
	assert.Equal(t, machinery.ActionUpdate, ignore.Action)
	assert.Equal(t, currentIgnore, string(ignore.File.Content))

	assert.Equal(t, machinery.ActionRemove, change(t, plan, "gone.py").Action)
	assert.Equal(t, machinery.ActionLeave, change(t, plan, "kept.py").Action)

	assert.Contains(t, plan.Pins, Pin{Key: "kopf", From: ">=1.40,<2", To: pins.DefaultVersions().Kopf})
	image := slices.IndexFunc(plan.Pins, func(p Pin) bool { return p.Key == "pythonImage" })
	require.GreaterOrEqual(t, image, 0)
	require.Len(t, plan.Pins[image].Notes, 1)
	assert.Contains(t, plan.Pins[image].Notes[0], "Debian 13")
	assert.Equal(t, pins.DefaultVersions(), plan.Project.Versions)

	for _, c := range plan.Changes {
		if c.Path != "opctl.yaml" && c.Path != "Makefile" && c.Path != "README.md" && c.Path != "Dockerfile" &&
			c.Path != ".dockerignore" && c.Path != "gone.py" && c.Path != "kept.py" {
			assert.Equal(t, machinery.ActionUnchanged, c.Action, "%s", c.Path)
		}
	}
}

// TestProjectBases: the base kept in .opctl/base first; else the newest
// commit of the file holding what a committed opctl.yaml recorded.
func TestProjectBases(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git not found: install git (the bases of projects made before .opctl/base are in their history)")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	const pristine, edited, later = "opctl wrote this\n", "opctl wrote this\nand we this\n", "we changed it again\n"
	write(t, dir, "Makefile", pristine)
	write(t, dir, scaffold.ProjectFileName, "starters:\n  Makefile: "+machinery.ContentHash([]byte(pristine))+"\n")
	git("add", "-A")
	git("commit", "-qm", "scaffold")
	write(t, dir, "Makefile", edited)
	// A later opctl.yaml records another hash (a render the file never got).
	write(t, dir, scaffold.ProjectFileName, "starters:\n  Makefile: "+machinery.ContentHash([]byte("never written\n"))+"\n")
	git("commit", "-qam", "ours")
	write(t, dir, "Makefile", later)
	git("commit", "-qam", "ours again")

	bases := NewProjectBases(dir)
	got, ok, err := bases.Base("Makefile", machinery.ContentHash([]byte("never written\n")))
	require.NoError(t, err)
	require.True(t, ok, "the scaffold commit holds the base")
	assert.Equal(t, pristine, string(got))

	got, ok, err = bases.Base("Makefile", "")
	require.NoError(t, err)
	require.True(t, ok, "with no hash recorded, the commit that added opctl.yaml holds the base")
	assert.Equal(t, pristine, string(got))

	_, ok, err = bases.Base("README.md", "0000")
	require.NoError(t, err)
	assert.False(t, ok, "a file never committed as opctl wrote it has no base")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, machinery.BaseDir), 0o755))
	write(t, dir, filepath.Join(machinery.BaseDir, "Makefile"), "kept base\n")
	got, ok, err = bases.Base("Makefile", "")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "kept base\n", string(got), ".opctl/base comes first")
}

// TestPrepareKeepsTeamsFormerStarters: a file the project records as the
// team's (an earlier opctl's starter) that this opctl generates, changed
// by the team: merged and still the team's, with or without --force; one
// the team never changed becomes opctl's.
func TestPrepareKeepsTeamsFormerStarters(t *testing.T) {
	const changed, unchanged = "db_operator/operator.py", "db_operator/reconcile.py"
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			dir, p, style := kopfSeed(t)
			bases := fakeBases{}
			for _, path := range []string{changed, unchanged} {
				delete(p.Generated, path)
				older, _ := aged(t, dir, &p, path)
				bases[path] = []byte(older)
				write(t, dir, path, older)
			}
			b, err := os.ReadFile(filepath.Join(dir, changed))
			require.NoError(t, err)
			write(t, dir, changed, string(b)+"# the team's line\n")

			plan, err := Prepare(dir, p, style, bases, force)
			require.NoError(t, err)
			c := change(t, plan, changed)
			assert.Equal(t, machinery.ActionMerge, c.Action)
			assert.Equal(t, machinery.UserOwned, c.File.Owner, "still the team's")
			assert.True(t, strings.HasSuffix(string(c.File.Content), "# the team's line\n"), "the team's line kept:\n%s", c.File.Content)
			assert.Equal(t, []string{changed}, plan.StillTheirs)
			assert.Contains(t, string(change(t, plan, scaffold.LockFileName).File.Content), "starters:")
			lock := string(change(t, plan, scaffold.LockFileName).File.Content)
			assert.Less(t, strings.Index(lock, "starters:"), strings.Index(lock, changed), "the lock records it among the team's")

			u := change(t, plan, unchanged)
			assert.Equal(t, machinery.ActionUpdate, u.Action)
			assert.Equal(t, machinery.Generated, u.File.Owner, "never changed: opctl's now")
		})
	}
}
