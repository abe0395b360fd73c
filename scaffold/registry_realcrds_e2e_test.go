//go:build e2e

package scaffold_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opctl/opctl/internal/realcrds"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/api"
)

// TestE2EImportedCRDs: on a real API server, the CRD opctl writes for a
// kind taken from each real operator's CRD is accepted, and so is the
// kind's sample, as opctl writes it into config/samples.
func TestE2EImportedCRDs(t *testing.T) {
	cluster := styletest.StartAPIServer(t, "make test-e2e")
	cluster.CreateNamespace(t, "imported", false)
	files := realcrds.Fetch(t, realcrds.All())
	for _, c := range realcrds.All() {
		t.Run(c.Kind, func(t *testing.T) {
			orig, err := scaffold.LoadCRD(files[c.Kind], c.Kind)
			require.NoError(t, err)
			a, err := api.FromCRD(orig, "", "example.com")
			require.NoError(t, err)
			crd := api.BuildCRD("example.com", a)
			_, err = envtest.InstallCRDs(cluster.Config, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}})
			require.NoError(t, err, "the API server refuses opctl's CRD of %s", c.Kind)
			sample, err := api.BuildSample("example.com", a)
			require.NoError(t, err)
			obj := &unstructured.Unstructured{Object: sample}
			if a.Namespaced {
				obj.SetNamespace("imported")
			}
			require.NoError(t, cluster.Client.Create(context.Background(), obj), "the API server refuses the sample of %s", c.Kind)
		})
	}
}
