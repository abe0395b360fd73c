//go:build generated

package golang_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/styles"
	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// buildControllerGen installs the pinned controller-gen from the Go module
// proxy into the repository's cache directory (.cache/, git-ignored), once.
// The repository is found by its go.mod, wherever the test runs.
func buildControllerGen(t *testing.T) string {
	t.Helper()
	return styletest.GoInstall(t, "sigs.k8s.io/controller-tools/cmd/controller-gen", scaffold.DefaultVersions().ControllerTools)
}

// assertControllerGenAgrees runs controller-gen on api/ and compares each
// CRD with opctl's, ignoring descriptions (Go doc comments) and
// controller-gen's version annotation.
func assertControllerGenAgrees(t *testing.T, dir, controllerGen string) {
	t.Helper()
	out := t.TempDir()
	styletest.ExecIn(t, dir, controllerGen, "crd", "paths=./api/...", "output:crd:dir="+out)
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	for _, a := range p.APIs {
		path := scaffold.CRDPath(p, a)
		ours := loadCRD(t, filepath.Join(dir, path))
		theirs := loadCRD(t, filepath.Join(out, filepath.Base(path)))
		assert.Equal(t, theirs, ours, "controller-gen's schema for %s differs from opctl's", a.Kind)
	}
}

func loadCRD(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal(b, &m))
	delete(m["metadata"].(map[string]any), "annotations")
	return withoutDescriptions(m).(map[string]any)
}

func withoutDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range t {
			if k != "description" {
				out[k] = withoutDescriptions(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = withoutDescriptions(val)
		}
		return out
	}
	return v
}
