package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// runReal runs opctl in dir with the real styles.
func runReal(t *testing.T, dir string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Prompter: newFakePrompter(t, nil), Dir: dir, Styles: styles.All()}
	return result{Run(args, env), out.String(), errOut.String()}
}

// realSeed writes the seed example in style into root/name and returns it.
func realSeed(t *testing.T, root, name, style string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	require.NoError(t, os.Mkdir(dir, 0o755))
	s, err := styles.All().Lookup(style)
	require.NoError(t, err)
	require.Equal(t, 0, runReal(t, dir, seed.Init(style, s.ModulePath)...).code)
	require.Equal(t, 0, runReal(t, dir, seed.Create()...).code)
	return dir
}

// The seed in kopf, moved to go: the CRD and sample byte for byte, the
// original untouched, and the report names the kopf files holding the
// user's logic.
func TestMigrate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	old := realSeed(t, root, "db-kopf", "kopf")
	children := filepath.Join(old, "db_operator", "database_configmap.py")
	b, err := os.ReadFile(children)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(children, append(b, "# our rule\n"...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(old, "db_operator", "vault.py"), []byte("# our client\n"), 0o644))
	// A conformance case of the user's, and one of opctl's changed.
	ours := filepath.Join(old, "test", "conformance", "database", "ours.yaml")
	require.NoError(t, os.WriteFile(ours, []byte("object: {}\nrejected: ours\n"), 0o644))
	sample := filepath.Join(old, "test", "conformance", "database", "sample.yaml")
	b, err = os.ReadFile(sample)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sample, append(b, "# checked by hand\n"...), 0o644))
	before := snapshot(t, old)

	r := runReal(t, old, "migrate", "--to", "go", "../db-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, before, snapshot(t, old), "the original must be untouched")
	p, err := scaffold.LoadProject(filepath.Join(root, "db-go"), styles.All())
	require.NoError(t, err)
	assert.Equal(t, "go", p.Style)
	for _, path := range []string{render.CRDPath(p, p.APIs[0]), render.SamplePath(p, p.APIs[0])} {
		assert.Equal(t, before[path], snapshot(t, filepath.Join(root, "db-go"))[path], "%s byte for byte", path)
		assert.Contains(t, r.stdout, "\n  "+path+"\n")
	}
	for _, path := range []string{"test/conformance/database/ours.yaml", "test/conformance/database/sample.yaml", "test/conformance/database/defaults.yaml"} {
		assert.Equal(t, before[path], snapshot(t, filepath.Join(root, "db-go"))[path], "%s carried over as it is", path)
		assert.Contains(t, r.stdout, "\n  "+path+"\n")
	}
	assert.Contains(t, r.stdout, "\n  db_operator/database_configmap.py (changed)\n  db_operator/vault.py (added)\n\n", "the cases are carried over, no logic to port")
	assert.NotContains(t, r.stdout, "handlers_database.py", "a starter file as opctl wrote it is no logic of yours")
	assert.Contains(t, r.stdout, "language: kopf: Python; go: Go")
	assert.Contains(t, r.stdout, "finalizers: kopf: Kopf adds one for a timer")
	assert.Contains(t, r.stdout, "spec values: kopf writes quantities and durations into the children as written; go writes quantities and durations into the children in canonical form", "the seed has a quantity")

	// The new project's own starter files are recorded as unchanged.
	r = runReal(t, filepath.Join(root, "db-go"), "migrate", "--to", "kopf", "../db-kopf-again")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "none: the go starter files are as opctl wrote them")
}

func TestMigrateRefuses(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	old := realSeed(t, root, "p", "kopf")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no style", []string{"migrate", "../n"}, "opctl: --to is required (styles: "},
		{"no directory", []string{"migrate", "--to", "go"}, "opctl: opctl migrate takes the directory to write the new project into"},
		{"unknown style", []string{"migrate", "--to", "rust", "../n"}, `opctl: --to "rust": unknown style`},
		{"the same style", []string{"migrate", "--to", "kopf", "../n"}, `opctl: --to "kopf": the project's style is kopf already`},
		{"kinds to a decorator", []string{"migrate", "--to", "metacontroller-decorator", "../n"}, `opctl: --to "metacontroller-decorator": metacontroller-decorator projects decorate existing kinds and have no CRDs; this project has kinds Database`},
		{"into a project", []string{"migrate", "--to", "go", "."}, "already has opctl.yaml: migrate writes a new project"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runReal(t, old, tt.args...)
			assert.Equal(t, 2, r.code)
			assert.True(t, strings.HasPrefix(r.stderr, tt.want) || strings.Contains(r.stderr, tt.want), r.stderr)
			_, err := os.Stat(filepath.Join(root, "n"))
			assert.True(t, os.IsNotExist(err), "nothing written")
		})
	}
}

// What a style cannot express is named: a decorator becomes a watch whose
// attachments are the user's to write; a kind's playbook is the user's to
// port.
func TestMigrateDropped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dec := filepath.Join(root, "dec")
	require.NoError(t, os.Mkdir(dec, 0o755))
	require.Equal(t, 0, runReal(t, dec, "init", "--style", "metacontroller-decorator", "--name", "web-extras", "--yes", ".").code)
	require.Equal(t, 0, runReal(t, dec, "create", "api", "--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service").code)
	r := runReal(t, dec, "migrate", "--to", "go", "../dec-go")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --domain is required: the project has none, and go projects need one (e.g. --domain example.com)\n", r.stderr)
	r = runReal(t, dec, "migrate", "--to", "go", "--domain", "example.com", "../dec-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "attached Service to each Deployment: it is a watch now; create them in its handler")
	p, err := scaffold.LoadProject(filepath.Join(root, "dec-go"), styles.All())
	require.NoError(t, err)
	require.Len(t, p.Watches, 1)
	assert.Equal(t, map[string]string{"app-type": "web"}, p.Watches[0].Selector)

	play := filepath.Join(root, "play")
	require.NoError(t, os.Mkdir(play, 0o755))
	require.Equal(t, 0, runReal(t, play, "init", "--style", "ansible", "--domain", "example.com", "--name", "backup-operator", "--yes", ".").code)
	require.NoError(t, os.MkdirAll(filepath.Join(play, "playbooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(play, "playbooks", "backup.yml"), []byte("- name: backup\n  hosts: localhost\n  tasks: []\n"), 0o644))
	r = runReal(t, play, "create", "api", "--group", "ops", "--version", "v1", "--kind", "Backup", "--playbook", "playbooks/backup.yml")
	require.Equal(t, 0, r.code, r.stderr)
	r = runReal(t, play, "migrate", "--to", "kopf", "../play-kopf")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "kind Backup ran the playbook playbooks/backup.yml: the kopf starter code takes its place; port what it did to it. "+
		"Its conformance cases (test/conformance/backup/) are opctl's starter children, which the playbook never made: make them say what it did")
	assert.Contains(t, r.stdout, "playbooks/backup.yml (added)")
}

// A watch narrowed to a namespace: the report says which runtime reads the
// watched kind there alone and which everywhere.
func TestMigrateWatchAccess(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "sync")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.Equal(t, 0, runReal(t, dir, "init", "--style", "go", "--domain", "example.com", "--repo", "example.com/sync", "--name", "sync", "--yes", ".").code)
	require.Equal(t, 0, runReal(t, dir, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault").code)
	r := runReal(t, dir, "migrate", "--to", "kopf", "../sync-kopf")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "watch access: go reads a watched kind in the watch's namespace alone (a Role there); kopf reads a watched kind in every namespace (the ClusterRole)")
	r = runReal(t, filepath.Join(root, "sync-kopf"), "migrate", "--to", "shell-operator", "../sync-shell")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "watch access: kopf reads a watched kind in every namespace")
	r = runReal(t, filepath.Join(root, "sync-shell"), "migrate", "--to", "go", "../sync-go")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "watch access", "shell-operator and go both read in the namespace alone")
}

// Every style with kinds of its own moves to every other: the CRD and
// sample stay byte for byte, and the new project is what init and create
// api would make in that style.
func TestMigrateEveryPair(t *testing.T) {
	t.Parallel()
	var kinds []string
	for _, s := range styles.All() {
		if !s.ExistingKinds {
			kinds = append(kinds, s.Name)
		}
	}
	for _, from := range kinds {
		for _, to := range kinds {
			if from == to {
				continue
			}
			t.Run(from+"→"+to, func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				old := realSeed(t, root, "old", from)
				r := runReal(t, old, "migrate", "--to", to, "../new")
				require.Equal(t, 0, r.code, r.stderr)
				fresh := realSeed(t, root, "fresh", to)
				migrated, made := relative(t, filepath.Join(root, "new")), relative(t, fresh)
				assert.Equal(t, made, migrated, "migrating from %s must give what init and create api give in %s", from, to)
			})
		}
	}
}

// style: changed by hand in opctl.yaml: no command writes the other style
// over the project; the message points to migrate.
func TestStyleChangedByHandIsRefused(t *testing.T) {
	t.Parallel()
	dir := realSeed(t, t.TempDir(), "old", "go")
	file := filepath.Join(dir, scaffold.ProjectFileName)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, bytes.Replace(b, []byte("\nstyle: go\n"), []byte("\nstyle: kopf\n"), 1), 0o644))
	before := snapshot(t, dir)
	for _, args := range [][]string{{"generate"}, {"create", "api", "--group", "cache", "--version", "v1", "--kind", "Cache"},
		{"edit", "api", "--kind", "Database", "--field", "tier:string"}, {"delete", "api", "Database"}} {
		r := runReal(t, dir, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Equal(t, "opctl: opctl.yaml: style \"kopf\": the project's files were written in the go style, and writing kopf over them in place would leave neither: put style: go back, then opctl migrate --to kopf DIR writes the project in kopf into DIR\n", r.stderr, "%v", args)
	}
	assert.Equal(t, before, snapshot(t, dir), "nothing written")
}
