//go:build generated

package scaffold_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/opctl/opctl/scaffold/styles/styletest"
)

// TestGoldenScriptsPassLinters checks every Python file of every golden
// tree with pyflakes and every shell script with shellcheck.
func TestGoldenScriptsPassLinters(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pyflakes and shellcheck")
	}
	py := styletest.Python(t)
	styletest.RequireTools(t, "shellcheck (Debian package)", "shellcheck")
	goldens, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, golden := range goldens {
		tree, err := txtar.ParseFile(golden)
		require.NoError(t, err)
		dir := t.TempDir()
		var pyFiles, shFiles []string
		for _, f := range tree.Files {
			path := filepath.Join(dir, f.Name)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, f.Data, 0o755))
			switch filepath.Ext(f.Name) {
			case ".py":
				pyFiles = append(pyFiles, f.Name)
			case ".sh":
				shFiles = append(shFiles, f.Name)
			}
		}
		if len(pyFiles) > 0 {
			styletest.ExecIn(t, dir, py, append([]string{"-m", "pyflakes"}, pyFiles...)...)
		}
		if len(shFiles) > 0 {
			styletest.ExecIn(t, dir, "shellcheck", append([]string{"-x"}, shFiles...)...)
		}
	}
}
