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
	"github.com/opctl/opctl/scaffold/styles"
)

// installCRD installs the CRD of the seed project in dir, which the API
// server must accept, and returns the project and the CRD's path. At
// cleanup the CRD is deleted and must be gone within a minute: deleting it
// deletes its resources, so a finalizer left on one would hold it.
func (c *Cluster) installCRD(t *testing.T, dir string) (scaffold.Project, string) {
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	path := filepath.Join(dir, scaffold.CRDPath(p, p.APIs[0]))
	_, err = envtest.InstallCRDs(c.Config, envtest.CRDInstallOptions{Paths: []string{path}})
	require.NoError(t, err, "the CRD must be accepted")
	t.Cleanup(func() {
		ctx := context.Background()
		crd := ReadObjects(t, path)[0]
		require.NoError(t, c.Client.Delete(ctx, crd))
		WaitFor(t, "the CRD to be deleted", func() (bool, error) {
			err := c.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd)
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	})
	return p, path
}
