package styletest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// Seed writes the seed example (package seed) in style into a new
// directory and returns it.
func Seed(t *testing.T, style scaffold.Style) string {
	t.Helper()
	dir := t.TempDir()
	MustRun(t, dir, seed.Init(style.Name, style.ModulePath)...)
	MustRun(t, dir, seed.Create()...)
	return dir
}

// SeedScoped is the seed example, namespace-scoped (init --scope
// namespace): its operator sees the namespace it runs in alone.
func SeedScoped(t *testing.T, style scaffold.Style) string {
	t.Helper()
	dir := t.TempDir()
	MustRun(t, dir, append(seed.Init(style.Name, style.ModulePath), "--scope", scaffold.ScopeNamespace)...)
	MustRun(t, dir, seed.Create()...)
	return dir
}

// seedWithOther is the seed example with a second kind, Other (group
// other), owning a child of every kind but Secret, StatefulSet and Job,
// with a field for each value of scaffold.TrickySpec a schema can hold, a
// map, and the conventional fields (otherSpec): the checks show that one
// kind's failure holds up no other kind, and that the children hold the
// tricky values byte for byte, follow the conventions and converge
// exactly; a list of objects keyed by name; its own status fields, one
// the starter sets; a scale subresource. A third kind is the
// scenario's Microservice (seed.Microservice), a fourth Backfill, owning
// a Job (seed.Backfill).
func seedWithOther(t *testing.T, style scaffold.Style) string {
	t.Helper()
	dir := Seed(t, style)
	MustRun(t, dir, "create", "api", "--group", "other", "--version", "v1", "--kind", "Other",
		"--field", "count:int32", "--field", "flag:bool", "--field", "text:string",
		"--field", "html:[]string", "--field", "utf8:[]string", "--field", "quotes:[]string",
		"--field", "lines:[]string", "--field", "empty:[]string", "--field", "ports:[]int32", "--field", "surge:int-or-string",
		"--field", "type:string", "--field", "import:string", "--field", "range.func:int32",
		"--field", "nested.k:string", "--field", "nested.deeper.list:[]string",
		"--field", "labels:map[string]string", "--field", "image:string", "--field", "port:int32",
		"--field", "replicas:int32", "--field", "maxReplicas:int32", "--field", "host:string", "--field", "schedule:string",
		"--field", "env:map[string]string", "--field", "resources.requests:map[string]string", "--field", "resources.limits:map[string]string",
		"--field", "users[].name:string:required", "--field", "users[].roles:[]string",
		"--status-field", "endpoint:string:column", "--status-field", "readyReplicas:int32", "--scale-replicas", "replicas",
		"--owns", "ConfigMap,Deployment,Service,PodDisruptionBudget,NetworkPolicy,HorizontalPodAutoscaler,Ingress,CronJob,ServiceMonitor")
	// A second version, v1 still served: the checks create Others of both.
	MustRun(t, dir, "edit", "api", "--kind", "Other", "--new-version", "v2", "--field", "tier:string:default=standard")
	MustRun(t, dir, seed.Microservice()...)
	MustRun(t, dir, seed.Backfill()...)
	return dir
}

// migratedSeedWithOther is seedWithOther written in the style before style
// (in the registry's order, among the styles with kinds of their own) and
// moved to style with opctl migrate, conformance cases and all: the e2e
// suite runs each style's project as migrate writes it, and cmd's
// TestMigrateEveryPair shows that is what init and create api write, for
// every pair.
func migratedSeedWithOther(t *testing.T, style scaffold.Style) string {
	t.Helper()
	own := stylesWithKinds()
	i := slices.IndexFunc(own, func(s scaffold.Style) bool { return s.Name == style.Name })
	require.NotEqual(t, -1, i, "%s has no kinds of its own", style.Name)
	from := own[(i+len(own)-1)%len(own)]
	dir := filepath.Join(t.TempDir(), style.Name)
	MustRun(t, seedWithOther(t, from), "migrate", "--to", style.Name, dir)
	t.Logf("the project: seedWithOther in %s, migrated to %s", from.Name, style.Name)
	return dir
}

// checkEveryMigration: seedWithOther written in every other style with
// kinds of its own and moved to style with opctl migrate is, file for
// file, the project in dir (migratedSeedWithOther's): what the e2e suite
// runs on the real API server is what each of those migrations writes.
func checkEveryMigration(t *testing.T, style scaffold.Style, dir string) {
	t.Helper()
	want := relativeSnapshot(t, dir)
	for _, from := range stylesWithKinds() {
		if from.Name == style.Name {
			continue
		}
		t.Run(from.Name+" to "+style.Name, func(t *testing.T) {
			migrated := filepath.Join(t.TempDir(), style.Name)
			MustRun(t, seedWithOther(t, from), "migrate", "--to", style.Name, migrated)
			assert.Equal(t, want, relativeSnapshot(t, migrated))
		})
	}
}

// stylesWithKinds are the registry's styles with kinds of their own, in
// its order.
func stylesWithKinds() []scaffold.Style {
	var out []scaffold.Style
	for _, s := range styles.All() {
		if !s.ExistingKinds {
			out = append(out, s)
		}
	}
	return out
}

// relativeSnapshot is every file under dir by its path from dir.
func relativeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for path, content := range snapshot(t, dir) {
		rel, err := filepath.Rel(dir, path)
		require.NoError(t, err)
		out[filepath.ToSlash(rel)] = content
	}
	return out
}

// otherSpec is a spec of seedWithOther's Other kind: values encodings
// disagree on (HTML characters, non-ASCII, quotes and backslashes,
// newlines, an empty list, nesting), a map with a key only a map can hold
// (a label's, with a slash) and HTML characters in a value, and the
// conventional fields (no image: the checks add it, and the starter's
// command must then go).
func otherSpec() map[string]any {
	return render.RoundTrip(map[string]any{
		"html":   []any{"a&b<c>"},
		"utf8":   []any{"café", "日本"},
		"quotes": []any{`say "hi"`, `back\slash`},
		"lines":  []any{"one\ntwo", "tab\there"},
		"empty":  []any{},
		"text":   "a&b <c> café \"q\"\n",
		"flag":   true,
		"count":  3,
		"nested": map[string]any{"k": "v", "deeper": map[string]any{"list": []any{"x"}}},
		"labels": map[string]any{"a": "1", "b": "x&y <z>", "app.kubernetes.io/part-of": "shop"},
		"port":   9090, "replicas": 2, "maxReplicas": 3,
		"host": "other.example.com", "schedule": "*/5 * * * *",
		// The application's variables: one that is a C identifier, one that
		// is not (Kubernetes takes any printable name without =), and one
		// that takes the place of the SPEC_ variable of spec.text.
		"env": map[string]any{"LOG_LEVEL": "debug", "log-level": "info", "SPEC_TEXT": "replaced"},
		// Quantities the API server writes otherwise (1, 512Mi): no drift.
		"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "0.5Gi"},
			"limits": map[string]any{"cpu": "1000m", "memory": "1Gi"}},
	})
}

// AddCache adds the project tests' second kind to the project in dir:
// Cache in group cache, version v1alpha1, with fields (--field specs),
// owning every child kind, with access to its pods' logs besides.
func AddCache(t *testing.T, dir string, fields ...string) {
	t.Helper()
	args := []string{"create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Cache"}
	for _, f := range fields {
		args = append(args, "--field", f)
	}
	MustRun(t, dir, append(args, "--owns", strings.Join(api.ChildKindNames(), ","), "--short-names", "kv,cch", "--categories", "all,storage",
		"--rbac", "pods/log:get")...)
}

// AddCluster adds the kind Cluster (group db, apitest.ClusterFields) owning a
// Deployment and a ConfigMap, with flags alone.
func AddCluster(t *testing.T, dir string) {
	t.Helper()
	args := []string{"create", "api", "--group", "db", "--version", "v1", "--kind", "Cluster", "--owns", "Deployment,ConfigMap",
		"--rule", "!has(self.backup) || [has(self.backup.s3), has(self.backup.gcs)].exists_one(x, x)#exactly one of backup.s3 and backup.gcs"}
	for _, f := range apitest.ClusterFields() {
		args = append(args, "--field", f)
	}
	MustRun(t, dir, args...)
}

// CacheFields are Cache's fields in the styles that flatten the spec into
// the children: a number, lists, an int-or-string and a nested field with a
// default, the image and port of the children's conventions, then extra.
func CacheFields(extra ...string) []string {
	return append([]string{"size:int64", "tags:[]string", "shards:[]int32", "surge:int-or-string:default=25%", "backup.schedule:string:default=@daily",
		"image:string:default=registry.example.com/cache", "port:int32:default=6379"}, extra...)
}

// CheckPythonProject runs a Python style's generated project's own make
// test and make lint (pytest, pyflakes) on the seed example, then with a
// conformance case added by hand, then with Cache and Cluster added too, and expects
// seedPassed and then bothPassed tests to pass.
func CheckPythonProject(t *testing.T, style scaffold.Style, seedPassed, bothPassed int) {
	t.Helper()
	py := tools.Python(t)
	dir := Seed(t, style)
	assert.Regexp(t, fmt.Sprintf(`(?m)^%d passed`, seedPassed), tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py))
	CheckHandAddedCase(t, dir, "make", "test", "PYTHON="+py)
	AddCache(t, dir, CacheFields()...)
	AddCluster(t, dir)
	assert.Regexp(t, fmt.Sprintf(`(?m)^%d passed`, bothPassed), tools.ExecIn(t, dir, "make", "test", "lint", "PYTHON="+py))
}

// ImportedCRDs is the seed example in style with a kind taken from each
// of crds (create api --from-crd), each real operator's CRD downloaded
// from its module on the Go module proxy.
func ImportedCRDs(t *testing.T, style scaffold.Style, crds []realcrds.CRD) string {
	t.Helper()
	dir := Seed(t, style)
	files := realcrds.Fetch(t, crds)
	for _, c := range crds {
		MustRun(t, dir, "create", "api", "--from-crd", files[c.Kind], "--kind", c.Kind)
	}
	return dir
}
