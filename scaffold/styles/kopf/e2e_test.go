//go:build e2e

package kopf_test

import (
	"testing"

	"github.com/opctl/opctl/scaffold/styles/kopf"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its handlers driven by kopfImitation.
func TestE2E(t *testing.T) {
	styletest.E2E(t, kopf.Style(), runKopfImitation)
}
