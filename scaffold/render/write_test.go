package render

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
)

// failingFS fails the nth call of one operation.
type failingFS struct {
	machinery.OSFS
	op    string
	n     int
	calls int
}

func (f *failingFS) fail(op string) error {
	if op != f.op {
		return nil
	}
	f.calls++
	if f.calls == f.n {
		return errors.New("injected failure")
	}
	return nil
}

func (f *failingFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if err := f.fail("write"); err != nil {
		return err
	}
	return f.OSFS.WriteFile(name, data, perm)
}

func (f *failingFS) Rename(oldpath, newpath string) error {
	if err := f.fail("rename"); err != nil {
		return err
	}
	return f.OSFS.Rename(oldpath, newpath)
}

func readTree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(path)
		out[rel] = string(b)
		return err
	}))
	return out
}

// A failure half-way through a write leaves the directory exactly as it
// was: no half-written tree, no temporary files.
func TestWriteIsAllOrNothing(t *testing.T) {
	before, after := render(t, bareProject()), render(t, seedProject(t))
	for _, failure := range []struct {
		op string
		n  int
	}{{"write", 1}, {"write", 5}, {"rename", 1}, {"rename", 6}} {
		dir := t.TempDir()
		changes, err := machinery.Plan(dir, before, machinery.Recorded{}, false)
		require.NoError(t, err)
		require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
		snapshot := readTree(t, dir)

		changes, err = machinery.Plan(dir, after, recorded(t, dir), false)
		require.NoError(t, err)
		err = machinery.Apply(context.Background(), &failingFS{op: failure.op, n: failure.n}, dir, changes)
		require.Error(t, err, "%+v", failure)
		assert.Contains(t, err.Error(), "injected failure")
		assert.Contains(t, err.Error(), dir, "the error names the file")
		assert.Equal(t, snapshot, readTree(t, dir), "%+v: the directory must be as it was", failure)
	}
}

func TestWriteRefusesSymlinks(t *testing.T) {
	tree := render(t, seedProject(t))
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "config")))
	_, err := machinery.Plan(dir, tree, machinery.Recorded{}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "resolves outside")
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries, "nothing may be written through the link")

	dir = t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "Makefile")))
	_, err = machinery.Plan(dir, tree, machinery.Recorded{}, true)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "symbolic link"), err.Error())
	// Without --force the user's linked Makefile is kept, so it is no error.
	require.NoError(t, os.WriteFile(filepath.Join(outside, "x"), []byte("all:\n"), 0o644))
	changes, err := machinery.Plan(dir, tree, machinery.Recorded{}, false)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), "Makefile keep")
}

func TestPlanReportsHandEditedGeneratedFiles(t *testing.T) {
	tree := render(t, seedProject(t))
	dir := t.TempDir()
	changes, err := machinery.Plan(dir, tree, machinery.Recorded{}, false)
	require.NoError(t, err)
	require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
	loaded, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)
	require.NotEmpty(t, loaded.Generated["config/rbac/role.yaml"])

	role := filepath.Join(dir, "config/rbac/role.yaml")
	require.NoError(t, os.WriteFile(role, []byte("# mine\n"), 0o644))
	changes, err = machinery.Plan(dir, tree, loaded.Recorded(), false)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), "config/rbac/role.yaml edited")
	changes, err = machinery.Plan(dir, tree, loaded.Recorded(), true)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), "config/rbac/role.yaml update")
	for _, c := range changes {
		if c.Path == "config/rbac/role.yaml" {
			assert.Equal(t, "# mine\n", string(c.Old), "the plan carries what the file holds")
		}
	}
}

// recorded is what the project file in dir records of the generated files.
func recorded(t *testing.T, dir string) machinery.Recorded {
	t.Helper()
	p, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)
	return p.Recorded()
}

// actions lists "path action" for each change.
func actions(changes []machinery.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Path+" "+string(c.Action))
	}
	return out
}

// cancellingFS cancels the context at the nth call of one operation, as a
// Ctrl-C would in the middle of a write.
type cancellingFS struct {
	failingFS
	cancel context.CancelFunc
}

func (f *cancellingFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if f.fail("write") != nil {
		f.cancel()
	}
	return f.OSFS.WriteFile(name, data, perm)
}

func (f *cancellingFS) Rename(oldpath, newpath string) error {
	if f.fail("rename") != nil {
		f.cancel()
	}
	return f.OSFS.Rename(oldpath, newpath)
}

// Ctrl-C while files are written beside their targets undoes everything;
// once they are being renamed into place the write finishes. Either way
// Apply reports the interruption.
func TestApplyInterrupted(t *testing.T) {
	before, after := render(t, bareProject()), render(t, seedProject(t))
	for _, tt := range []struct {
		op       string
		n        int
		finished bool
		want     string
	}{
		{"write", 2, false, "interrupted: nothing written"},
		{"rename", 2, true, "interrupted: after all"},
	} {
		t.Run(tt.op, func(t *testing.T) {
			dir := t.TempDir()
			changes, err := machinery.Plan(dir, before, machinery.Recorded{}, false)
			require.NoError(t, err)
			require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
			snapshot := readTree(t, dir)

			changes, err = machinery.Plan(dir, after, recorded(t, dir), false)
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err = machinery.Apply(ctx, &cancellingFS{failingFS{op: tt.op, n: tt.n}, cancel}, dir, changes)
			require.ErrorIs(t, err, machinery.ErrInterrupted)
			assert.Contains(t, err.Error(), tt.want)
			if !tt.finished {
				assert.Equal(t, snapshot, readTree(t, dir), "the directory must be as it was")
				return
			}
			again, err := machinery.Plan(dir, after, recorded(t, dir), false)
			require.NoError(t, err)
			for _, c := range again {
				assert.Equal(t, machinery.ActionUnchanged, c.Action, "%s was not written", c.Path)
			}
		})
	}
}

// decorator is a decorators: entry of a project file.
func decorator(name string) string {
	return "decorators:\n- {name: " + name + ", target: {apiVersion: apps/v1, kind: Deployment, resource: deployments}, owns: [Service]}\n"
}

func TestLoadProjectRejectsBadFiles(t *testing.T) {
	for name, content := range map[string]string{
		"empty":   "",
		"corrupt": "name: [unclosed\n",
		"newer":   "format: 3\nname: demo\ndomain: example.com\nstyle: plain\n",
		"unknown": "format: 1\nname: demo\ndomain: example.com\nstyle: plain\ncolour: blue\n",
		"invalid": "format: 1\nname: Demo\ndomain: example.com\nstyle: plain\n",
		// A hand-edited file meets the rules flags meet.
		"decorators in a style of kinds": "name: demo\ndomain: example.com\nstyle: plain\n" + decorator("web"),
		"apis in a style of decorators":  "name: demo\ndomain: example.com\nstyle: decorating\napis:\n- {group: g, version: v1, kind: K, plural: ks, namespaced: true}\n",
		"bad decorator name":             "name: demo\ndomain: example.com\nstyle: decorating\n" + decorator("Bad_Name"),
		"decorator twice":                "name: demo\ndomain: example.com\nstyle: decorating\n" + decorator("web") + strings.TrimPrefix(decorator("web"), "decorators:\n"),
		"kind twice": "name: demo\ndomain: example.com\nstyle: plain\napis:\n- {group: g, version: v1, kind: K, plural: ks, namespaced: true}\n" +
			"- {group: h, version: v1, kind: K, plural: ks, namespaced: true}\n",
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.ProjectFileName), []byte(content), 0o644))
		_, err := scaffold.LoadProject(dir, testStyles())
		require.Error(t, err, name)
		var inputErr *input.Error
		assert.True(t, errors.As(err, &inputErr), name)
		assert.Contains(t, err.Error(), filepath.Join(dir, scaffold.ProjectFileName), name)
		assert.NotContains(t, err.Error(), "\n", name)
	}
}

// The hashes are read from the lock file, or from the project file of a
// project written before the lock; a lock file that cannot be read is
// refused in one line naming it.
func TestLoadProjectReadsHashes(t *testing.T) {
	const intent = "name: demo\ndomain: example.com\nstyle: plain\n"
	for _, tc := range []struct {
		name, project, lock string
		want                string // the recorded hash of Makefile, or the error
	}{
		{"lock", "format: 2\n" + intent, "format: 1\nstarters:\n  Makefile: aa\n", "aa"},
		{"before the lock", "format: 1\n" + intent + "starters:\n  Makefile: bb\n", "", "bb"},
		{"the lock wins", "format: 1\n" + intent + "starters:\n  Makefile: bb\n", "format: 1\nstarters:\n  Makefile: aa\n", "aa"},
		{"corrupt lock", "format: 2\n" + intent, "starters: [\n", "is not a valid lock file"},
		{"unknown key", "format: 2\n" + intent, "format: 1\nstate: x\n", "is not a valid lock file"},
		{"newer lock", "format: 2\n" + intent, "format: 2\n", "format 2 is newer than this opctl reads (1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.ProjectFileName), []byte(tc.project), 0o644))
			if tc.lock != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".opctl"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.LockFileName), []byte(tc.lock), 0o644))
			}
			p, err := scaffold.LoadProject(dir, testStyles())
			if len(tc.want) == 2 {
				require.NoError(t, err)
				assert.Equal(t, tc.want, p.Starters["Makefile"])
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, scaffold.LockFileName))
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// A project written before the lock moves its hashes there with the next
// write: the project file keeps the intent alone.
func TestWriteMovesHashesToTheLock(t *testing.T) {
	dir := t.TempDir()
	p := seedProject(t)
	changes, err := machinery.Plan(dir, render(t, p), machinery.Recorded{}, false)
	require.NoError(t, err)
	require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
	written, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)
	require.NotEmpty(t, written.Starters)

	// The project file as a format-1 opctl wrote it, hashes included.
	lock, err := os.ReadFile(filepath.Join(dir, scaffold.LockFileName))
	require.NoError(t, err)
	project, err := os.ReadFile(filepath.Join(dir, scaffold.ProjectFileName))
	require.NoError(t, err)
	old := strings.Replace(string(project), "format: 2", "format: 1", 1) + strings.SplitN(string(lock), "format: 1\n", 2)[1]
	require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.ProjectFileName), []byte(old), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, scaffold.LockFileName)))

	legacy, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)
	assert.Equal(t, written.Recorded(), legacy.Recorded())
	changes, err = machinery.Plan(dir, render(t, legacy), legacy.Recorded(), false)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), scaffold.ProjectFileName+" update")
	assert.Contains(t, actions(changes), scaffold.LockFileName+" create")
	require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
	project, err = os.ReadFile(filepath.Join(dir, scaffold.ProjectFileName))
	require.NoError(t, err)
	assert.NotContains(t, string(project), "starters:")
	assert.NotContains(t, string(project), "generated:")
	moved, err := os.ReadFile(filepath.Join(dir, scaffold.LockFileName))
	require.NoError(t, err)
	assert.Equal(t, string(lock), string(moved))
}

// A file of the user's that is still exactly as opctl last wrote it follows
// the project when the project changes; one the user changed is kept.
func TestPlanRefreshesOnlyUntouchedStarters(t *testing.T) {
	dir := t.TempDir()
	before := seedProject(t)
	changes, err := machinery.Plan(dir, render(t, before), machinery.Recorded{}, false)
	require.NoError(t, err)
	require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
	written, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)

	mine := ConformancePath(before.APIs[0], "defaults")
	untouched := ConformancePath(before.APIs[0], "sample")
	require.NoError(t, os.WriteFile(filepath.Join(dir, mine), []byte("# mine\n"), 0o644))
	after := written
	after.APIs[0].Fields = append(after.APIs[0].Fields, apitest.MustFields(t, "tier:string")...)
	tree := render(t, after)
	changes, err = machinery.Plan(dir, tree, written.Recorded(), false)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), untouched+" update", "as opctl wrote it: it follows the new field")
	assert.Contains(t, actions(changes), mine+" keep", "changed by the user: theirs")
	require.NoError(t, machinery.Apply(context.Background(), machinery.OSFS{}, dir, changes))
	b, err := os.ReadFile(filepath.Join(dir, untouched))
	require.NoError(t, err)
	assert.Contains(t, string(b), "tier:")

	again, err := scaffold.LoadProject(dir, testStyles())
	require.NoError(t, err)
	assert.Equal(t, machinery.ContentHash(b), again.Starters[untouched], "the project file records what was written")
	changes, err = machinery.Plan(dir, tree, again.Recorded(), false)
	require.NoError(t, err)
	assert.Contains(t, actions(changes), mine+" keep")
	assert.Contains(t, actions(changes), untouched+" unchanged")
}
