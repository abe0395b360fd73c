package styletest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/render"
	"github.com/opctl/opctl/scaffold/styles"
)

// CheckHandAddedCase adds a conformance case by hand to the seed project
// in dir, as a user would: the sample with another version, first with a
// ConfigMap value no style makes, which test (the project's own tests,
// run in dir) must fail on and name, then with the children opctl's
// reference gives it, which test must pass. It returns test's output.
func CheckHandAddedCase(t *testing.T, dir string, test ...string) string {
	t.Helper()
	p, err := scaffold.LoadProject(dir, styles.All())
	require.NoError(t, err)
	a := p.APIs[0]
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(render.ConformancePath(a, "sample"))))
	require.NoError(t, err)
	var c render.ConformanceCase
	require.NoError(t, yaml.Unmarshal(b, &c))
	c.Description = "Written by hand: another version."
	c.Object["metadata"].(map[string]any)["name"] = a.Singular() + "-hand-added"
	c.Object["spec"].(map[string]any)["version"] = "16.4"
	c.Children = render.RoundTripAll(render.DesiredChildren(p, a, c.Object))
	path := filepath.Join(dir, filepath.FromSlash(render.ConformancePath(a, "hand-added")))
	write := func(c render.ConformanceCase) {
		b, err := render.ConformanceFile(a, c)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}

	wrong := render.ConformanceCase{Description: c.Description, Object: c.Object, Status: c.Status,
		Children: render.RoundTripAll(c.Children)}
	for _, child := range wrong.Children {
		if data, ok := child["data"].(map[string]any); ok && child["kind"] == "ConfigMap" {
			data["version"] = "15"
		}
	}
	require.NotEqual(t, c.Children, wrong.Children, "the seed owns a ConfigMap")
	write(wrong)
	cmd := exec.Command(test[0], test[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	assert.Error(t, err, "%s passes with a case its children do not meet:\n%s", test, out)
	assert.Contains(t, string(out), "hand-added", "the failure names the case")

	write(c)
	return tools.ExecIn(t, dir, test[0], test[1:]...)
}
