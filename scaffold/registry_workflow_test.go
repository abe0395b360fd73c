package scaffold_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/semver"
	"sigs.k8s.io/yaml"

	"github.com/opctl/opctl/scaffold/render"
)

// node24Since is each action's first release on Node 24 (its action.yml's
// runs.using), which GitHub's runners require since they dropped Node 20.
var node24Since = map[string]string{
	"actions/checkout":              "v5.0.0",
	"actions/setup-go":              "v7.0.0",
	"actions/setup-python":          "v6.0.0",
	"actions/cache":                 "v5.0.0",
	"azure/setup-helm":              "v5.0.0",
	"golangci/golangci-lint-action": "v9.0.0",
	"helm/kind-action":              "v1.13.0",
}

// pinnedAction is a step's uses as the workflows write it: the action, a
// full commit, and its release in a comment.
var pinnedAction = regexp.MustCompile(`(?m)^\s+uses: ([\w.-]+/[\w.-]+)@[0-9a-f]{40} # (v\d+\.\d+\.\d+)$`)

// TestGoldenWorkflowsAreLocked checks every golden project's CI workflow:
// every action pinned by commit, on a Node 24 major; no permission at the
// top, read access to the repository in each job; no credentials kept by
// the checkout.
func TestGoldenWorkflowsAreLocked(t *testing.T) {
	for name, c := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			f, ok := c.render(t).Get(render.WorkflowPath)
			require.True(t, ok)
			uses := regexp.MustCompile(`(?m)^\s+uses: `).FindAllIndex(f.Content, -1)
			pinned := pinnedAction.FindAllSubmatch(f.Content, -1)
			assert.Len(t, pinned, len(uses), "every action pinned by commit, its release in a comment:\n%s", f.Content)
			for _, m := range pinned {
				action, release := string(m[1]), string(m[2])
				since, known := node24Since[action]
				if assert.True(t, known, "%s: which release runs on Node 24 first?", action) {
					assert.GreaterOrEqual(t, semver.Compare(release, since), 0, "%s %s runs on Node 20 or older", action, release)
				}
			}
			var w struct {
				Permissions map[string]string `json:"permissions"`
				Jobs        map[string]struct {
					Permissions map[string]string `json:"permissions"`
					Steps       []struct {
						Uses string            `json:"uses"`
						With map[string]string `json:"with"`
					} `json:"steps"`
				} `json:"jobs"`
			}
			require.NoError(t, yaml.Unmarshal(f.Content, &w))
			assert.Equal(t, map[string]string{}, w.Permissions, "no permission at the top")
			for job, j := range w.Jobs {
				assert.Equal(t, map[string]string{"contents": "read"}, j.Permissions, "job %s", job)
				for _, step := range j.Steps {
					if regexp.MustCompile(`^actions/checkout@`).MatchString(step.Uses) {
						assert.Equal(t, "false", step.With["persist-credentials"], "job %s: the checkout keeps no credentials", job)
					}
				}
			}
		})
	}
}
