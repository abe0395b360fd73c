package cmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/pins"
)

// fakePrompter answers prompts by message from per-message queues. An
// unexpected prompt fails the test, and so does an answer left unused.
// Input answers go through the prompt's validator: a rejected answer is
// recorded and the next one in the queue is tried, as a user would retype.
// The answer keepDefault takes the prompt's default, as Enter does.
type fakePrompter struct {
	t        *testing.T
	answers  map[string][]string
	rejected []string
	// defaults are the defaults each Select and Input offered, by prompt.
	defaults map[string][]string
}

func newFakePrompter(t *testing.T, answers map[string][]string) *fakePrompter {
	f := &fakePrompter{t: t, answers: answers, defaults: map[string][]string{}}
	t.Cleanup(func() {
		for message, left := range f.answers {
			if len(left) > 0 {
				t.Errorf("prompt %q never asked for answers %q", message, left)
			}
		}
	})
	return f
}

// keepDefault answers a fake prompt with its default.
const keepDefault = "<enter>"

func (f *fakePrompter) next(message string) (string, error) {
	queue := f.answers[message]
	if len(queue) == 0 {
		f.t.Errorf("unexpected prompt %q", message)
		return "", cmdutil.ErrCancelled
	}
	f.answers[message] = queue[1:]
	return queue[0], nil
}

func (f *fakePrompter) Select(message, _ string, options []string, def string) (string, error) {
	f.defaults[message] = append(f.defaults[message], def)
	a, err := f.next(message)
	if a == keepDefault {
		a = def
	}
	if err == nil && !slices.Contains(options, a) {
		f.t.Errorf("prompt %q: %q is not an option of %q", message, a, options)
	}
	return a, err
}

func (f *fakePrompter) MultiSelect(message, _ string, _, defs []string, validate func([]string) error) ([]string, error) {
	for {
		a, err := f.next(message)
		var chosen []string
		if a == keepDefault {
			chosen = defs
		} else if a != "" {
			chosen = strings.Split(a, ",")
		}
		if err != nil || validate == nil {
			return chosen, err
		}
		verr := validate(chosen)
		if verr == nil {
			return chosen, nil
		}
		f.rejected = append(f.rejected, message+": "+verr.Error())
	}
}

func (f *fakePrompter) Input(message, _, def string, validate func(string) error) (string, error) {
	f.defaults[message] = append(f.defaults[message], def)
	for {
		a, err := f.next(message)
		if a == keepDefault {
			a = def
		}
		if err != nil || validate == nil {
			return a, err
		}
		verr := validate(a)
		if verr == nil {
			return a, nil
		}
		f.rejected = append(f.rejected, message+": "+verr.Error())
	}
}

func (f *fakePrompter) Confirm(message string, def bool) (bool, error) {
	a, err := f.next(message)
	if a == keepDefault {
		return def, err
	}
	return a == "y", err
}

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, dir string, pr cmdutil.Prompter, interactive bool, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	if pr == nil {
		pr = newFakePrompter(t, nil)
	}
	env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Interactive: interactive}, Prompter: pr, Dir: dir, Styles: toyStyles()}
	code := Run(args, env)
	return result{code, out.String(), errOut.String()}
}

// seedInit and seedCreate scaffold the seed example in the go style, whose
// files the command tests name.
var (
	seedInit   = seed.Init("toy-go", true)
	seedCreate = seed.Create()
)

// snapshot reads every file under dir, to prove a command changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			files[path] = "-> " + target
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	}))
	return files
}

func initSeed(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := run(t, dir, nil, false, seedInit...)
	require.Equal(t, 0, r.code, r.stderr)
	return dir
}

func TestSeedExample(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	r := run(t, dir, nil, false, seedCreate...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    config/crd/bases/myapp.example.com_databases.yaml")
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	require.Len(t, p.APIs, 1)
	assert.Equal(t, "databases", p.APIs[0].Plural)
	assert.FileExists(t, filepath.Join(dir, "src/database_controller.txt"))
	assert.FileExists(t, filepath.Join(dir, "src/myapp/v1/database_types.txt"))
}

func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"kind not UpperCamelCase", []string{"--kind", "database"}, `opctl: --kind "database": must be UpperCamelCase (e.g. Database), at most 63 characters`},
		{"bad version", []string{"--version", "version1"}, `opctl: --version "version1": must look like v1, v1alpha1 or v2beta3`},
		{"group with underscore", []string{"--group", "my_app"}, `opctl: --group "my_app": must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')`},
		{"group upper case", []string{"--group", "MyApp"}, `opctl: --group "MyApp": must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')`},
		{"unknown type", []string{"--field", "size:decimal"}, `opctl: --field "size:decimal": unknown type "decimal" (types: string, bool, int32, int64, number, quantity, int-or-string, duration, datetime, bytes, object, any, []TYPE, map[string]TYPE, or a Kubernetes type such as core/v1.ResourceRequirements (opctl types lists them))`},
		{"unknown modifier", []string{"--field", "size:int32:positive"}, `opctl: --field "size:int32:positive": unknown modifier "positive" (modifiers: required, default, enum, min, max, minLength, maxLength, pattern, format, minItems, maxItems, listType, mapKeys, minProperties, maxProperties, column, key, immutable, rule, itemRule)`},
		{"min greater than max", []string{"--field", "size:int32:min=5:max=1"}, `opctl: --field "size": min 5 is greater than max 1`},
		{"default outside enum", []string{"--field", "mode:string:enum=a,b:default=c"}, `opctl: --field "mode": default "c" is not in enum a,b`},
		{"default outside range", []string{"--field", "size:int32:max=3:default=4"}, `opctl: --field "size": default 4 is outside min/max`},
		{"duplicate field", []string{"--field", "size:int32", "--field", "size:string"}, `opctl: --field "size": defined twice`},
		{"reserved spec", []string{"--field", "spec:string"}, `opctl: --field "spec": name "spec" is reserved`},
		{"reserved deepCopyInto", []string{"--field", "deepCopyInto:string"}, `opctl: --field "deepCopyInto": name "deepCopyInto" is reserved`},
		{"reserved status", []string{"--field", "status:string"}, `opctl: --field "status": name "status" is reserved`},
		{"dash in a name", []string{"--field", "my-size:int32"}, `opctl: --field "my-size": name "my-size" must be letters, digits and underscores, not starting with a digit (storageClass, pg_hba)`},
		{"unknown owned kind", []string{"--owns", "Pod"}, `opctl: --owns "Pod": unknown kind (kinds: ConfigMap, Secret, Service, Deployment, StatefulSet, Job, PodDisruptionBudget, NetworkPolicy, HorizontalPodAutoscaler, Ingress, CronJob, ServiceMonitor)`},
		{"missing kind", []string{"--kind", ""}, `opctl: --kind is required`},
		{"unknown flag", []string{"--colour"}, `opctl: unknown flag: --colour`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := initSeed(t)
			before := snapshot(t, dir)
			args := append([]string{"create", "api", "--group", "myapp", "--version", "v1", "--kind", "Database"}, tt.args...)
			r := run(t, dir, nil, false, args...)
			assert.Equal(t, 2, r.code)
			assert.Equal(t, tt.want+"\n", r.stderr, "one line naming the flag, the value and the rule")
			assert.Equal(t, before, snapshot(t, dir), "the directory must be unchanged")
		})
	}
}

// Ctrl-C (a cancelled context) before the write leaves the directory as
// it was and exits 1 with a message saying so.
func TestInterruptedWriteWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Prompter: newFakePrompter(t, nil), Dir: dir, Styles: toyStyles()}
	code := RunContext(ctx, seedInit, env)
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, "opctl: interrupted: nothing written\n", errOut.String())
	assert.Empty(t, snapshot(t, dir))
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	before := snapshot(t, dir)
	r := run(t, dir, nil, false, append(seedCreate, "--dry-run", "-v")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    src/myapp/v1/database_types.txt")
	assert.Contains(t, r.stdout, "    // Code generated by opctl. DO NOT EDIT.", "-v prints contents")
	assert.Contains(t, r.stdout, "dry run: nothing written")
	assert.Equal(t, before, snapshot(t, dir))

	empty := t.TempDir()
	r = run(t, empty, nil, false, append(seedInit, "--dry-run")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    opctl.yaml")
	assert.Empty(t, snapshot(t, empty))
}

func TestSecondKindKeepsUserFiles(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	controller := filepath.Join(dir, "src/database_controller.txt")
	require.NoError(t, os.WriteFile(controller, []byte("package controller // mine\n"), 0o644))

	r := run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache", "--owns", "Deployment")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "keep      src/database_controller.txt (yours: opctl writes it only when it is missing)")
	assert.Contains(t, r.stdout, "update    src/kinds.txt")
	assert.Contains(t, r.stdout, "create    src/cache/v1alpha1/cache_types.txt")
	mine, err := os.ReadFile(controller)
	require.NoError(t, err)
	assert.Equal(t, "package controller // mine\n", string(mine))

	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Len(t, p.APIs, 2)

	r = run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --kind \"Cache\": the project already has this kind (cache.example.com/v1alpha1); kind names are unique in a project (opctl edit api --kind Cache changes it, and adds a version with --new-version)\n", r.stderr)
}

// --force overwrites a hand-edited generated file, never a file of the
// user's: those opctl writes only when they are missing (issue: --force
// once reverted the user's Makefile and controller code along with it).
func TestForceNeverTouchesUserFiles(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	makefile := filepath.Join(dir, "Makefile")
	controller := filepath.Join(dir, "src/database_controller.txt")
	role := filepath.Join(dir, "config/rbac/role.yaml")
	require.NoError(t, os.WriteFile(makefile, []byte("mine:\n"), 0o644))
	require.NoError(t, os.WriteFile(controller, []byte("package controller // mine\n"), 0o644))
	require.NoError(t, os.WriteFile(role, []byte("# edited\n"), 0o644))

	for _, args := range [][]string{{"generate", "--force"}, {"create", "api", "--group", "cache", "--version", "v1", "--kind", "Cache", "--force"}} {
		r := run(t, dir, nil, false, args...)
		require.Equal(t, 0, r.code, r.stderr)
		for path, want := range map[string]string{makefile: "mine:\n", controller: "package controller // mine\n"} {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, want, string(b), "%v changed %s", args, path)
		}
		b, err := os.ReadFile(role)
		require.NoError(t, err)
		assert.NotEqual(t, "# edited\n", string(b), "--force rewrites the edited generated file")
		require.NoError(t, os.WriteFile(role, []byte("# edited\n"), 0o644))
	}
	// A missing file of the user's is written again.
	require.NoError(t, os.Remove(makefile))
	r := run(t, dir, nil, false, "generate", "--force")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    Makefile")
}

// A file at a path opctl generates that opctl never wrote (no recorded
// hash) is the user's until they say otherwise: init stops on it.
func TestInitStopsOnFilesItDidNotWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	manager := filepath.Join(dir, "config/manager/manager.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(manager), 0o755))
	require.NoError(t, os.WriteFile(manager, []byte("# hand-written\n"), 0o644))
	before := snapshot(t, dir)

	r := run(t, dir, nil, false, append(seedInit, "--dry-run")...)
	assert.Equal(t, 1, r.code, "a dry run ends as the real run would")
	assert.Contains(t, r.stdout, "exists    config/manager/manager.yaml (opctl generates this file but did not write it; --force overwrites)")
	r = run(t, dir, nil, false, seedInit...)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "exists    config/manager/manager.yaml (opctl generates this file but did not write it; --force overwrites)\n", r.stdout,
		"only what stops the write is listed")
	assert.Equal(t, "opctl: nothing written: config/manager/manager.yaml not written by opctl; move your changes to files of yours, or use --force to overwrite\n", r.stderr)
	assert.Equal(t, before, snapshot(t, dir))

	r = run(t, dir, nil, false, append(seedInit, "--force")...)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(manager)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "hand-written")
}

// init never replaces a project, --force or not: the old kinds' files would
// stay behind a project file that no longer knows them.
func TestInitNeverReplacesAProject(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	before := snapshot(t, dir)
	for _, extra := range [][]string{nil, {"--force"}} {
		r := run(t, dir, nil, false, append(append([]string{}, seedInit...), extra...)...)
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, "already has opctl.yaml: add kinds with opctl create api, re-render with opctl generate, or remove opctl.yaml to start over")
		assert.Equal(t, before, snapshot(t, dir))
	}
}

// A kind taken out of opctl.yaml by hand: generate removes the generated
// files it recorded for it (unchanged since), stops on an edited one until
// --force, and leaves the user's files.
func TestGenerateRemovesFilesNoLongerProduced(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	require.Equal(t, 0, run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1", "--kind", "Cache").code)
	edited := filepath.Join(dir, "config/samples/cache_v1_cache.yaml")
	b, err := os.ReadFile(edited)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(edited, append(b, "# mine\n"...), 0o644))
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	p.APIs = p.APIs[:1]
	projectFile, err := yaml.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.ProjectFileName), projectFile, 0o644))

	before := snapshot(t, dir)
	r := run(t, dir, nil, false, "generate")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "orphaned  config/samples/cache_v1_cache.yaml (generated, no longer produced, but edited by hand; --force removes)\n", r.stdout)
	assert.Equal(t, before, snapshot(t, dir))

	r = run(t, dir, nil, false, "generate", "--force")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "remove    src/cache/v1/cache_types.txt (generated, no longer produced)")
	assert.Contains(t, r.stdout, "remove    config/samples/cache_v1_cache.yaml (generated, no longer produced)")
	assert.NoFileExists(t, filepath.Join(dir, "src/cache/v1/cache_types.txt"))
	assert.NoFileExists(t, edited)
	assert.FileExists(t, filepath.Join(dir, "src/cache_controller.txt"), "generate leaves the user's files")
	assert.NoFileExists(t, filepath.Join(dir, "src/cache/v1/cache_types.txt.opctl-removed"))
}

// delete api removes a kind: its generated files, the files of the user's
// that opctl wrote for it and that were never changed; a changed one stays
// and is listed; opctl.yaml forgets the kind.
func TestDeleteAPI(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	snapshotWithOneKind := snapshot(t, dir)
	require.Equal(t, 0, run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1", "--kind", "Cache", "--owns", "Deployment").code)
	test := filepath.Join(dir, "src/cache_controller_test.txt")
	require.NoError(t, os.WriteFile(test, []byte("package controller // mine\n"), 0o644))

	r := run(t, dir, nil, false, "delete", "api", "Cache")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "remove    src/cache/v1/cache_types.txt (generated, no longer produced)")
	assert.Contains(t, r.stdout, "remove    src/cache_controller.txt (yours, but as opctl wrote it and no longer produced)")
	assert.Contains(t, r.stdout, "leave     src/cache_controller_test.txt (yours, no longer produced, changed since opctl wrote it: left in place; remove it unless you still need it, as it may refer to what is gone)")
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	require.Len(t, p.APIs, 1)
	assert.Equal(t, "Database", p.APIs[0].Kind)
	after := snapshot(t, dir)
	delete(after, test)
	assert.Equal(t, snapshotWithOneKind, after, "the project is as before the kind was added, but for the file the user changed")

	r = run(t, dir, nil, false, "delete", "api", "Cache")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: NAME \"Cache\": the project has no such kind, decorator or watch (it has Database)\n", r.stderr)
	r = run(t, dir, nil, false, "delete", "api")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "takes one argument, the kind, decorator or watch to remove")
}

func TestCreateAPIFromFile(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	spec := `group: myapp
version: v1
kind: Database
fields:
- name: engine
  type: string
  required: true
  enum: [mysql, postgres]
- name: replicas
  type: int32
  min: 1
  max: 5
  default: "1"
owns: [ConfigMap]
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "db.yaml"), []byte(spec), 0o644))
	r := run(t, dir, nil, false, "create", "api", "--from", "db.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.True(t, p.APIs[0].Namespaced, "namespaced defaults to true")
	assert.Equal(t, "databases", p.APIs[0].Plural)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("group: myapp\nversion: v1\nkind: cache\n"), 0o644))
	r = run(t, dir, nil, false, "create", "api", "--from", "bad.yaml")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: bad.yaml: kind \"cache\": must be UpperCamelCase (e.g. Database), at most 63 characters\n", r.stderr)

	r = run(t, dir, nil, false, "create", "api", "--from", "db.yaml", "--kind", "Other")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --from db.yaml cannot be combined with --kind: put it in the file\n", r.stderr)
}

func TestInitNeedsFlagsWhenNotPrompting(t *testing.T) {
	t.Parallel()
	example := toyStyles()[0].Name
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"init", "--domain", "example.com"}, "opctl: --style is required when not prompting (styles: " + strings.Join(toyStyles().Names(), ", ") + ")\n"},
		{[]string{"init", "--style", example}, "opctl: --domain is required when not prompting (e.g. --domain example.com)\n"},
		{[]string{"init", "--style", "rust", "--domain", "example.com"}, "opctl: --style \"rust\": unknown style (styles: " + strings.Join(toyStyles().Names(), ", ") + ")\n"},
		{[]string{"init", "--style", example, "--domain", "Example.com"}, "opctl: --domain \"Example.com\": must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')\n"},
		{[]string{"init", "--style", example, "--domain", "example.com", "--name", "DB"}, "opctl: --name \"DB\": must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters)\n"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		r := run(t, dir, nil, false, tt.args...)
		assert.Equal(t, 2, r.code, tt.args)
		assert.Equal(t, tt.want, r.stderr)
		assert.Empty(t, snapshot(t, dir))
	}
}

func TestInitRefusesExistingProject(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	r := run(t, dir, nil, false, seedInit...)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "already has opctl.yaml: add kinds with opctl create api")
}

func TestInitPromptsOnTerminal(t *testing.T) {
	t.Parallel()
	// --yes never prompts, even on a terminal.
	r := run(t, t.TempDir(), newFakePrompter(t, nil), true, "init", "--style", toyStyles()[0].Name, "--domain", "example.com", "--yes")
	assert.Equal(t, 0, r.code, r.stderr)
}

func TestCreateAPIOutsideProject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := run(t, dir, nil, false, seedCreate...)
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: "+filepath.Join(dir, "opctl.yaml")+" not found: run opctl init first, or run this command in the project directory\n", r.stderr)
}

func TestStylesAndVersion(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), nil, false, "styles")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "toy-go      a toy style for Go teams\n")
	r = run(t, t.TempDir(), nil, false, "version")
	require.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "opctl "), r.stdout)
	r = run(t, t.TempDir(), nil, false, "version", "extra")
	assert.Equal(t, 2, r.code)
}

// A hand edit to a generated file is reported, shown as a diff in a dry
// run, and never overwritten without --force.
func TestHandEditedGeneratedFileIsKept(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	role := filepath.Join(dir, "config/rbac/role.yaml")
	edited, err := os.ReadFile(role)
	require.NoError(t, err)
	edited = append(edited, []byte("# my note\n")...)
	require.NoError(t, os.WriteFile(role, edited, 0o644))
	before := snapshot(t, dir)

	second := []string{"create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache", "--owns", "Deployment"}
	r := run(t, dir, nil, false, append(second, "--dry-run")...)
	require.Equal(t, 1, r.code, "a dry run ends as the real run would")
	assert.Contains(t, r.stdout, "edited    config/rbac/role.yaml (generated, but edited by hand; --force overwrites)")
	assert.Contains(t, r.stdout, "--- a/config/rbac/role.yaml\n+++ b/config/rbac/role.yaml\n")
	assert.Contains(t, r.stdout, "-# my note\n")

	r = run(t, dir, nil, false, second...)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "opctl: nothing written: config/rbac/role.yaml changed by hand since opctl generated them; move your changes to files of yours, or use --force to overwrite\n", r.stderr)
	assert.Equal(t, before, snapshot(t, dir))

	r = run(t, dir, nil, false, append(second, "--force")...)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(role)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "# my note")
}

func TestGenerateRerendersFromTheProjectFile(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	crd := filepath.Join(dir, "config/crd/bases/myapp.example.com_databases.yaml")
	require.NoError(t, os.Remove(crd))
	r := run(t, dir, nil, false, "generate")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    config/crd/bases/myapp.example.com_databases.yaml")
	assert.FileExists(t, crd)
	r = run(t, dir, nil, false, "generate")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "create ")
	assert.NotContains(t, r.stdout, "update ")
}

// A registry the commands could not serve is refused when opctl starts,
// with a message naming the style, before decide could fail on it.
func TestBadRegistryIsRefusedAtStart(t *testing.T) {
	t.Parallel()
	base := toyStyles()
	withRow := func(s scaffold.Style) scaffold.Style {
		s.Name, s.Checklist = "rust", base[0].Checklist
		return s
	}
	tests := []struct {
		name  string
		extra scaffold.Style
		want  string
	}{
		{"no comparison row", scaffold.Style{Name: "rust", Summary: "s", Runtime: base[0].Runtime, Files: base[0].Files, CI: base[0].CI,
			ConformanceTest: base[0].ConformanceTest, Checklist: checklist.Profile{Points: map[string]int{"language=other": 9}}},
			"style registry: style \"rust\" has no comparison row (Language is empty)"},
		{"a name twice", base[1], "style registry: \"toy-python\" is registered twice"},
		{"no files", func() scaffold.Style { s := withRow(base[0]); s.Files = nil; return s }(),
			"style registry: \"rust\" needs a summary, a runtime, its files and its CI"},
		{"kinds without a conformance test", func() scaffold.Style { s := withRow(base[0]); s.ConformanceTest = ""; return s }(),
			"style registry: \"rust\" has kinds of its own and needs a conformance test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Prompter: newFakePrompter(t, nil),
				Dir: t.TempDir(), Styles: append(toyStyles(), tt.extra)}
			code := Run([]string{"decide", "--existing", "no", "--new-crd", "yes", "--stage", "prototype",
				"--language", "other", "--logic", "imperative", "--maintainers", "no"}, env)
			assert.Equal(t, exitFailure, code)
			assert.Equal(t, "opctl: "+tt.want+"\n", errOut.String())
			assert.Empty(t, out.String())
		})
	}
}

// styleWith is the first style of the registry with a capability, for the
// tests of a flag or flow only such styles have.
func styleWith(t *testing.T, has func(scaffold.Style) bool) string {
	t.Helper()
	for _, s := range toyStyles() {
		if has(s) {
			return s.Name
		}
	}
	t.Fatal("no style in the registry has the capability")
	return ""
}

// A watch of an existing kind: recorded in opctl.yaml, read-only RBAC on
// the target, and removed again by delete api.
func TestCreateWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "sync", "--yes").code)
	before := snapshot(t, dir)
	r := run(t, dir, nil, false, "create", "api", "--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault", "--name", "vault")
	require.Equal(t, 0, r.code, r.stderr)
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Equal(t, []scaffold.Watch{{Name: "vault", Target: scaffold.Target{APIVersion: "v1", Kind: "Secret", Resource: "secrets"},
		Namespace: "payments", Selector: map[string]string{"sync": "vault"}}}, p.Watches)
	role, err := os.ReadFile(filepath.Join(dir, "config/rbac/role.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(role), "- apiGroups:\n  - \"\"\n  resources:\n  - secrets\n  verbs:\n  - get\n  - list\n  - watch\n")
	api, err := os.ReadFile(filepath.Join(dir, "API.md"))
	require.NoError(t, err)
	assert.Contains(t, string(api), "## Watch vault\n\nReacts to existing Secret (v1) in namespace payments labelled sync=vault: read-only, no CRD.")

	r = run(t, dir, nil, false, "delete", "api", "vault")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, before, snapshot(t, dir), "deleting the watch gives the project back")
}

// create watch and create decorator are create api's modes under their own
// names: each writes what create api writes, and refuses a style it does
// not serve in one line naming those it does.
func TestCreateWatchAndDecoratorNameCreateAPIModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		init, command string
		args          []string
	}{
		{"--style toy-python --domain example.com", "watch", []string{"--target", "v1/Secret", "--namespace", "payments", "--selector", "sync=vault"}},
		{"--style toy-shell", "decorator", []string{"--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service"}},
	} {
		trees := map[string]map[string]string{}
		for _, spelling := range []string{"api", tc.command} {
			dir := t.TempDir()
			r := run(t, dir, nil, false, append(append([]string{"init"}, strings.Fields(tc.init)...), "--name", "sync", "--yes")...)
			require.Equal(t, 0, r.code, r.stderr)
			r = run(t, dir, nil, false, append([]string{"create", spelling}, tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			trees[spelling] = map[string]string{}
			for path, content := range snapshot(t, dir) {
				trees[spelling][strings.TrimPrefix(path, dir)] = content
			}
		}
		assert.Equal(t, trees["api"], trees[tc.command], "create %s writes what create api writes", tc.command)
	}
	dir := initSeed(t)
	r := run(t, dir, nil, false, "create", "watch", "--target", "v1/Secret")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "create watch is for toy-python projects; this project's style is toy-go")
	r = run(t, dir, nil, false, "create", "decorator", "--target", "apps/v1/Deployment")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "create decorator is for toy-shell projects; this project's style is toy-go")
}

// A kind that needs a CRD the cluster may lack says so when it is added:
// the README, written at init, may not.
func TestCreateAPINamesPrerequisites(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	r := run(t, dir, nil, false, "create", "api", "--group", "shop", "--version", "v1", "--kind", "Cart", "--owns", "Service,ServiceMonitor")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\nprerequisite: the cluster needs the CRD servicemonitors.monitoring.coreos.com: install the Prometheus Operator first")
	r = run(t, dir, nil, false, "create", "api", "--group", "shop", "--version", "v1", "--kind", "Order", "--owns", "Service")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "prerequisite: the cluster needs the CRD servicemonitors", "still owned by Cart")
}

func TestEditAPI(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	controller := filepath.Join(dir, "src/database_controller.txt")
	require.NoError(t, os.WriteFile(controller, []byte("reconcile Database, the team's way\n"), 0o644))

	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--field", "backup.schedule:string", "--field", "replicas:int32:min=0:max=9:default=1", "--owns", "Secret")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.Contains(t, r.stdout, "update    src/myapp/v1/database_types.txt")
	b, err := os.ReadFile(controller)
	require.NoError(t, err)
	assert.Equal(t, "reconcile Database, the team's way\n", string(b), "the user's file is kept")
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	db := p.APIs[0]
	assert.Equal(t, []string{"ConfigMap", "Secret"}, db.Owns)
	names := []string{}
	for _, f := range db.Fields {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"engine", "version", "storage", "replicas", "backup.schedule"}, names, "a field defined again stays where it was")
	assert.EqualValues(t, 9, *db.Fields[3].Max)

	// A pre-release version may break, when the user says so.
	require.Equal(t, 0, run(t, dir, nil, false, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache", "--field", "size:int32", "--field", "tier:string").code)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Cache", "--remove-field", "tier")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --remove-field \"tier\": breaks v1alpha1 of Cache, which is served: removing a field drops what objects already stored hold in it; v1alpha1 is a pre-release version: --allow-breaking makes the change anyway\n", r.stderr)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Cache", "--remove-field", "tier", "--allow-breaking")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "opctl: warning: --remove-field \"tier\" breaks v1alpha1 of Cache (allowed, a pre-release version): removing a field drops what objects already stored hold in it\n", r.stderr)
	p, err = scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	require.Len(t, p.APIs[1].Fields, 1)
	assert.Equal(t, "size", p.APIs[1].Fields[0].Name)

	// Owned kinds go as they came, and a field can become an object.
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Cache", "--remove-field", "size", "--field", "size.max:int32", "--allow-breaking")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `--field "size" breaks v1alpha1 of Cache (allowed, a pre-release version): it changes from int32 to an object`)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--remove-owns", "Secret")
	require.Equal(t, 0, r.code, r.stderr)
	p, err = scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Equal(t, []string{"ConfigMap"}, p.APIs[0].Owns)

	// Access the user's code needs: added, given again with other verbs
	// (replacing the rule for that resource), removed.
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--rbac", "secrets:get", "--rbac", "deployments.apps/scale:get,patch")
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--rbac", "secrets:get,list,watch", "--remove-rbac", "deployments.apps/scale")
	require.Equal(t, 0, r.code, r.stderr)
	p, err = scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Equal(t, []string{"secrets:get,list,watch"}, p.APIs[0].RBAC)
}

// A file of the team's that opctl now writes otherwise gets opctl's change
// merged into it; where the team changed the lines opctl's change touches,
// the file is kept, the note shows the change, and the command fails.
func TestEditAPIMergesIntoTheTeamsFiles(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	sample, defaults := filepath.Join(dir, "test/conformance/database/sample.yaml"), filepath.Join(dir, "test/conformance/database/engine-postgres.yaml")
	replace(t, sample, "description: The sample in config/samples.\n", "description: The sample, as the team describes it.\n")
	replace(t, defaults, "    engine: postgres\n", "    engine: postgres # the team's engine\n")

	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--field", "backup.schedule:string")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "merge     test/conformance/database/sample.yaml (yours, changed by you: merged with what opctl writes now)\n")
	b, err := os.ReadFile(sample)
	require.NoError(t, err)
	assert.Contains(t, string(b), "description: The sample, as the team describes it.\n")
	assert.Contains(t, string(b), "    backup:\n      schedule: example\n")
	assert.Contains(t, r.stdout, "note: test/conformance/database/engine-postgres.yaml is yours, and you changed the lines opctl's change touches: it is kept; add this change by hand:\n")
	assert.Contains(t, r.stdout, "+    backup:\n")
	b, err = os.ReadFile(defaults)
	require.NoError(t, err)
	assert.Contains(t, string(b), "    engine: postgres # the team's engine\n")
	assert.NotContains(t, string(b), "backup")
	assert.Equal(t, "opctl: opctl's change is not in test/conformance/database/engine-postgres.yaml: you changed the lines it touches; add it by hand as the notes above show\n", r.stderr)
}

// replace replaces old, which file must hold, with new.
func replace(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(b), old)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}

// A new version keeps the one before it served as it was, with its own
// conformance cases; the new one is the storage version.
func TestEditAPINewVersion(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--field", "tier:string:default=standard", "--remove-field", "version", "--field", "version:string:default=latest")
	assert.Equal(t, 2, r.code, "version, without a default in v1, would be lost")
	assert.Contains(t, r.stderr, `--field "version": v2 of Database cannot be converted from v1 by the API server alone (None conversion): from v1 to v2 it gets the default "latest"`)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--field", "tier:string:default=standard", "--remove-field", "replicas")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "create    src/myapp/v2/database_types.txt")
	assert.Contains(t, r.stdout, "remove    src/myapp/v1/database_types.txt (generated, no longer produced)")
	assert.Contains(t, r.stdout, "create    test/conformance/database/v1/replicas-beyond-max.yaml")
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	db := p.APIs[0]
	assert.Equal(t, "v2", db.Version)
	require.Len(t, db.Served, 1)
	assert.Equal(t, "v1", db.Served[0].Name)
	assert.Len(t, db.Served[0].Fields, 4, "v1 keeps its fields")
	crd, err := os.ReadFile(filepath.Join(dir, "config/crd/bases/myapp.example.com_databases.yaml"))
	require.NoError(t, err)
	assert.Regexp(t, `(?s)name: v2\n.*storage: true\n.*name: v1\n.*storage: false\n`, string(crd))

	// Edits change the new version; the old one stays as it is.
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--remove-field", "tier")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `--remove-field "tier": breaks v2 of Database, which is served`)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v3")
	require.Equal(t, 0, r.code, r.stderr)
	p, err = scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Equal(t, []string{"v1", "v2"}, []string{p.APIs[0].Served[0].Name, p.APIs[0].Served[1].Name})
}

// A new version may rename fields: the kind then converts with the
// operator's webhook, in a style whose runtime serves one; the old
// version's fields keep their names.
func TestEditAPIRenameField(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=flavor", "--field", "tier:string")
	assert.Equal(t, 2, r.code, "tier, without a default, would be lost going down: a rename converts nothing else")
	assert.Contains(t, r.stderr, `--field "tier": v2 of Database cannot be converted from v1`)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=flavor")
	require.Equal(t, 0, r.code, r.stderr)
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	db := p.APIs[0]
	assert.Equal(t, []api.Rename{{From: "engine", To: "flavor"}}, db.Served[0].Renames)
	assert.Equal(t, "engine", db.Served[0].Fields[0].Name)
	assert.Equal(t, "flavor", db.Fields[0].Name)
	assert.True(t, db.Converts())
	crd, err := os.ReadFile(filepath.Join(dir, "config/crd/bases/myapp.example.com_databases.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(crd), "    strategy: Webhook\n")
	assert.Contains(t, string(crd), "cert-manager.io/inject-ca-from: db-operator-system/db-operator-serving-cert\n")

	python := t.TempDir()
	require.Equal(t, 0, run(t, python, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "db-operator", "--yes").code)
	require.Equal(t, 0, run(t, python, nil, false, seedCreate...).code)
	r = run(t, python, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--rename-field", "engine=flavor")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --rename-field: Database renames fields between v1 and v2, which takes a conversion webhook, and toy-python projects cannot serve one: its toy runtime serves no webhooks; without one, a version may differ only by fields with defaults (None conversion), or opctl migrate --to toy-go makes a project that converts\n", r.stderr)
}

// A stable version's field without a default goes in a new version, as
// the refusal to remove it in place says: the conversion webhook keeps its
// values for the older version, where the style serves one; where it
// cannot, both messages say why.
func TestEditAPIRemoveFieldInNewVersion(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--remove-field", "version")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, `opctl: --remove-field "version": breaks v1 of Database, which is served: removing a field drops what objects already stored hold in it; `+
		"v1 is a stable version: remove it in a new version (opctl edit api --kind Database --new-version v2 --remove-field version), whose conversion webhook keeps its values in an annotation for v1 clients\n", r.stderr)
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--remove-field", "version")
	require.Equal(t, 0, r.code, r.stderr)
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	db := p.APIs[0]
	assert.Equal(t, []string{"version"}, db.Served[0].Removed)
	assert.True(t, slices.ContainsFunc(db.Served[0].Fields, func(f api.Field) bool { return f.Name == "version" }))
	assert.False(t, slices.ContainsFunc(db.Fields, func(f api.Field) bool { return f.Name == "version" }))
	assert.True(t, db.Converts())
	assert.Equal(t, "myapp.example.com/removed-in-v2", db.RemovedAnnotation(p.Domain, 0))
	crd, err := os.ReadFile(filepath.Join(dir, "config/crd/bases/myapp.example.com_databases.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(crd), "    strategy: Webhook\n")

	python := t.TempDir()
	require.Equal(t, 0, run(t, python, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "db-operator", "--yes").code)
	require.Equal(t, 0, run(t, python, nil, false, seedCreate...).code)
	r = run(t, python, nil, false, "edit", "api", "--kind", "Database", "--remove-field", "version")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "v1 is a stable version, and a version without a field that has no default takes a conversion webhook to keep its values, which toy-python projects cannot serve: its toy runtime serves no webhooks\n")
	r = run(t, python, nil, false, "edit", "api", "--kind", "Database", "--new-version", "v2", "--remove-field", "version")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "opctl: --remove-field: Database removes version in v2, which has no default: its values, kept in an annotation, come back in v1, which takes a conversion webhook, and toy-python projects cannot serve one: its toy runtime serves no webhooks; without one, a version may differ only by fields with defaults (None conversion), or opctl migrate --to toy-go makes a project that converts\n", r.stderr)
}

// An existing go.mod is kept, so its module path is the project's.
func TestInitTakesTheModuleOfAnExistingGoMod(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644))
	r := run(t, dir, nil, false, "init", "--style", "toy-go", "--domain", "example.com", "--name", "demo", "--yes")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "note: go.mod (module example.com/other) was there already and is kept: run go mod tidy")
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	assert.Equal(t, "example.com/other", p.Repo)
}

func TestBuildVersion(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "v0.3.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false")}, "(devel, commit 0123456789ab)"},
		{&debug.BuildInfo{Settings: settings("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")}, "(devel, commit 0123456789ab, with changes)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, buildVersion(tt.info))
	}
}

// A rule reading an optional field without has() is valid CEL, but
// refuses every object that leaves the field out: create api says so.
func TestUnguardedRuleWarns(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	r := run(t, dir, nil, false, "create", "api", "--group", "myapp", "--version", "v1", "--kind", "Widget",
		"--field", "replicas:int32", "--rule", "self.replicas <= 3#at most 3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "opctl: warning: --rule \"self.replicas <= 3\" reads replicas, which is optional, without has(self.replicas): an object that leaves it out is refused (no such key)\n", r.stderr)
	r = run(t, dir, nil, false, "create", "api", "--group", "myapp", "--version", "v1", "--kind", "Gadget",
		"--field", "replicas:int32", "--rule", "!has(self.replicas) || self.replicas <= 3#at most 3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
}

// A project an opctl before the lock wrote (its hashes in opctl.yaml, an
// earlier pin) upgrades: the pin moves with its note, the hashes move to
// the lock, and opctl.yaml keeps the intent alone.
func TestUpgradeMovesPinsAndHashes(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	project, err := os.ReadFile(filepath.Join(dir, scaffold.ProjectFileName))
	require.NoError(t, err)
	lock, err := os.ReadFile(filepath.Join(dir, scaffold.LockFileName))
	require.NoError(t, err)
	checkout := pins.DefaultVersions().ActionsCheckout
	const older = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2"
	old := strings.Replace(strings.Replace(string(project), "format: 2", "format: 1", 1), checkout, older, 1) +
		strings.SplitN(string(lock), "format: 1\n", 2)[1]
	require.NoError(t, os.WriteFile(filepath.Join(dir, scaffold.ProjectFileName), []byte(old), 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, ".opctl")))

	r := run(t, dir, nil, false, "upgrade")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pin       actionsCheckout: "+older+" -> "+checkout+"\n          note: the workflow's actions move to their Node 24 majors")
	assert.Contains(t, r.stdout, "note      opctl.yaml no longer holds the hashes of the files opctl wrote: .opctl/lock.yaml does")
	upgraded, err := os.ReadFile(filepath.Join(dir, scaffold.ProjectFileName))
	require.NoError(t, err)
	assert.Equal(t, string(project), string(upgraded))
	moved, err := os.ReadFile(filepath.Join(dir, scaffold.LockFileName))
	require.NoError(t, err)
	assert.Equal(t, string(lock), string(moved))

	r = run(t, dir, nil, false, "upgrade")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "pins: already this opctl's")
	assert.NotContains(t, r.stdout, "note")
}

// A watch whose code changes what it sees (a label on each Deployment)
// gets the access it names with --rbac, beside reading its target.
func TestCreateWatchWithAccess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.Equal(t, 0, run(t, dir, nil, false, "init", "--style", "toy-python", "--domain", "example.com", "--name", "labeler", "--yes").code)
	r := run(t, dir, nil, false, "create", "api", "--target", "apps/v1/Deployment", "--rbac", "deployments.apps:patch")
	require.Equal(t, 0, r.code, r.stderr)
	p, err := scaffold.LoadProject(dir, toyStyles())
	require.NoError(t, err)
	require.Len(t, p.Watches, 1)
	assert.Equal(t, []string{"deployments.apps:patch"}, p.Watches[0].RBAC)
	role, err := os.ReadFile(filepath.Join(dir, "config/rbac/role.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(role), "- apiGroups:\n  - apps\n  resources:\n  - deployments\n  verbs:\n  - get\n  - list\n  - patch\n  - watch\n")
	api, err := os.ReadFile(filepath.Join(dir, "API.md"))
	require.NoError(t, err)
	assert.Contains(t, string(api), "in every namespace: reads them, and your code may deployments.apps:patch, no CRD.")
}
