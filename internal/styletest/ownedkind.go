//go:build e2e

package styletest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// checkOwnedKindAdded: with every file of the user's changed (a comment
// added to each one that takes comments, as a team's work would change
// them) and Secret added to the Database's owned kinds with opctl edit
// api, the operator, started again, gives a Database the
// Secret its new builder makes, and Ready; every line the user changed
// stays (a file opctl's change concerns, such as a test expecting the
// children, gets it merged in; the conformance cases, still as opctl wrote
// them, follow the project).
func checkOwnedKindAdded(t *testing.T, cluster *Cluster, dir, ns string, run Runner) {
	before, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	changed := map[string][]byte{}
	for file := range before.Starters {
		if strings.HasPrefix(file, render.ConformanceDir+"/") {
			continue
		}
		if b, ok := withComment(t, filepath.Join(dir, file)); ok {
			changed[file] = b
		}
	}
	require.NotEmpty(t, changed)
	MustRun(t, dir, "edit", "api", "--kind", "Database", "--owns", "Secret")

	after, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for file, want := range changed {
		got, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		text := strings.TrimRight(string(want), "\n")
		comment := text[strings.LastIndex(text, "\n")+1:]
		assert.Contains(t, string(got), comment, "%s is the user's: edit api keeps their lines", file)
	}
	var added []string
	for file := range after.Starters {
		if _, ok := before.Starters[file]; !ok && !strings.HasPrefix(file, render.ConformanceDir+"/") {
			added = append(added, file)
		}
	}
	require.NotEmpty(t, added, "no file of the user's holds the Secret's builder")
	t.Logf("the Secret's builder: %v", added)

	cluster.applyRBAC(t, dir)
	kubeconfig := cluster.ServiceAccountKubeconfig(t, after.Namespace(), after.Name+"-controller-manager")
	defer run(t, dir, kubeconfig, cluster.AdminKubeconfig(t)).Stop()
	i := slices.IndexFunc(after.APIs, func(a api.API) bool { return a.Kind == "Database" })
	cr := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	cr.SetName("with-secret")
	require.NoError(t, cluster.Client.Create(context.Background(), cr))
	t.Cleanup(func() { _ = cluster.Client.Delete(context.Background(), cr) })
	kinds := map[any]bool{}
	for _, c := range render.DesiredChildren(after, after.APIs[i], cr.Object) {
		kinds[c["kind"]] = true
	}
	require.True(t, kinds["Secret"], "the reference gives the Database no Secret")
	waitConverged(t, cluster.Client, after, after.APIs[i], cr, "the Database's ConfigMap and its new Secret, and Ready")
}
