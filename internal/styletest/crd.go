//go:build e2e

package styletest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// installCRD installs the CRDs of the project in dir, which the API
// server must accept, and returns the project and the path of the first
// kind's CRD. At cleanup the CRDs are deleted and must be gone within a
// minute: deleting one deletes its resources, so a finalizer left on one
// would hold it.
func (c *Cluster) installCRD(t *testing.T, dir string) (scaffold.Project, string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	var paths []string
	for _, a := range p.APIs {
		paths = append(paths, filepath.Join(dir, render.CRDPath(p, a)))
	}
	// A CRD installed already (a check run within another on the same
	// kind) is updated, and left for the one that made it to delete.
	var made []string
	for _, path := range paths {
		crd := ReadObjects(t, path)[0]
		if err := c.Client.Get(context.Background(), client.ObjectKeyFromObject(crd), crd); apierrors.IsNotFound(err) {
			made = append(made, path)
		}
	}
	_, err = envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: paths})
	require.NoError(t, err, "the CRDs must be accepted")
	for _, pre := range p.ChildPrerequisites() {
		// The only owned kind that is not built in.
		require.Equal(t, "servicemonitors.monitoring.coreos.com", pre.CRD, "no CRD for the prerequisite")
		c.InstallServiceMonitorCRD(t)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, path := range made {
			crd := ReadObjects(t, path)[0]
			require.NoError(t, c.Client.Delete(ctx, crd))
			WaitFor(t, "the CRD to be deleted", func() (bool, error) {
				err := c.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd)
				return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
			})
		}
	})
	return p, paths[0]
}

// installProject installs what the project in dir deploys besides its
// manager, its CRDs and its access rules, and returns the project, its first
// kind's CRD and a kubeconfig of the manager's service account, with which a
// runtime runs as it would in the cluster.
func (c *Cluster) installProject(t *testing.T, dir string) (p scaffold.Project, crdPath, kubeconfig string) {
	p, crdPath = c.installCRD(t, dir)
	c.applyRBAC(t, dir)
	return p, crdPath, c.ServiceAccountKubeconfig(t, p.Namespace(), p.Name+"-controller-manager")
}
