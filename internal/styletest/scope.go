//go:build e2e

package styletest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// checkNamespaceScope runs the seed project made with --scope namespace,
// told its namespace as the Deployment tells it (WATCH_NAMESPACE): a
// Database there converges; the API server says the operator may list
// Databases there and not in another namespace, where a Database gets no
// child. The project's own test/e2e/run.sh, against that operator, puts
// its sample in the operator's namespace.
func checkNamespaceScope(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	dir := SeedScoped(t, style)
	p, _, kubeconfig := cluster.installProject(t, dir)
	own, other := p.Namespace(), "scope-other-"+style.Name
	cluster.CreateNamespace(t, other, false)
	t.Setenv(scaffold.WatchNamespaceEnv, own)
	suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))
	a := p.APIs[0]
	cluster.assertMayList(t, p, a.FullGroup(p.Domain), a.Plural, map[string]bool{own: true, other: false})
	sample := ReadObjects(t, filepath.Join(dir, render.SamplePath(p, a)))[0]
	outside := sample.DeepCopy()
	outside.SetNamespace(other)
	require.NoError(t, c.Create(ctx, outside))
	inside := sample.DeepCopy()
	inside.SetNamespace(own)
	require.NoError(t, c.Create(ctx, inside))
	WaitWithin(t, 2*time.Minute, "the Database in the operator's namespace Ready", func() (bool, error) { return ready(ctx, c, inside) })
	var cm corev1.ConfigMap
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: own, Name: inside.GetName() + "-configmap"}, &cm))
	// The one inside converged after the one outside was created: a
	// runtime that saw it would have made its child by now.
	err := c.Get(ctx, client.ObjectKey{Namespace: other, Name: outside.GetName() + "-configmap"}, &cm)
	assert.True(t, apierrors.IsNotFound(err), "the Database in namespace %s has a child: %v", other, err)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(outside), outside))
	_, reported := outside.Object["status"]
	assert.False(t, reported, "the Database in namespace %s has a status: %v", other, outside.Object["status"])
	// The sample again (the one inside): where run.sh puts it, it
	// converges only in the operator's namespace.
	cluster.RunE2EScript(t, dir)
}
