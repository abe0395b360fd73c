//go:build e2e

package metacontroller_test

import (
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/scaffold/styles/hookserver/metacontrollertest"
	"github.com/opctl/opctl/scaffold/styles/metacontroller"
)

// TestRuntime runs the seed project in real Metacontroller (make
// test-runtimes).
func TestRuntime(t *testing.T) {
	metacontrollertest.RequireReal(t)
	styletest.CheckRuntime(t, metacontroller.Style(), metacontrollertest.StartReal, styletest.PythonOmittingBuilder, styletest.Faults(metacontroller.Style(), metacontrollertest.StartReal))
}

// TestBenchRuntime measures the seed in Metacontroller (make bench-runtimes).
func TestBenchRuntime(t *testing.T) {
	metacontrollertest.RequireReal(t)
	styletest.BenchRuntime(t, metacontroller.Style(), metacontrollertest.StartReal)
}
