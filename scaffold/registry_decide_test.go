//go:build generated

package scaffold_test

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opctl/opctl/checklist"
	"github.com/opctl/opctl/internal/styletest"
	"github.com/opctl/opctl/internal/styletest/tools"
	"github.com/opctl/opctl/scaffold/styles"
)

// TestEveryDecideNextRuns answers the checklist every way it can be
// answered, as opctl decide -o json, and runs each distinct next command
// decide prints: the project it makes passes its own make test.
func TestEveryDecideNextRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("scaffolds and tests a project per recommended style")
	}
	var nexts []string
	for _, a := range allAnswers(checklist.Answers{}, checklist.Questions(styles.All().Profiles())) {
		args := []string{"decide", "-o", "json"}
		for _, id := range slices.Sorted(maps.Keys(a)) {
			args = append(args, "--"+id, a[id])
		}
		r := styletest.Run(t, t.TempDir(), args...)
		require.Equal(t, 0, r.Code, "%v: %s", args, r.Stderr)
		var out struct{ Next string }
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out))
		require.NotEmpty(t, out.Next, "%v: no next command", args)
		if !slices.Contains(nexts, out.Next) {
			nexts = append(nexts, out.Next)
		}
	}
	t.Logf("%d distinct next commands", len(nexts))
	for _, next := range nexts {
		t.Run(next, func(t *testing.T) {
			t.Parallel()
			// next is a shell line of opctl commands and cds, joined by &&.
			dir := t.TempDir()
			cwd, project := dir, ""
			for _, command := range strings.Split(next, " && ") {
				fields := strings.Fields(command)
				switch fields[0] {
				case "opctl":
					styletest.MustRun(t, cwd, fields[1:]...)
					if fields[1] == "init" {
						project = filepath.Join(cwd, fields[len(fields)-1])
					}
				case "cd":
					cwd = filepath.Join(cwd, fields[1])
				default:
					t.Fatalf("next runs %q: only opctl and cd are expected", command)
				}
			}
			tools.ExecIn(t, project, "make", "test")
		})
	}
}

// allAnswers is every complete set of answers from a onwards, asking the
// questions as decide does (a question that does not apply is skipped,
// free text left out).
func allAnswers(a checklist.Answers, rest []checklist.Question) []checklist.Answers {
	if len(rest) == 0 {
		return []checklist.Answers{a}
	}
	q := rest[0]
	if len(q.Options) == 0 || (q.AskIf != nil && !q.AskIf(a)) {
		return allAnswers(a, rest[1:])
	}
	var out []checklist.Answers
	for _, o := range q.Options {
		next := checklist.Answers{q.ID: o.Value}
		for k, v := range a {
			next[k] = v
		}
		out = append(out, allAnswers(next, rest[1:])...)
	}
	return out
}

func TestAllAnswersCoversTheChecklist(t *testing.T) {
	all := allAnswers(checklist.Answers{}, checklist.Questions(styles.All().Profiles()))
	// existing 3 × new-crd 2 × (production × scale 2 + prototype) 3 ×
	// language 5 × logic 2 × maintainers 3.
	assert.Len(t, all, 3*2*3*5*2*3)
}
