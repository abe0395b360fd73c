//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// Runner starts a style's reconcile logic for the project in dir against
// the test API server; its Stop checks what the logic logged. kubeconfig authenticates as the project's ServiceAccount,
// admin as a cluster admin (what Metacontroller runs as).
//
// A Runner imitates the runtime the project targets (the real ones cannot
// be installed here; make test-runtimes runs them): it does what the
// runtime really does against the API server — the same requests, with the
// same account and the same validation — so a project the runtime would
// reject fails here too.
type Runner func(t *testing.T, dir, kubeconfig, admin string) *Process

// Check is a further check of E2E on the seed project in dir, on cluster,
// run after the reconcile checks (the reconciler stopped).
type Check func(t *testing.T, cluster *Cluster, dir string)

// E2E proves the style's seed project, as opctl migrate writes it from the
// style before (migratedSeedWithOther), on a real kube-apiserver and etcd
// built from the Go module proxy (make test-e2e): its CRD, schema and
// conformance cases, its manifests under restricted Pod Security, and its
// reconcile logic started by run, the conformance cases included. Each of
// extra then runs as further checks.
func E2E(t *testing.T, style scaffold.Style, run Runner, extra ...Check) {
	cluster := StartAPIServer(t, "make test-e2e")
	c := cluster.Client
	ctx := context.Background()
	dir := migratedSeedWithOther(t, style)
	t.Run("every style's project migrated to this style is the one run here", func(t *testing.T) {
		checkEveryMigration(t, style, dir)
	})
	p, crdPath := cluster.installCRD(t, dir)

	ns := "e2e-" + style.Name
	restricted := "e2e-" + style.Name + "-restricted"
	cluster.CreateNamespace(t, ns, false)
	cluster.CreateNamespace(t, restricted, true)

	t.Run("schema", func(t *testing.T) {
		sample := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
		sample.SetNamespace(ns)
		sample.SetName("schema-check")
		require.NoError(t, c.Create(ctx, sample), "the sample must be accepted")
		assert.Empty(t, conformanceCasesFailing(ctx, t, c, dir, ns), "the conformance cases: invalid resources rejected, the others stored as given")
	})

	t.Run("a list of objects keeps the objects two field managers apply", func(t *testing.T) {
		checkListMerge(t, c, p, ns)
	})

	t.Run("kubectl scale sets the replicas through the scale subresource", func(t *testing.T) {
		tools.RequireTools(t, "kubectl", "kubectl")
		checkScale(t, cluster, p, ns)
	})

	t.Run("manifests pass restricted Pod Security with zero warnings", func(t *testing.T) {
		warnings := cluster.DryRunManifests(t, dir, restricted)
		assert.Empty(t, warnings)
		// The check can fail: an unhardened Deployment draws warnings.
		bare := ReadObjects(t, filepath.Join(dir, "config/manager/manager.yaml"))[1]
		bare.SetNamespace(restricted)
		unstructured.RemoveNestedField(bare.Object, "spec", "template", "spec", "securityContext")
		containers, _, _ := unstructured.NestedSlice(bare.Object, "spec", "template", "spec", "containers")
		delete(containers[0].(map[string]any), "securityContext")
		require.NoError(t, unstructured.SetNestedSlice(bare.Object, containers, "spec", "template", "spec", "containers"))
		assert.NotEmpty(t, cluster.dryRun(t, restricted, bare), "Pod Security warnings are not reported: the zero-warning check would prove nothing")
	})

	t.Run("the Helm chart's objects pass restricted Pod Security with zero warnings", func(t *testing.T) {
		assert.Empty(t, cluster.DryRunChart(t, dir, restricted, nil))
	})

	t.Run("make build-installer's dist/install.yaml passes restricted Pod Security with zero warnings", func(t *testing.T) {
		assert.Empty(t, cluster.DryRunInstaller(t, dir, restricted))
	})

	t.Run("make deploy IMG=... applies config/ with that image, tag or digest, accepted by the API server", func(t *testing.T) {
		for _, img := range []string{"registry.example/x:1", "registry.example/x@sha256:" + strings.Repeat("0a", 32)} {
			warnings, images := cluster.DryRunDeploy(t, dir, restricted, img)
			assert.Empty(t, warnings)
			assert.Equal(t, []string{img}, images, "the images of the Deployments make deploy applies")
		}
	})

	if style.Runtime(p).Metrics != nil {
		t.Run("the opt-in metrics Service, NetworkPolicy and ServiceMonitor are accepted", func(t *testing.T) {
			// The ServiceMonitor CRD is installed: Other owns a ServiceMonitor.
			on := map[string]any{"enabled": true}
			values := map[string]any{"metrics": map[string]any{"service": on, "networkPolicy": on, "serviceMonitor": on}}
			assert.Empty(t, cluster.DryRunChart(t, dir, restricted, values))
			kinds := map[string]bool{}
			for _, o := range RenderChart(t, dir, p.Name, restricted, values) {
				kinds[o.GetKind()] = true
			}
			assert.True(t, kinds["NetworkPolicy"] && kinds["ServiceMonitor"], "kinds: %v", kinds)
		})
	}

	t.Run("reconcile", func(t *testing.T) {
		cluster.applyRBAC(t, dir)
		kubeconfig := cluster.ServiceAccountKubeconfig(t, p.Namespace(), p.Name+"-controller-manager")
		operator := run(t, dir, kubeconfig, cluster.AdminKubeconfig(t))
		defer operator.Stop() // a failed check: stop it and report what it said
		checkReconcile(t, c, dir, ns)
		t.Run("the project's own test/e2e/run.sh passes against the running operator", func(t *testing.T) {
			scriptNS := "e2e-" + style.Name + "-script"
			cluster.RunE2EScript(t, dir, "E2E_NAMESPACE="+scriptNS)
			// This API server runs no namespace controller: the resources
			// run.sh leaves in the namespace it deletes would stay, and a
			// later run of the operator would reconcile them there.
			for _, a := range p.APIs {
				obj := &unstructured.Unstructured{}
				obj.SetAPIVersion(a.FullGroup(p.Domain) + "/" + a.Version)
				obj.SetKind(a.Kind)
				require.NoError(t, c.DeleteAllOf(ctx, obj, client.InNamespace(scriptNS)))
			}
		})
		operator.Stop()
		// Deletion never waits for the operator (no finalizer of its own):
		// with the operator stopped, a resource is gone at once.
		cr := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
		cr.SetNamespace(ns)
		require.NoError(t, c.Delete(ctx, cr))
		WaitFor(t, "the resource to be deleted with the operator stopped", func() (bool, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(cr), cr)
			if err == nil && len(cr.GetFinalizers()) > 0 {
				return false, fmt.Errorf("finalizers %v hold the deletion until the operator runs", cr.GetFinalizers())
			}
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
	})

	t.Run("an owned kind added with edit api reaches the operator, no file of the user's touched", func(t *testing.T) {
		checkOwnedKindAdded(t, cluster, dir, ns, run)
	})

	for _, check := range extra {
		check(t, cluster, dir)
	}

	t.Run("schema checks catch a broken CRD", func(t *testing.T) {
		crd := ReadObjects(t, crdPath)[0]
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(crd), crd))
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		unstructured.RemoveNestedField(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties", "engine", "enum")
		require.NoError(t, unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"))
		require.NoError(t, c.Update(ctx, crd))
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			return len(conformanceCasesFailing(ctx, t, c, dir, ns)) > 0, nil
		})
		require.NoError(t, err, "with the enum removed the conformance cases must report a failure")
		assert.Equal(t, []string{`database/engine-not-in-enum.yaml: accepted`}, conformanceCasesFailing(ctx, t, c, dir, ns))
	})
}

// RunE2EScript runs the project's test/e2e/run.sh in dir against the
// operator running already (E2E_DEPLOY=0), as the kind job of its workflow
// does after installing the chart, with env added: it must pass.
func (c *Cluster) RunE2EScript(t *testing.T, dir string, env ...string) {
	t.Helper()
	tools.RequireTools(t, "kubectl", "kubectl")
	cmd := exec.Command("bash", render.E2EScriptPath)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+c.AdminKubeconfig(t), "E2E_DEPLOY=0", "TIMEOUT=120s"), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "e2e: passed")
}
