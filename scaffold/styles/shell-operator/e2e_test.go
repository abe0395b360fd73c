//go:build e2e

package shelloperator_test

import (
	"testing"

	shelloperator "github.com/opctl/opctl/scaffold/styles/shell-operator"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its hooks run as shell-operator runs them (runHooks).
func TestE2E(t *testing.T) {
	styletest.E2E(t, shelloperator.Style(), runHooks)
}
