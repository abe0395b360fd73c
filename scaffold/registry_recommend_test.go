package scaffold_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/scaffold/styles"
)

// The registry's checklist profiles against the scenarios of the decision
// checklist: what each team should be told.

// The style names the scenarios expect, as the registry spells them.
const (
	Go                      = "go"
	Kopf                    = "kopf"
	Metacontroller          = "metacontroller"
	MetacontrollerDecorator = "metacontroller-decorator"
	ShellOperator           = "shell-operator"
	Ansible                 = "ansible"
)

func TestRecommendScenarios(t *testing.T) {
	tests := []struct {
		name            string
		answers         Answers
		style, runnerUp string
	}{
		{"ML platform team in Python, TrainingJob calling Python SDKs",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "small", "language": "python", "logic": "imperative", "maintainers": "yes"},
			Kopf, Go},
		{"Microservice CR always becoming Deployment+Service+HPA+ServiceMonitor",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "small", "language": "python", "logic": "declarative", "maintainers": "yes"},
			Metacontroller, Kopf},
		// decide's defaults: the maintainers' language weighs most, and opctl
		// writes Metacontroller's hook in Python.
		{"Microservice CR, Go team",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "small", "language": "go", "logic": "declarative", "maintainers": "yes"},
			Go, Metacontroller},
		{"ops team on bash syncing Secrets to a vault, no CRD",
			Answers{"existing": "no", "new-crd": "no", "stage": "production", "scale": "small", "language": "shell", "logic": "imperative", "maintainers": "yes"},
			ShellOperator, MetacontrollerDecorator},
		{"hundreds of Ansible playbooks",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "small", "language": "ansible", "logic": "imperative", "maintainers": "yes"},
			Ansible, Go},
		{"Go team, large long-lived production, imperative",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "large", "language": "go", "logic": "imperative", "maintainers": "yes"},
			Go, Kopf},
		{"Python team without Go going to large production: maintainability first",
			Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "large", "language": "python", "logic": "imperative", "maintainers": "yes"},
			Kopf, Go},
		{"prototype in another language, declarative",
			Answers{"existing": "no", "new-crd": "yes", "stage": "prototype", "language": "other", "logic": "declarative", "maintainers": "yes"},
			Metacontroller, Kopf},
		{"Python prototype with imperative steps",
			Answers{"existing": "no", "new-crd": "yes", "stage": "prototype", "language": "python", "logic": "imperative", "maintainers": "yes"},
			Kopf, Metacontroller},
		{"decorating built-in resources, declarative, other language",
			Answers{"existing": "no", "new-crd": "no", "stage": "production", "scale": "small", "language": "other", "logic": "declarative", "maintainers": "no"},
			MetacontrollerDecorator, ShellOperator},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := Recommend(styles.All().Profiles(), tt.answers)
			require.NoError(t, err)
			assert.Equal(t, tt.style, rec.Style, "ranking %v", rec.Ranking)
			assert.Equal(t, tt.runnerUp, rec.RunnerUp, "ranking %v", rec.Ranking)
			assert.Len(t, append(rec.Reasons, rec.Caveats...), len(Asked(styles.All().Profiles(), tt.answers))-boolInt(tt.answers["existing"] != "no"), "one reason or caveat per answer")
			require.Len(t, rec.Comparison, 2)
			assert.Equal(t, tt.style, rec.Comparison[0].Style)
			assert.Equal(t, tt.runnerUp, rec.Comparison[1].Style)
			assert.False(t, rec.UseExisting)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestRecommendExistingOperator(t *testing.T) {
	rec, err := Recommend(styles.All().Profiles(), Answers{"existing": "yes", "software": "PostgreSQL 16", "new-crd": "yes", "stage": "prototype",
		"language": "python", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	assert.True(t, rec.UseExisting)
	assert.Equal(t, []string{"CloudNativePG", "Zalando Postgres Operator"}, projects(rec.Candidates))
	assert.Equal(t, "run the existing operator instead of writing one; the ranking below is for when it does not fit", rec.Reasons[0].Reason)
	assert.Equal(t, Kopf, rec.Style, "the ranking is still there for teams that build anyway")
}

func TestRegistryProfilesAreAccepted(t *testing.T) {
	require.NoError(t, CheckProfiles(styles.All().Profiles()))
}

func projects(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Project)
	}
	return out
}

// TestGoldenREADMEPoints keeps the README's table of points equal to what
// the registry gives (make golden rewrites it).
func TestGoldenREADMEPoints(t *testing.T) {
	path := filepath.Join("..", "README.md")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	const begin, end = "<!-- points: generated from the style registry -->\n", "<!-- end points -->"
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	require.True(t, i >= 0 && j > i, "README.md has no %q ... %q block", begin, end)
	want := PointsTable(styles.All().Profiles())
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(readme[:i+len(begin)]+want+readme[j:]), 0o644))
		return
	}
	assert.Equal(t, want, readme[i+len(begin):j], "README.md's table of points differs from the registry: run make golden")
}
