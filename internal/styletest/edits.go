package styletest

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/machinery"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// EditSequences is a property test of a style: random sequences of create
// api, delete api, generate, hand edits of generated and of the user's
// files, with and without --force, one sequence per seed. After every step
// a hand edit of a user's file is still there; a command meeting a
// hand-edited generated file without --force fails and changes nothing;
// with --force it rewrites only generated files. After every command that
// ran, the project, edits and all, passes check (a shell command run in
// it), once the files delete api reported as left to the user (changed
// files of a deleted kind) are removed as it says.
func EditSequences(t *testing.T, style scaffold.Style, check string, seeds uint64) {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			editSequence(t, rand.New(rand.NewPCG(seed, 0)), style, check)
		})
	}
}

func editSequence(t *testing.T, rng *rand.Rand, style scaffold.Style, check string) {
	dir := t.TempDir()
	init := []string{"init", "--style", style.Name, "--domain", "example.com", "--name", "demo"}
	if style.ModulePath {
		init = append(init, "--repo", "example.com/demo")
	}
	MustRun(t, dir, append(init, "--yes")...)
	userEdits := map[string][]string{} // path → the lines the user added
	editedGenerated := false
	kinds := []string{}
	owners := func() map[string]machinery.Ownership {
		p, err := scaffold.LoadProject(dir, styles.All())
		require.NoError(t, err)
		tree, err := render.Project(p, style)
		require.NoError(t, err)
		out := map[string]machinery.Ownership{}
		for _, f := range tree.Files() {
			out[f.Path] = f.Owner
		}
		return out
	}
	// pick is a file of the owner's that a # comment line keeps valid.
	pick := func(owner machinery.Ownership) string {
		var paths []string
		for path, o := range owners() {
			commentable := slices.Contains([]string{".yaml", ".yml", ".py", ".sh", ".txt", ".md", ".cfg"}, filepath.Ext(path)) ||
				slices.Contains([]string{"Makefile", "Dockerfile", ".gitignore", ".dockerignore"}, filepath.Base(path))
			if _, err := os.Stat(filepath.Join(dir, path)); o == owner && commentable && err == nil && path != scaffold.ProjectFileName && path != scaffold.LockFileName {
				paths = append(paths, path)
			}
		}
		slices.Sort(paths)
		return paths[rng.IntN(len(paths))]
	}
	var steps []string
	for step := 0; step < 10; step++ {
		force := rng.IntN(3) == 0
		var args []string
		switch op := rng.IntN(6); {
		case op == 0 || len(kinds) == 0:
			kind := fmt.Sprintf("Kind%d", step)
			owns := []string{"ConfigMap", "Secret", "Deployment"}[rng.IntN(3)]
			args = []string{"create", "api", "--group", "g" + fmt.Sprint(step), "--version", "v1", "--kind", kind, "--field", "size:int32", "--owns", owns}
		case op == 1:
			args = []string{"delete", "api", kinds[rng.IntN(len(kinds))]}
		case op == 2:
			args = []string{"generate"}
		case op == 3:
			// A comment line keeps every kind of file valid, so the project's
			// own check still passes.
			path := pick(machinery.UserOwned)
			b, err := os.ReadFile(filepath.Join(dir, path))
			require.NoError(t, err)
			line := fmt.Sprintf("# edited by the user at step %d", step)
			userEdits[path] = append(userEdits[path], line)
			require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(string(b)+"\n"+line+"\n"), 0o644))
			steps = append(steps, "edit "+path)
			continue
		default:
			path := pick(machinery.Generated)
			b, err := os.ReadFile(filepath.Join(dir, path))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, path), append(b, "\n# hand edit\n"...), 0o644))
			editedGenerated = true
			steps = append(steps, "edit generated "+path)
			continue
		}
		if force {
			args = append(args, "--force")
		}
		steps = append(steps, fmt.Sprint(args))
		before := snapshot(t, dir)
		r := Run(t, dir, args...)
		if editedGenerated && !force {
			assert.Equal(t, 1, r.Code, "steps %v: a hand-edited generated file must stop %v\n%s", steps, args, r.Stderr)
			assert.Equal(t, before, snapshot(t, dir), "steps %v: a stopped command changed files", steps)
		} else {
			require.Equal(t, 0, r.Code, "steps %v: %s", steps, r.Stderr)
			editedGenerated = false
			switch args[0] {
			case "create":
				kinds = append(kinds, args[7])
			case "delete":
				kinds = slices.DeleteFunc(kinds, func(k string) bool { return k == args[2] })
				// What it reports as left to the user, the user removes.
				for _, line := range strings.Split(r.Stdout, "\n") {
					if path, ok := strings.CutPrefix(line, "leave     "); ok {
						path = strings.Fields(path)[0]
						require.NoError(t, os.Remove(filepath.Join(dir, path)))
						delete(userEdits, path)
					}
				}
			}
			cmd := exec.Command("bash", "-c", check)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "steps %v: %s fails:\n%s", steps, check, out)
		}
		// A file of the user's keeps every line they added (opctl's own
		// change to it, a kind added or deleted, merged beside them).
		for path, lines := range userEdits {
			b, err := os.ReadFile(filepath.Join(dir, path))
			if assert.NoError(t, err, "steps %v: the user's edited %s is gone", steps, path) {
				for _, line := range lines {
					assert.Contains(t, string(b), line+"\n", "steps %v: the user's edit of %s was lost", steps, path)
				}
			}
		}
	}
}

// snapshot reads every file under dir, to prove a command changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	}))
	return files
}
