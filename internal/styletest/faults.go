//go:build e2e

package styletest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
)

// Faults are the fault checks of the seed project, as an extra check of
// CheckRuntime: the runtime killed in a burst of objects and started
// again, the API server restarted under it, and for a style whose runtime
// elects a leader, the leader of two replicas killed.
func Faults(style scaffold.Style, start RealRuntime) func(*testing.T, *Cluster, *Conformance) {
	return FaultsOf(style.Name, seeded(style, start), style.LeaderElection)
}

// E2EFaults are the fault checks of the seed project as an extra check of
// E2E, on what start starts: the generated manager, or an imitation of the
// runtime (Imitation), which must live through them as the runtime does
// (retrying what failed while the API server was away). The takeover of
// two replicas is checked when start elects a leader as the style's
// runtime does.
func E2EFaults(style scaffold.Style, start RealRuntime, elects bool) Check {
	return E2EFaultsOf(style.Name, seeded(style, start), elects)
}

// E2EFaultsOf are the fault checks of what install installs, in make
// test-e2e.
func E2EFaultsOf(style string, install Install, elects bool) Check {
	return func(t *testing.T, cluster *Cluster, _ string) {
		FaultsOf(style, install, elects)(t, cluster, newConformance(t, style, "fault checks in make test-e2e"))
	}
}

// Imitation is run, an imitation of a runtime, where a check takes a
// RealRuntime.
func Imitation(run Runner) RealRuntime {
	return func(t *testing.T, dir, kubeconfig, admin string, _ *Cluster) *Process {
		return run(t, dir, kubeconfig, admin)
	}
}

// FaultsOf are the fault checks of the project install installs, each in
// a namespace of its own named after style; takeover adds the check of
// two replicas.
func FaultsOf(style string, install Install, takeover bool) func(*testing.T, *Cluster, *Conformance) {
	return func(t *testing.T, cluster *Cluster, suite *Conformance) {
		if takeover {
			suite.Check(t, "two replicas: one leads, the other stands by and takes over within the lease when the leader is killed", func(t *testing.T) {
				checkTakeover(t, cluster, install, "takeover-"+style, suite)
			})
		}
		suite.Check(t, fmt.Sprintf("killed (SIGKILL) in a burst of %d objects and started again: all converge, each child made once", burst), func(t *testing.T) {
			checkKilledInBurst(t, cluster, install, "burst-"+style, suite)
		})
		suite.Check(t, "the API server restarted over the same etcd: the runtime, not restarted, follows a change and a new object", func(t *testing.T) {
			checkAPIServerRestart(t, cluster, install, "restart-"+style, suite)
		})
	}
}

// waitFor waits up to within until n objects of ns have converged (after
// the change when changed).
func (target Target) waitFor(t *testing.T, within time.Duration, c client.Client, ns string, n int, changed bool, what string) {
	t.Helper()
	WaitWithin(t, within, what, func() (bool, error) {
		done, err := target.Converged(context.Background(), c, ns, changed)
		return done == n, err
	})
}

// checkAPIServerRestart runs the project, restarts the API server under
// it (same etcd), then changes one object and creates another, changed
// too: the runtime, never restarted, follows both.
func checkAPIServerRestart(t *testing.T, cluster *Cluster, install Install, ns string, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	target, start := install(t, cluster, ns)
	suite.Runs(start(t))
	before := target.object(ns, "before", false)
	require.NoError(t, c.Create(ctx, before))
	target.waitFor(t, 2*time.Minute, c, ns, 1, false, "the first object converged")
	cluster.RestartAPIServer(t)
	updateSpec(t, c, before, target.Change)
	require.NoError(t, c.Create(ctx, target.object(ns, "after", true)))
	target.waitFor(t, 5*time.Minute, c, ns, 2, true, "the changed object and the new one converged, the change in the child")
}

// tookLease reports whether a runtime's log says it has taken its lease,
// as client-go's leader election logs it (through klog or logr, one
// capitalised, the other not).
func tookLease(logs string) bool {
	return strings.Contains(strings.ToLower(logs), "successfully acquired lease")
}

// checkTakeover runs two replicas of the project's runtime, as the
// Deployment does with two: the first takes the lease and reconciles, the
// second stands by; the leader killed (SIGKILL: it releases nothing), the
// second takes the lease within its duration and reconciles a new object.
func checkTakeover(t *testing.T, cluster *Cluster, install Install, ns string, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	target, start := install(t, cluster, ns)
	leader := start(t)
	suite.Runs(leader)
	WaitFor(t, "the first replica to take the lease", func() (bool, error) {
		return tookLease(leader.Logs()), nil
	})
	standBy := start(t)
	require.NoError(t, c.Create(ctx, target.object(ns, "first", false)))
	target.waitFor(t, 2*time.Minute, c, ns, 1, false, "the first object converged")
	require.False(t, tookLease(standBy.Logs()), "the second replica stands by while the first leads")

	leader.Kill()
	killed := time.Now()
	suite.Runs(standBy)
	lease := time.Duration(render.DefaultLease().DurationSeconds) * time.Second
	// The stand-by sees the lease run out a retry period (2 s) after it
	// does, at worst; the rest is slack for two busy cores.
	WaitWithin(t, lease+15*time.Second, "the second replica to take the lease", func() (bool, error) {
		return tookLease(standBy.Logs()), nil
	})
	t.Logf("the second replica took over %s after the leader was killed (lease: %s)", time.Since(killed).Round(time.Second), lease)
	require.NoError(t, c.Create(ctx, target.object(ns, "second", false)))
	target.waitFor(t, 2*time.Minute, c, ns, 2, false, "the object made after the takeover converged")
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

// burst is how many objects checkKilledInBurst creates at once.
const burst = 50

// checkKilledInBurst creates a burst of objects, kills the runtime
// (SIGKILL) as soon as it has made the first child, and starts it again:
// every object converges and gets exactly its one child, none lost and
// none made twice.
func checkKilledInBurst(t *testing.T, cluster *Cluster, install Install, ns string, suite *Conformance) {
	ctx := context.Background()
	c := cluster.Client
	target, start := install(t, cluster, ns)
	t.Run("killed in the burst", func(t *testing.T) {
		// The runtime runs as long as this subtest: its cleanup kills it.
		suite.Runs(start(t))
		for i := range burst {
			require.NoError(t, c.Create(ctx, target.object(ns, fmt.Sprintf("burst-%02d", i), false)))
		}
		WaitFor(t, "the first child", func() (bool, error) {
			children, err := target.children(ctx, c, ns)
			return len(children) > 0, err
		})
		children, err := target.children(ctx, c, ns)
		require.NoError(t, err)
		t.Logf("killed with %d of %d children made", len(children), burst)
	})
	suite.Runs(start(t))
	target.waitFor(t, 10*time.Minute, c, ns, burst, false, fmt.Sprintf("all %d objects converged", burst))
	children, err := target.children(ctx, c, ns)
	require.NoError(t, err)
	made := map[string]int{}
	for _, child := range children {
		refs := child.GetOwnerReferences()
		require.Len(t, refs, 1, "%s has one owner", child.GetName())
		made[refs[0].Name]++
	}
	assert.Len(t, children, burst, "one child per object, no more")
	for i := range burst {
		assert.Equal(t, 1, made[fmt.Sprintf("burst-%02d", i)], "the children of burst-%02d", i)
	}
}
