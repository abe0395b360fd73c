package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/apitest"
)

// TestTakeBackOwnCRD takes the seed kind and a kind shaped like a real
// operator's back from the CRDs opctl wrote for them: the project
// changes not at all, opctl.yaml included.
func TestTakeBackOwnCRD(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	cluster := []string{"create", "api", "--group", "db", "--version", "v1", "--kind", "Cluster", "--owns", "Deployment,ConfigMap",
		"--short-names", "cl", "--categories", "all", "--scale-replicas", "replicas", "--field", "replicas:int32:min=1:default=1:column",
		"--status-field", "endpoint:string:column",
		"--rule", "!has(self.backup) || [has(self.backup.s3), has(self.backup.gcs)].exists_one(x, x)#exactly one of backup.s3 and backup.gcs"}
	for _, f := range apitest.ClusterFields() {
		cluster = append(cluster, "--field", f)
	}
	r := run(t, dir, nil, false, cluster...)
	require.Equal(t, 0, r.code, r.stderr)
	before := snapshot(t, dir)
	for kind, crd := range map[string]string{"Database": "config/crd/bases/myapp.example.com_databases.yaml", "Cluster": "config/crd/bases/db.example.com_clusters.yaml"} {
		require.FileExists(t, filepath.Join(dir, crd))
		r := run(t, dir, nil, false, "edit", "api", "--kind", kind, "--from-crd", crd)
		require.Equal(t, 0, r.code, r.stderr)
	}
	after := snapshot(t, dir)
	for path, content := range before {
		assert.Equal(t, content, after[path], "%s changed", path)
	}
	assert.Len(t, after, len(before))
}

// TestTakeBackChangedCRD takes a field added to the CRD by hand into the
// kind, after the fields it had, and refuses a CRD whose change breaks the
// served version.
func TestTakeBackChangedCRD(t *testing.T) {
	t.Parallel()
	dir := initSeed(t)
	require.Equal(t, 0, run(t, dir, nil, false, seedCreate...).code)
	path := filepath.Join(dir, "config/crd/bases/myapp.example.com_databases.yaml")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	added := replaceOnce(t, string(b), "              engine:\n", "              zone:\n                description: Zone is where it runs.\n                type: string\n              engine:\n")
	require.NoError(t, os.WriteFile(path, []byte(added), 0o644))
	r := run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--from-crd", path)
	require.Equal(t, 0, r.code, r.stderr)
	project, err := os.ReadFile(filepath.Join(dir, "opctl.yaml"))
	require.NoError(t, err)
	assert.Regexp(t, `(?s)name: replicas.*name: zone`, string(project), "the new field comes after the kind's own")

	removed := replaceOnce(t, added, "              engine:\n", "              engineX:\n")
	require.NoError(t, os.WriteFile(path, []byte(removed), 0o644))
	r = run(t, dir, nil, false, "edit", "api", "--kind", "Database", "--from-crd", path)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "breaks v1 of Database")
}

// replaceOnce replaces the one occurrence of old in s.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(s, old), "%q in the file once", old)
	return strings.Replace(s, old, new, 1)
}
