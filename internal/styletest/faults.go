//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
)

// Faults are the fault checks, as an extra check of CheckRuntime: the
// runtime killed in a burst of objects and started again, the API server
// restarted under it, and for a style whose runtime elects a leader, the
// leader of two replicas killed.
func Faults(style scaffold.Style, start RealRuntime) func(*testing.T, *Cluster, *Conformance) {
	return faults(style, start, style.LeaderElection)
}

// E2EFaults are the fault checks as an extra check of E2E, on what start
// starts: the generated manager, or an imitation of the runtime
// (Imitation), which must live through them as the runtime does (retrying
// what failed while the API server was away). The takeover of two
// replicas is checked when start elects a leader as the style's runtime
// does.
func E2EFaults(style scaffold.Style, start RealRuntime, elects bool) Check {
	return func(t *testing.T, cluster *Cluster, _ string) {
		faults(style, start, elects)(t, cluster, newConformance(t, style.Name, "fault checks in make test-e2e"))
	}
}

// Imitation is run, an imitation of a runtime, where a check takes a
// RealRuntime.
func Imitation(run Runner) RealRuntime {
	return func(t *testing.T, dir, kubeconfig, admin string, _ *Cluster) *Process {
		return run(t, dir, kubeconfig, admin)
	}
}

func faults(style scaffold.Style, start RealRuntime, takeover bool) func(*testing.T, *Cluster, *Conformance) {
	return func(t *testing.T, cluster *Cluster, suite *Conformance) {
		if takeover {
			suite.Check(t, "two replicas: one leads, the other stands by and takes over within the lease when the leader is killed", func(t *testing.T) {
				checkTakeover(t, cluster, style, start, suite)
			})
		}
		suite.Check(t, fmt.Sprintf("killed (SIGKILL) in a burst of %d objects and started again: all Ready, each child made once", burst), func(t *testing.T) {
			checkKilledInBurst(t, cluster, style, start, suite)
		})
		suite.Check(t, "the API server restarted over the same etcd: the runtime, not restarted, follows a change and a new object", func(t *testing.T) {
			checkAPIServerRestart(t, cluster, style, start, suite)
		})
	}
}

// checkAPIServerRestart runs the seed project, restarts the API server
// under it (same etcd), then changes one Database and creates another:
// the runtime, never restarted, follows both.
func checkAPIServerRestart(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	ns := "restart-" + style.Name
	dir, _, kubeconfig, sample := seedIn(t, cluster, style, ns)
	suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))
	before := sample.DeepCopy()
	before.SetName("before")
	require.NoError(t, c.Create(ctx, before))
	WaitFor(t, "the first Database Ready", func() (bool, error) { return ready(ctx, c, before) })
	cluster.RestartAPIServer(t)
	updateSpec(t, c, before, func(spec map[string]any) { spec["version"] = "after-restart" })
	after := sample.DeepCopy()
	after.SetName("after")
	require.NoError(t, c.Create(ctx, after))
	WaitWithin(t, 5*time.Minute, "the changed Database and the new one Ready, the change in the child", func() (bool, error) {
		for _, obj := range []*unstructured.Unstructured{before, after} {
			if ok, err := ready(ctx, c, obj); !ok || err != nil {
				return false, err
			}
		}
		var cm corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "before-configmap"}, &cm); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return cm.Data["version"] == "after-restart", nil
	})
}

// tookLease reports whether a runtime's log says it has taken its lease,
// as client-go's leader election logs it (through klog or logr, one
// capitalised, the other not).
func tookLease(logs string) bool {
	return strings.Contains(strings.ToLower(logs), "successfully acquired lease")
}

// checkTakeover runs two replicas of the seed project's runtime, as the
// Deployment does with two: the first takes the lease and reconciles, the
// second stands by; the leader killed (SIGKILL: it releases nothing), the
// second takes the lease within its duration and reconciles a new object.
func checkTakeover(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	ns := "takeover-" + style.Name
	dir, _, kubeconfig, sample := seedIn(t, cluster, style, ns)
	leader := start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster)
	suite.Runs(leader)
	WaitFor(t, "the first replica to take the lease", func() (bool, error) {
		return tookLease(leader.Logs()), nil
	})
	standBy := start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster)
	first := sample.DeepCopy()
	first.SetName("first")
	require.NoError(t, c.Create(ctx, first))
	WaitFor(t, "the first Database Ready", func() (bool, error) { return ready(ctx, c, first) })
	require.False(t, tookLease(standBy.Logs()), "the second replica stands by while the first leads")

	leader.Kill()
	killed := time.Now()
	suite.Runs(standBy)
	lease := time.Duration(scaffold.DefaultLease().DurationSeconds) * time.Second
	// The stand-by sees the lease run out a retry period (2 s) after it
	// does, at worst; the rest is slack for two busy cores.
	WaitWithin(t, lease+15*time.Second, "the second replica to take the lease", func() (bool, error) {
		return tookLease(standBy.Logs()), nil
	})
	t.Logf("the second replica took over %s after the leader was killed (lease: %s)", time.Since(killed).Round(time.Second), lease)
	second := sample.DeepCopy()
	second.SetName("second")
	require.NoError(t, c.Create(ctx, second))
	WaitFor(t, "the Database made after the takeover Ready", func() (bool, error) { return ready(ctx, c, second) })
}

// ForgetLeases deletes the Leases in namespace at cleanup, once the test's
// runtimes are stopped (it must be called before they start): each check
// installs its project anew, and a killed runtime's lease would keep the
// next one waiting for it to run out.
func (c *Cluster) ForgetLeases(t *testing.T, namespace string) {
	t.Cleanup(func() {
		assert.NoError(t, c.Client.DeleteAllOf(context.Background(), &coordinationv1.Lease{}, client.InNamespace(namespace)))
	})
}

// seedIn installs the seed project of style and a namespace ns for its
// objects, and returns the project's directory, the manager's kubeconfig and
// the sample Database in ns. No Database is left elsewhere: where the CRD
// was installed already (the fault checks of make test-e2e, after the
// others), the runtime started next would reconcile those too and each
// check would measure them as well.
func seedIn(t *testing.T, cluster *Cluster, style scaffold.Style, ns string) (dir string, p scaffold.Project, kubeconfig string, sample *unstructured.Unstructured) {
	dir = Seed(t, style)
	p, _, kubeconfig = cluster.installProject(t, dir)
	cluster.CreateNamespace(t, ns, false)
	sample = ReadObjects(t, filepath.Join(dir, scaffold.SamplePath(p, p.APIs[0])))[0]
	sample.SetNamespace(ns)
	// The API server deletes a collection in one namespace at a time; a
	// CRD made just now may not be served yet, and holds no Database.
	left := &unstructured.UnstructuredList{}
	left.SetGroupVersionKind(sample.GroupVersionKind())
	require.NoError(t, client.IgnoreNotFound(cluster.Client.List(context.Background(), left)), "the Databases left by earlier checks")
	for i := range left.Items {
		require.NoError(t, client.IgnoreNotFound(cluster.Client.Delete(context.Background(), &left.Items[i])), "a Database left by an earlier check")
	}
	return dir, p, kubeconfig, sample
}

// burst is how many objects checkKilledInBurst creates at once.
const burst = 50

// checkKilledInBurst creates a burst of the seed's Databases, kills the
// runtime (SIGKILL) as soon as it has made the first child, and starts it
// again: every Database gets Ready and exactly its one ConfigMap, none
// lost and none made twice.
func checkKilledInBurst(t *testing.T, cluster *Cluster, style scaffold.Style, start RealRuntime, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	ns := "burst-" + style.Name
	dir, p, kubeconfig, sample := seedIn(t, cluster, style, ns)
	children := func() (*corev1.ConfigMapList, error) {
		var list corev1.ConfigMapList
		err := c.List(ctx, &list, client.InNamespace(ns), client.MatchingLabels{"app.kubernetes.io/managed-by": p.Name})
		return &list, err
	}
	t.Run("killed in the burst", func(t *testing.T) {
		// The runtime runs as long as this subtest: its cleanup kills it.
		suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))
		for i := range burst {
			obj := sample.DeepCopy()
			obj.SetName(fmt.Sprintf("burst-%02d", i))
			require.NoError(t, c.Create(ctx, obj))
		}
		WaitFor(t, "the first child", func() (bool, error) {
			list, err := children()
			return err == nil && len(list.Items) > 0, err
		})
		list, err := children()
		require.NoError(t, err)
		t.Logf("killed with %d of %d ConfigMaps made", len(list.Items), burst)
	})
	suite.Runs(start(t, dir, kubeconfig, cluster.AdminKubeconfig(t), cluster))
	WaitWithin(t, 10*time.Minute, fmt.Sprintf("all %d Databases Ready", burst), func() (bool, error) {
		for i := range burst {
			obj := sample.DeepCopy()
			obj.SetName(fmt.Sprintf("burst-%02d", i))
			if ok, err := ready(ctx, c, obj); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
	list, err := children()
	require.NoError(t, err)
	made := map[string]int{}
	for _, cm := range list.Items {
		made[cm.Name]++
		require.Len(t, cm.OwnerReferences, 1, "%s has one owner", cm.Name)
	}
	assert.Len(t, list.Items, burst, "one ConfigMap per Database, no more")
	for i := range burst {
		assert.Equal(t, 1, made[fmt.Sprintf("burst-%02d-configmap", i)], "burst-%02d's ConfigMap", i)
	}
}
