//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
)

// RealRuntime starts the project in dir in its style's real runtime, as
// the project's ServiceAccount (kubeconfig) or, for Metacontroller, as a
// cluster admin (admin), and returns the runtime's log so far.
type RealRuntime func(t *testing.T, dir, kubeconfig, admin string, cluster *Cluster) *Process

// RequireEnv fails the test, naming every variable of vars that is not
// set. The real runtimes are not served by the registries this machine
// reaches, so make test-runtimes takes them from the environment.
func RequireEnv(t *testing.T, vars ...string) {
	t.Helper()
	var missing []string
	for _, v := range vars {
		if os.Getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the real runtimes are not given: set %s (docs/real-runtimes.md says how to build them)", strings.Join(missing, ", "))
	}
}

// RuntimeCheck is a style's own check in its real runtime, recorded in
// suite.
type RuntimeCheck func(t *testing.T, cluster *Cluster, suite *Conformance)

// CheckRuntime runs the style's seed project in its real runtime, started
// by start, against a new API server (make test-runtimes), and checks that
// it behaves as every style must, its ConfigMap builder changed by omitting
// to make nothing for OmittingVersion; then each of extra.
func CheckRuntime(t *testing.T, style scaffold.Style, start RealRuntime, omitting BuilderEdit, extra ...RuntimeCheck) {
	cluster := StartAPIServer(t, "make test-runtimes")
	suite := NewConformance(t, style.Name)
	// Each project's runtime stops when its checks end: two ansible-operators
	// cannot run side by side (the kubeconfig of its runs names the proxy at
	// localhost:8888 whatever --proxy-port says).
	t.Run("the seed project", func(t *testing.T) { checkSeed(t, cluster, style, start, omitting, suite) })
	if style.Watches {
		suite.Check(t, "a watch of Secrets in one namespace: the handler's Event on the matching one, none elsewhere, read access there alone where the runtime watches it there alone", func(t *testing.T) {
			CheckWatch(t, cluster, style, func(t *testing.T, dir, kubeconfig, admin string) *Process {
				p := start(t, dir, kubeconfig, admin, cluster)
				suite.Runs(p)
				return p
			})
		})
	}
	if style.CannotScopeNamespace == "" {
		suite.Check(t, "namespace scope: converges in its namespace, may not list the kind in another, leaves one there alone", func(t *testing.T) {
			checkNamespaceScope(t, cluster, style, start, suite)
		})
	}
	for _, check := range extra {
		check(t, cluster, suite)
	}
}

// checkSeed runs the checks of the style's seed project (with a kind of
// another group), its ConfigMap builder changed by omitting, in its real
// runtime.
func checkSeed(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, omitting BuilderEdit, suite *Conformance) {
	c := cluster.Client
	ctx := context.Background()
	dir := seedWithOther(t, style)
	AddCluster(t, dir)
	omitting.Apply(t, dir)
	p, _, kubeconfig := cluster.installProject(t, dir)
	ns := "rt-" + style.Name
	cluster.CreateNamespace(t, ns, false)
	suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))

	cr := ReadObjects(t, filepath.Join(dir, "config/samples/myapp_v1_database.yaml"))[0]
	cr.SetNamespace(ns)
	child := &unstructured.Unstructured{}
	child.SetAPIVersion("v1")
	child.SetKind("ConfigMap")
	key := client.ObjectKey{Namespace: ns, Name: cr.GetName() + "-configmap"}
	converged := func(version string) func() (bool, error) {
		return func() (bool, error) {
			if err := c.Get(ctx, key, child); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			if v, _, _ := unstructured.NestedString(child.Object, "data", "version"); v != version {
				return false, nil
			}
			return ready(ctx, c, cr)
		}
	}
	require.NoError(t, c.Create(ctx, cr))
	if !suite.Check(t, "children created, one controller ownerReference", func(t *testing.T) {
		WaitFor(t, "the ConfigMap child and Ready", converged("example"))
		RequireOneControllerRef(t, child, cr)
	}) {
		return
	}
	suite.Check(t, "Ready and observedGeneration (resource and condition)", func(t *testing.T) {
		ok, err := ready(ctx, c, cr)
		require.NoError(t, err)
		assert.True(t, ok)
		assert.Equal(t, "Reconciled", readyReason(cr))
	})
	suite.Check(t, "same ConfigMap data and status fields in every style", func(t *testing.T) {
		data, _, _ := unstructured.NestedStringMap(child.Object, "data")
		assert.Equal(t, map[string]string{"engine": "mysql", "replicas": "1", "storage": "1Gi", "version": "example"}, data)
		status, _, _ := unstructured.NestedMap(cr.Object, "status")
		conditions, _ := status["conditions"].([]any)
		require.Len(t, conditions, 1)
		cond := conditions[0].(map[string]any)
		delete(cond, "lastTransitionTime")
		b, _ := yaml.Marshal(status)
		assert.Equal(t, "conditions:\n- message: all children are up to date\n  observedGeneration: 1\n  reason: Reconciled\n  status: \"True\"\n  type: Ready\nobservedGeneration: 1\n", string(b))
	})
	suite.Check(t, "spec change followed within 60 s", func(t *testing.T) {
		updateSpec(t, c, cr, func(spec map[string]any) { spec["version"] = "8.0" })
		WaitWithin(t, time.Minute, "the child to follow the spec change", converged("8.0"))
	})
	suite.Check(t, "a field removed from the spec leaves the child", func(t *testing.T) {
		updateSpec(t, c, cr, func(spec map[string]any) { delete(spec, "storage") })
		WaitFor(t, "storage to leave the child", func() (bool, error) {
			if ok, err := converged("8.0")(); !ok || err != nil {
				return ok, err
			}
			_, found, _ := unstructured.NestedString(child.Object, "data", "storage")
			return !found, nil
		})
	})
	suite.Check(t, "a deleted child is made again", func(t *testing.T) {
		require.NoError(t, c.Get(ctx, key, child))
		old := child.GetUID()
		require.NoError(t, c.Delete(ctx, child))
		WaitFor(t, "the child to be made again", func() (bool, error) {
			if ok, err := converged("8.0")(); !ok || err != nil {
				return ok, err
			}
			return child.GetUID() != old, nil
		})
	})
	suite.Check(t, "a builder that makes nothing: no child, the one made before deleted, Ready; made again once it builds one", func(t *testing.T) {
		updateSpec(t, c, cr, func(spec map[string]any) { spec["version"] = OmittingVersion })
		WaitFor(t, "the child to be deleted, and Ready", func() (bool, error) {
			if err := c.Get(ctx, key, child); !apierrors.IsNotFound(err) {
				return false, client.IgnoreNotFound(err)
			}
			return ready(ctx, c, cr)
		})
		updateSpec(t, c, cr, func(spec map[string]any) { spec["version"] = "8.0" })
		WaitFor(t, "the child to be made again", converged("8.0"))
	})
	suite.Check(t, "the conformance cases: invalid resources rejected, the others stored as given", func(t *testing.T) {
		assert.Empty(t, conformanceCasesFailing(ctx, t, c, dir, ns))
	})
	suite.Check(t, "children converge exactly: tricky values byte for byte, a map key added and removed, env order no drift", func(t *testing.T) {
		checkConvergence(t, c, dir, ns)
	})
	if m := style.Runtime(p).Metrics; m != nil && m.Secure {
		suite.Check(t, "metrics over HTTPS (HTTP/1.1 only), to authenticated and authorized readers only", func(t *testing.T) {
			cluster.checkSecureMetrics(t, p, ns)
		})
	}
	suite.SteadyState(t, c, child, cr)
	suite.Check(t, "a refused child: its other child applied, Ready=False ChildrenPending in one line, no other resource held up", func(t *testing.T) {
		checkRefusedChild(t, c, dir, ns)
	})
	suite.Check(t, "the conformance cases get their children and Ready", func(t *testing.T) {
		checkCases(t, c, dir, ns)
	})
	suite.Check(t, "a Job made from an earlier spec: left as it is, Ready=False ChildOutdated; once deleted, made again from the new spec", func(t *testing.T) {
		checkBackfill(t, c, ns)
	})
	suite.Check(t, "a kind shaped like a real operator's: the Deployment's pods take the spec's resources, env, tolerations, affinity and node selector", func(t *testing.T) {
		checkClusterPods(t, c, dir, ns)
	})
}

// checkBackfill: a Backfill (seed.Backfill) gets its Job and Ready; a
// change of its spec gives checkOutdatedJob's outcome.
func checkBackfill(t *testing.T, c client.Client, ns string) {
	ctx := context.Background()
	backfill := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "jobs.example.com/v1", "kind": "Backfill",
		"metadata": map[string]any{"name": "orders", "namespace": ns}, "spec": map[string]any{"source": "s3://orders/2026"}}}
	require.NoError(t, c.Create(ctx, backfill))
	t.Cleanup(func() { _ = c.Delete(context.Background(), backfill) })
	jobKey := client.ObjectKey{Namespace: ns, Name: "orders-job"}
	WaitFor(t, "the Backfill's Job and Ready", func() (bool, error) {
		if err := c.Get(ctx, jobKey, &batchv1.Job{}); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(backfill), backfill); err != nil {
			return false, err
		}
		cond := readyCondition(backfill)
		return cond != nil && cond["status"] == "True" && fmt.Sprint(cond["observedGeneration"]) == fmt.Sprint(backfill.GetGeneration()), nil
	})
	checkOutdatedJob(t, c, backfill, jobKey, "source", "s3://orders/2027")
}
