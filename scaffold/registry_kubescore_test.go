//go:build generated

package scaffold_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/pins"
	"github.com/opctl/opctl/scaffold/render"
)

// TestKubeScore runs kube-score, an outside checker, over every style's
// seed config/ as kubectl kustomize builds it: no critical finding but
// for the checks an object's kube-score/ignore annotation names, each of
// which the project's README explains.
func TestKubeScore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kube-score and runs kubectl kustomize")
	}
	tools.RequireTools(t, "kubectl, whose kustomize builds config/", "kubectl")
	kubeScore := tools.GoInstall(t, "github.com/zegl/kube-score/cmd/kube-score", pins.DefaultVersions().KubeScore)
	for name, c := range goldenCases(t) {
		if !strings.HasSuffix(name, "-seed") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeTree(t, c.render(t))
			manifests := tools.ExecIn(t, dir, "kubectl", "kustomize", "config/")
			assert.Empty(t, criticalFindings(t, kubeScore, manifests), "kube-score's critical findings in config/")
			if c.style.Runtime(c.project).Replicable() {
				// Two replicas, as a platform team runs them: the chart adds
				// a PodDisruptionBudget and spreads them over nodes.
				var chart, withoutBudget strings.Builder
				for _, o := range styletest.RenderChart(t, dir, "two", "ops", map[string]any{"replicaCount": 2}) {
					b, err := yaml.Marshal(o.Object)
					require.NoError(t, err)
					chart.WriteString("---\n" + string(b))
					if o.GetKind() != "PodDisruptionBudget" {
						withoutBudget.WriteString("---\n" + string(b))
					}
				}
				assert.Empty(t, criticalFindings(t, kubeScore, chart.String()), "kube-score's critical findings in the chart at two replicas")
				// The check can fail: two replicas and no budget are critical.
				assert.NotEmpty(t, criticalFindings(t, kubeScore, withoutBudget.String()), "kube-score finds no fault in two replicas without a PodDisruptionBudget")
			}
			b, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			readme := strings.Join(strings.Fields(string(b)), " ")
			for _, o := range styletest.DecodeObjects(t, []byte(manifests)) {
				ignored := o.GetAnnotations()[render.KubeScoreIgnore]
				for _, check := range strings.Split(ignored, ",") {
					if check != "" {
						assert.True(t, strings.Contains(readme, "`"+check+"` ("), "%s %s ignores %s: README.md must say why, as `%s` (why)", o.GetKind(), o.GetName(), check, check)
					}
				}
			}
		})
	}
}

// criticalFindings runs kube-score over manifests and returns its critical
// findings; it fails the test when kube-score fails without any.
func criticalFindings(t *testing.T, kubeScore, manifests string) []string {
	t.Helper()
	cmd := exec.Command(kubeScore, "score", "--output-format", "ci", "-")
	cmd.Stdin = strings.NewReader(manifests)
	out, err := cmd.Output()
	var critical []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "[CRITICAL]") {
			critical = append(critical, line)
		}
	}
	if len(critical) == 0 {
		require.NoError(t, err, "kube-score:\n%s", out)
	}
	return critical
}
