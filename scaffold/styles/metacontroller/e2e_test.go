//go:build e2e

package metacontroller_test

import (
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
	"github.com/opctl/opctl/scaffold/styles/metacontroller"
)

// TestE2E proves the seed project on a real API server (make test-e2e),
// its hook server driven as Metacontroller drives a CompositeController,
// then the fault checks driven so.
func TestE2E(t *testing.T) {
	styletest.E2E(t, metacontroller.Style(), metacontrollertest.RunComposite,
		styletest.E2EFaults(metacontroller.Style(), styletest.Imitation(metacontrollertest.RunComposite), false))
}
