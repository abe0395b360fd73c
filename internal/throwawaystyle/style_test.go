package throwawaystyle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/cmd"
	"github.com/opctl/opctl/cmd/cmdutil"
	"github.com/opctl/opctl/internal/styletest/seed"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/styles"
)

// Adding a style takes its folder and one line in the registry: with this
// folder's style appended to a copy of the registry, and nothing else
// changed, the registry passes its checks and every command serves the
// style: styles and decide list it, init and create api write its
// project (the CRD, RBAC, Deployment, chart and bundle of the engine, its
// own files), whose make test passes, generate keeps it, and migrate
// moves a project of another style to it.
func TestAddingAStyle(t *testing.T) {
	registry := append(styles.All(), Style()) // the registry line
	require.NoError(t, registry.Check())

	run := func(dir string, args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		env := cmdutil.Env{IO: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Dir: dir, Styles: registry}
		require.Equal(t, 0, cmd.Run(args, env), "opctl %s: %s", strings.Join(args, " "), errOut.String())
		return out.String()
	}
	root := t.TempDir()
	assert.Contains(t, run(root, "styles"), "throwaway")
	// decide ranks it with the others (its profile gives a shell team a
	// point and a prototype another: 3 with the maintainers' point).
	assert.Contains(t, run(root, "decide", "--existing", "no", "--new-crd", "yes", "--stage", "prototype", "--language", "shell",
		"--logic", "imperative", "--maintainers", "yes", "-o", "json"), `"style": "throwaway",
      "score": 3`)

	dir := filepath.Join(root, "db-operator")
	require.NoError(t, os.Mkdir(dir, 0o755))
	run(dir, seed.Init("throwaway", false)...)
	run(dir, seed.Create()...)
	assert.Contains(t, run(dir, "generate"), "unchanged")
	for _, path := range []string{"config/crd/bases/myapp.example.com_databases.yaml", "config/rbac/role.yaml", "config/manager/manager.yaml",
		"dist/chart/Chart.yaml", "config/olm/manifests/db-operator.clusterserviceversion.yaml", "test/conformance/database/sample.yaml"} {
		assert.FileExists(t, filepath.Join(dir, path))
	}
	kinds, err := os.ReadFile(filepath.Join(dir, "kinds.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(kinds), "databases.myapp.example.com")
	dockerfile, err := os.ReadFile(filepath.Join(dir, "Dockerfile"))
	require.NoError(t, err)
	assert.Contains(t, string(dockerfile), "FROM "+pins.DefaultVersions().ShellOperatorImage)
	project, err := os.ReadFile(filepath.Join(dir, scaffold.ProjectFileName))
	require.NoError(t, err)
	assert.Contains(t, string(project), "shellOperatorImage:")
	assert.NotContains(t, string(project), "kopf:", "a project records its own style's pins alone")

	make := exec.Command("make", "test")
	make.Dir = dir
	out, err := make.CombinedOutput()
	require.NoError(t, err, "make test in the throwaway project:\n%s", out)

	// A project of another style moves to it.
	kopf := filepath.Join(root, "db-kopf")
	require.NoError(t, os.Mkdir(kopf, 0o755))
	run(kopf, seed.Init("kopf", false)...)
	run(kopf, seed.Create()...)
	run(kopf, "migrate", "--to", "throwaway", "../db-moved")
	crd := "config/crd/bases/myapp.example.com_databases.yaml"
	a, err := os.ReadFile(filepath.Join(kopf, crd))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "db-moved", crd))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "the same CRD, byte for byte")
}
