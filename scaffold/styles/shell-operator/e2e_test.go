//go:build e2e

package shelloperator_test

import (
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its hooks run as shell-operator runs them (runHooks), then its admission
// hooks served as shell-operator serves them (serveAdmissionHooks), then a
// watch of Secrets in one namespace, its hook run like the others, then
// the fault checks with runHooks.
func TestE2E(t *testing.T) {
	styletest.E2E(t, shelloperator.Style(), runHooks, func(t *testing.T, cluster *styletest.Cluster, _ string) {
		styletest.CheckWebhooks(t, cluster, shelloperator.Style(), serveAdmissionHooks)
		styletest.CheckWatch(t, cluster, shelloperator.Style(), runHooks)
	}, styletest.E2EFaults(shelloperator.Style(), styletest.Imitation(runHooks), false))
}
