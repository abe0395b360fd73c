//go:build e2e

package golang_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	golang "github.com/opctl/opctl/scaffold/styles/go"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// with the manager it builds, then runs the project's own envtest suite.
func TestE2E(t *testing.T) {
	styletest.E2E(t, golang.Style(), runManager, func(t *testing.T, dir string) {
		t.Run("generated project's own envtest suite", func(t *testing.T) {
			out := styletest.ExecIn(t, dir, "go", "test", "-v", "-count=1", "./internal/controller/")
			assert.Contains(t, out, "--- PASS: TestAgainstAPIServer")
		})
	})
}

// runManager runs the generated manager as a process. Conflicts on status
// writes would show as "Reconciler error".
func runManager(t *testing.T, dir, kubeconfig, _ string) func() {
	return styletest.StartProcess(t, managerCommand(t, dir, kubeconfig, "0"), "forbidden", "Reconciler error")
}
