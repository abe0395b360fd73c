//go:build generated || e2e

package decorator_test

import (
	"testing"

	"github.com/opctl/opctl/internal/styletest"
	decorator "github.com/opctl/opctl/scaffold/styles/metacontroller-decorator"
)

// scaffoldSeed writes the seed article's decorator into a new directory:
// every Deployment labelled app-type=web gets a matching Service.
func scaffoldSeed(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	styletest.MustRun(t, dir, "init", "--style", decorator.Style().Name, "--name", "web-services", "--yes")
	styletest.MustRun(t, dir, "create", "api", "--target", "apps/v1/Deployment", "--selector", "app-type=web", "--owns", "Service")
	return dir
}
