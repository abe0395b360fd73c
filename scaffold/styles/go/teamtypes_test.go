//go:build generated

package golang_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/styles"
	golang "github.com/opctl/opctl/scaffold/styles/go"
)

// handFields are fields a team adds to ClusterSpec by hand, as it would in
// kubebuilder: a marker-validated string and a struct of its own holding
// a Kubernetes type.
const handFields = `

	// Tier is the service tier the cluster is billed at.
	// +kubebuilder:validation:Enum=gold;silver
	// +kubebuilder:default=silver
	// +optional
	Tier string ` + "`json:\"tier,omitempty\"`" + `

	// Maintenance says when the cluster may be taken down for upkeep.
	// +optional
	Maintenance *MaintenanceWindow ` + "`json:\"maintenance,omitempty\"`" + `
`

const handStruct = `
// MaintenanceWindow is when and with what a cluster is maintained.
type MaintenanceWindow struct {
	// Schedule is a cron schedule.
	// +kubebuilder:validation:MinLength=1
	Schedule string ` + "`json:\"schedule\"`" + `
	// Volumes are mounted into the maintenance job.
	// +optional
	Volumes []corev1.Volume ` + "`json:\"volumes,omitempty\"`" + `
}
`

// TestTypesAreTheTeams: the types are the team's, as in kubebuilder. Fields
// added by hand to cluster_types.go, then make manifests (controller-gen)
// and opctl generate: opctl.yaml, the CRD, chart, bundle and API docs have
// them, the types file is as the team left it, the project builds and its
// tests pass; a second round changes nothing, and edit api merges a new
// field into the types where the team did not change the lines.
func TestTypesAreTheTeams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated Go project; run without -short (make test does)")
	}
	controllerGen := buildControllerGen(t)
	dir := styletest.Seed(t, golang.Style())
	styletest.AddCluster(t, dir)
	typesPath := filepath.Join(dir, "api/db/v1/cluster_types.go")
	b, err := os.ReadFile(typesPath)
	require.NoError(t, err)
	types := string(b)
	end := strings.Index(types[strings.Index(types, "type ClusterSpec struct {"):], "\n}\n") + strings.Index(types, "type ClusterSpec struct {")
	types = types[:end] + handFields + types[end:] + handStruct
	require.NoError(t, os.WriteFile(typesPath, []byte(types), 0o644))

	tools.ExecIn(t, dir, "make", "manifests", "CONTROLLER_GEN="+controllerGen)
	r := styletest.Run(t, dir, "generate")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Regexp(t, `taken back: Cluster from config/crd/bases/db\.[a-z.]+_clusters\.yaml`, r.Stdout)

	b, err = os.ReadFile(typesPath)
	require.NoError(t, err)
	assert.Equal(t, types, string(b), "opctl generate changed the team's types")
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	fields := map[string]api.Field{}
	for _, a := range p.APIs {
		if a.Kind == "Cluster" {
			for _, f := range a.Fields {
				fields[f.Name] = f
			}
		}
	}
	assert.Equal(t, []string{"gold", "silver"}, fields["tier"].Enum)
	assert.Equal(t, "Tier is the service tier the cluster is billed at.", fields["tier"].Description)
	assert.Equal(t, api.FieldType("[]core/v1.Volume"), fields["maintenance.volumes"].Type)
	assert.True(t, fields["maintenance.schedule"].Required)
	// The fields opctl wrote keep their descriptions: none, though
	// controller-gen wrote the doc comments opctl gave them.
	assert.Empty(t, fields["parameters"].Description)
	for _, pattern := range []string{"config/crd/bases/db.*_clusters.yaml", "dist/chart/templates/crds/db.*_clusters.yaml",
		"config/olm/manifests/*.clusterserviceversion.yaml", "API.md"} {
		paths, err := filepath.Glob(filepath.Join(dir, pattern))
		require.NoError(t, err)
		require.Len(t, paths, 1, pattern)
		path := paths[0]
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Contains(t, string(b), "tier", path)
		assert.Contains(t, string(b), "maintenance", path)
	}

	// The project builds, with the deep copies controller-gen writes, and
	// its tests pass: the conformance cases its code reconciles are kept
	// with the team's types.
	tools.ExecIn(t, dir, "make", "generate", "CONTROLLER_GEN="+controllerGen)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		tools.ExecIn(t, dir, "go", args...)
	}

	// A second round takes back the same kind: nothing changes.
	before := readFiles(t, dir)
	tools.ExecIn(t, dir, "make", "manifests", "CONTROLLER_GEN="+controllerGen)
	styletest.MustRun(t, dir, "generate")
	assert.Equal(t, before, readFiles(t, dir), "a second make manifests and opctl generate changed the project")

	// edit api merges its field into the types, away from the team's lines.
	styletest.MustRun(t, dir, "edit", "api", "--kind", "Cluster", "--status-field", "endpoint:string")
	b, err = os.ReadFile(typesPath)
	require.NoError(t, err)
	assert.Contains(t, string(b), "Endpoint string `json:\"endpoint,omitempty\"`")
	assert.Contains(t, string(b), handFields)
	assert.Contains(t, string(b), handStruct)
	tools.ExecIn(t, dir, "make", "generate", "CONTROLLER_GEN="+controllerGen)
	tools.ExecIn(t, dir, "go", "test", "./...")
}

// readFiles is every file under dir, by path.
func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = string(b)
		return err
	}))
	return out
}
