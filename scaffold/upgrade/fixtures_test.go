//go:build generated

package upgrade_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// TestUpgradeEarlierProjects: the seed project as earlier opctls wrote it
// (testdata/upgrade/<commit>, from hack/upgrade-fixtures/make.sh: every
// style of four opctls that landed), committed, then changed by its team
// in the Makefile, the README, the workflow and the kind's code (a file of
// the team's in that opctl, which this one may generate), and committed
// again. opctl upgrade brings it to what this opctl writes, with each of
// the team's lines where they put it or in a listed conflict; once the
// conflicts are resolved, the upgraded project passes its own tests.
func TestUpgradeEarlierProjects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the upgraded projects' own tests")
	}
	tools.RequireTools(t, "git, whose history holds what the earlier opctl wrote", "git")
	python := func(t *testing.T, dir string) {
		assert.Regexp(t, `(?m)^\d+ passed`, tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+tools.Python(t)))
	}
	for _, c := range []struct {
		style string
		// code are the kind's code files, the first the project has the
		// team's.
		code []string
		test func(t *testing.T, dir string)
	}{
		{"go", []string{"internal/controller/database_controller.go"}, func(t *testing.T, dir string) {
			for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
				tools.ExecIn(t, dir, "go", args...)
			}
		}},
		{"kopf", []string{"db_operator/handlers_database.py"}, python},
		{"metacontroller", []string{"db_operator/sync.py", "db_operator/database_configmap.py"}, python},
		{"metacontroller-decorator", []string{"db_operator/sync.py"}, python},
		{"shell-operator", []string{"hooks/lib/reconcile.jq", "hooks/lib/databases/configmap.jq"}, func(t *testing.T, dir string) {
			tools.RequireTools(t, "jq, bats and shellcheck (apt-get install jq bats shellcheck)", "jq", "shellcheck")
			assert.Regexp(t, `\d+ passed, 0 failed`, tools.ExecIn(t, dir, "make", "test", "lint"))
		}},
		{"ansible", []string{"roles/database/tasks/main.yml"}, func(t *testing.T, dir string) {
			tools.RequireTools(t, "ansible and ansible-lint (apt-get install ansible ansible-lint)", "ansible-playbook", "ansible-lint")
			assert.Contains(t, tools.ExecIn(t, dir, "make", "test"), "All assertions passed")
		}},
	} {
		fixtures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "upgrade", "*", c.style+".txtar"))
		require.NoError(t, err)
		require.NotEmpty(t, fixtures, "no fixture of %s: hack/upgrade-fixtures/make.sh writes them", c.style)
		for _, path := range fixtures {
			t.Run(filepath.Base(filepath.Dir(path))+"/"+c.style, func(t *testing.T) {
				t.Parallel()
				upgradeEarlier(t, path, c.code, c.test)
			})
		}
	}
}

// teamsCode is the first of code that the project in dir has as the
// team's (teamsFiles).
func teamsCode(t *testing.T, dir string, p scaffold.Project, code []string) string {
	t.Helper()
	theirs := teamsFiles(t, dir, p)
	for _, path := range code {
		if slices.Contains(theirs, path) {
			return path
		}
	}
	t.Fatalf("the project has none of %v as the team's", code)
	return ""
}

// upgradeEarlier is TestUpgradeEarlierProjects for one fixture.
func upgradeEarlier(t *testing.T, path string, candidates []string, test func(t *testing.T, dir string)) {
	dir := t.TempDir()
	fixture(t, dir, path)
	git := func(args ...string) {
		t.Helper()
		tools.ExecIn(t, dir, "git", append([]string{"-c", "user.email=team@example.com", "-c", "user.name=team"}, args...)...)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "scaffolded by an earlier opctl")

	// What this opctl writes for the project, pins and all.
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	code := teamsCode(t, dir, p, candidates)
	style, err := styles.All().Lookup(p.Style)
	require.NoError(t, err)
	p.Versions = pins.DefaultVersions()
	now, err := render.Project(p, style)
	require.NoError(t, err)

	// The team's lines, each where the earlier file and this
	// opctl's agree for a while around it; in a file this opctl
	// rewrote whole, after its first line, where they conflict.
	// same: files the earlier opctl wrote as this one does (no merge).
	ours, conflicting, same := map[string]string{}, map[string]bool{}, map[string]bool{}
	for _, path := range []string{"Makefile", "README.md", ".github/workflows/test.yml", code} {
		old, err := os.ReadFile(filepath.Join(dir, path))
		if errors.Is(err, fs.ErrNotExist) && path == ".github/workflows/test.yml" {
			continue // an opctl before the workflow's
		}
		require.NoError(t, err)
		f, ok := now.Get(path)
		require.True(t, ok, "this opctl writes no %s", path)
		line := teamLine(path)
		same[path] = string(old) == string(f.Content)
		lines := strings.SplitAfter(string(old), "\n")
		at, shared := anchor(lines, strings.SplitAfter(string(f.Content), "\n"))
		if shared < 3 {
			at, conflicting[path] = 0, true
		}
		changed := strings.Join(lines[:at+1], "") + line + strings.Join(lines[at+1:], "")
		require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(changed), 0o644))
		ours[path] = line
	}
	git("commit", "-qam", "the team's changes")

	r := styletest.Run(t, dir, "upgrade")
	conflicts := 0
	for path := range ours {
		switch {
		case strings.Contains(r.Stdout, "conflict  "+path+" "):
			// Only where this opctl rewrote the file around the line.
			assert.True(t, conflicting[path], "%s: a conflict where both sides kept the lines around the team's", path)
			assert.Contains(t, r.Stderr, path, "the upgrade names %s as in conflict", path)
			resolve(t, dir, path)
			conflicts++
		case same[path]:
			assert.NotContains(t, r.Stdout, "merge     "+path+" ", "%s: the earlier opctl wrote it as this one does: nothing to merge", path)
		default:
			assert.Contains(t, r.Stdout, "merge     "+path+" ", "the upgrade lists the merge of %s", path)
		}
	}
	if conflicts == 0 {
		require.Equal(t, 0, r.Code, "%s\n%s", r.Stdout, r.Stderr)
	} else {
		require.Equal(t, 1, r.Code, "conflicts exit 1: %s\n%s", r.Stdout, r.Stderr)
	}
	// Files an opctl that recorded none of the user's wrote, and this one
	// does not: named, for the team to remove.
	if _, stale, ok := strings.Cut(r.Stdout, staleNote); ok {
		stale, _, _ = strings.Cut(stale, "\n")
		for _, f := range strings.Split(stale, ", ") {
			require.NoError(t, os.Remove(filepath.Join(dir, f)))
		}
	}

	// What this opctl writes for the upgraded project (whose record of the
	// team's files the upgrade wrote). The team's code stays theirs, though
	// this opctl may generate it.
	upgraded, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	assert.NotEmpty(t, upgraded.Starters[code], "%s is the team's", code)
	now, err = render.Project(upgraded, style)
	require.NoError(t, err)
	for _, f := range now.Files() {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		require.NoError(t, err)
		line, theirs := ours[f.Path]
		if !theirs {
			assert.Equal(t, string(f.Content), string(got), "%s is what this opctl writes", f.Path)
			continue
		}
		assert.Contains(t, string(got), line, "%s keeps the team's line", f.Path)
		assert.Equal(t, string(f.Content), strings.Replace(string(got), line, "", 1), "%s is what this opctl writes, and the team's line", f.Path)
		if !same[f.Path] {
			base, ok, err := machinery.ReadBase(dir, f.Path)
			require.NoError(t, err)
			assert.True(t, ok && string(base) == string(f.Content), "the next base of %s is what this opctl writes", f.Path)
		}
	}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		switch {
		case err != nil:
			return err
		case d.IsDir() && (rel == ".git" || rel == filepath.FromSlash(machinery.BaseDir)):
			return filepath.SkipDir
		case !d.IsDir():
			_, ok := now.Get(filepath.ToSlash(rel))
			assert.True(t, ok, "%s: the earlier opctl's file is left, but this opctl writes none there", rel)
		}
		return nil
	}))
	test(t, dir)
}

// staleNote starts the upgrade's line naming files an earlier opctl wrote
// that this one does not.
const staleNote = "left as they were, in the commit that added opctl.yaml and unchanged since, but written by no opctl now (remove the earlier opctl's): "

// fixture writes a txtar project into dir; every file opctl recorded has
// its recorded hash (the fixture is what opctl wrote, byte for byte).
func fixture(t *testing.T, dir, path string) {
	t.Helper()
	a, err := txtar.ParseFile(path)
	require.NoError(t, err)
	for _, f := range a.Files {
		target := filepath.Join(dir, filepath.FromSlash(f.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.Name, ".sh") {
			mode = 0o755
		}
		require.NoError(t, os.WriteFile(target, f.Data, mode))
	}
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for _, recorded := range []map[string]string{p.Generated, p.Starters} {
		for file, want := range recorded {
			b, err := os.ReadFile(filepath.Join(dir, file))
			require.NoError(t, err)
			require.Equal(t, want, machinery.ContentHash(b), "%s: %s is not as the earlier opctl wrote it", path, file)
		}
	}
}

// teamLine is a line of the team's, as a comment where the file has them.
func teamLine(path string) string {
	const text = "the payments team's note: keep this line"
	switch {
	case strings.HasSuffix(path, ".go"):
		return "// " + text + "\n"
	case strings.HasSuffix(path, ".md"):
		return text + "\n"
	}
	return "# " + text + "\n"
}

// anchor is the line after which the team adds theirs, and how many lines
// around it the earlier file and this opctl's share: the middle of the
// longest run of lines they share, so that neither side changes the lines
// around it.
func anchor(old, now []string) (at, shared int) {
	for i := range old {
		for j := range now {
			k := 0
			for i+k < len(old) && j+k < len(now) && old[i+k] == now[j+k] {
				k++
			}
			if k > shared {
				shared, at = k, i
			}
		}
	}
	return at + shared/2, shared
}

// resolve resolves the conflicts of a file as its team would: this opctl's
// lines, then the team's own (those of their side the base had not).
func resolve(t *testing.T, dir, path string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, path))
	require.NoError(t, err)
	conflict := regexp.MustCompile(`(?s)<<<<<<< yours\n(.*?)\|\|\|\|\|\|\| opctl before\n(.*?)=======\n(.*?)>>>>>>> opctl now\n`)
	require.True(t, conflict.Match(b), "%s has no conflict", path)
	resolved := conflict.ReplaceAllFunc(b, func(m []byte) []byte {
		parts := conflict.FindSubmatch(m)
		out := string(parts[3])
		for _, l := range strings.SplitAfter(string(parts[1]), "\n") {
			if !strings.Contains(string(parts[2]), l) {
				out += l
			}
		}
		return []byte(out)
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, path), resolved, 0o644))
}

// TestUpgradeKeepsRandomEdits: random lines of a team's, added to and
// changed in random files of theirs of every earlier opctl's project in
// every style, then upgraded, with and without --force: each line is in
// the file, or in the team's side of a conflict the upgrade lists.
func TestUpgradeKeepsRandomEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("upgrades projects many times")
	}
	tools.RequireTools(t, "git, whose history holds what the earlier opctl wrote", "git")
	fixtures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "upgrade", "*", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, fixtures)
	for _, path := range fixtures {
		for _, force := range []bool{false, true} {
			for seed := range uint64(2) {
				name := fmt.Sprintf("%s/%s/force=%v/%d", filepath.Base(filepath.Dir(path)), strings.TrimSuffix(filepath.Base(path), ".txtar"), force, seed)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					randomEdits(t, path, force, rand.New(rand.NewPCG(seed, 34)))
				})
			}
		}
	}
}

// randomEdits is TestUpgradeKeepsRandomEdits for one fixture and seed.
func randomEdits(t *testing.T, path string, force bool, r *rand.Rand) {
	dir := t.TempDir()
	fixture(t, dir, path)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	git := func(args ...string) {
		tools.ExecIn(t, dir, "git", append([]string{"-c", "user.email=team@example.com", "-c", "user.name=team"}, args...)...)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "scaffolded by an earlier opctl")
	theirs := teamsFiles(t, dir, p)
	added := map[string][]string{}
	for range 5 {
		path := theirs[r.IntN(len(theirs))]
		b, err := os.ReadFile(filepath.Join(dir, path))
		require.NoError(t, err)
		lines := strings.SplitAfter(string(b), "\n")
		for range 1 + r.IntN(3) {
			line := fmt.Sprintf("team line %d\n", r.Int())
			at := r.IntN(len(lines) + 1)
			// A line of opctl's replaced, or a line added.
			replace := at < len(lines) && r.IntN(2) == 0 && strings.HasSuffix(lines[at], "\n") && !strings.HasPrefix(lines[at], "team line")
			if replace {
				lines[at] = line
			} else {
				lines = append(lines[:at], append([]string{line}, lines[at:]...)...)
			}
			added[path] = append(added[path], line)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(strings.Join(lines, "")), 0o644))
	}
	git("commit", "-qam", "the team's changes")
	args := []string{"upgrade"}
	if force {
		args = append(args, "--force")
	}
	res := styletest.Run(t, dir, args...)
	for path, lines := range added {
		b, err := os.ReadFile(filepath.Join(dir, path))
		if errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the team's file is gone", path)
			continue
		}
		require.NoError(t, err)
		plain, yours := conflictSides(string(b))
		for _, l := range lines {
			inConflict := strings.Contains(yours, l) && strings.Contains(res.Stderr, path)
			assert.True(t, strings.Contains(plain, l) || inConflict, "%s: the team's line %q is lost\n%s\n%s", path, l, res.Stdout, res.Stderr)
		}
	}
}

// teamsFiles are the files of the project in dir that are the team's:
// recorded among its starters, or, by an opctl that recorded none, those
// it wrote unmarked as generated.
func teamsFiles(t *testing.T, dir string, p scaffold.Project) []string {
	t.Helper()
	if len(p.Starters) > 0 {
		return slices.Sorted(maps.Keys(p.Starters))
	}
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil:
			return err
		case d.IsDir() && rel == ".git":
			return filepath.SkipDir
		case d.IsDir() || p.Generated[rel] != "" || rel == scaffold.ProjectFileName:
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && !strings.Contains(string(b), "DO NOT EDIT") {
			out = append(out, rel)
		}
		return err
	}))
	return out
}

// conflictSides splits a merged file into its lines outside conflicts and
// those of the team's sides.
func conflictSides(merged string) (plain, yours string) {
	var out, mine strings.Builder
	section := &out
	for _, l := range strings.SplitAfter(merged, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<< "):
			section = &mine
		case strings.HasPrefix(l, "||||||| "), strings.HasPrefix(l, "======="):
			section = &strings.Builder{}
		case strings.HasPrefix(l, ">>>>>>> "):
			section = &out
		default:
			section.WriteString(l)
		}
	}
	return out.String(), mine.String()
}
