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
	"github.com/opctl/opctl/cmd/decide"
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

// TestEveryReasonArguesForTheRecommendation answers the checklist every way
// it can be answered: each reason decide gives speaks for the style it
// recommends (no other style gains more from the answer, and the
// maintainers' weight went to it); what speaks against it is a caveat.
func TestEveryReasonArguesForTheRecommendation(t *testing.T) {
	profiles := styles.All().Profiles()
	for _, a := range allAnswers(checklist.Answers{}, checklist.Questions(profiles)) {
		rec, err := checklist.Recommend(profiles, a)
		require.NoError(t, err)
		decide.Weigh(&rec, a, profiles)
		if rec.Style == "" {
			continue
		}
		chosen := profiles[slices.IndexFunc(profiles, func(p checklist.Profile) bool { return p.Style == rec.Style })]
		for _, r := range rec.Reasons {
			key := r.Question + "=" + r.Answer
			for _, p := range profiles {
				switch {
				case a["new-crd"] == "no" && !p.WithoutCRD:
					// It cannot serve the answers.
				case r.Question == "maintainers" && a["maintainers"] == "yes":
					assert.LessOrEqual(t, p.MaintainerPoints[a["language"]], chosen.MaintainerPoints[a["language"]], "%v: %q speaks for %s", a, r.Reason, p.Style)
				default:
					assert.LessOrEqual(t, p.Points[key], chosen.Points[key], "%v: %q speaks for %s, not %s", a, r.Reason, p.Style, rec.Style)
				}
			}
		}
	}
}

// An Ansible team in production at large scale hears how far the style's
// measured figures fall short, and what it can do; a Go team does not.
func TestDecideWeighsTheMeasuredFigures(t *testing.T) {
	profiles := styles.All().Profiles()
	a := checklist.Answers{"existing": "no", "new-crd": "yes", "stage": "production", "scale": "large", "language": "ansible", "logic": "declarative", "maintainers": "yes"}
	rec, err := checklist.Recommend(profiles, a)
	require.NoError(t, err)
	decide.Weigh(&rec, a, profiles)
	require.Equal(t, "ansible", rec.Style)
	last := rec.Caveats[len(rec.Caveats)-1]
	assert.Equal(t, "scale", last.Question)
	assert.Contains(t, last.Reason, "ansible, measured in its real runtime (docs/runtime-costs.md): at N=1000, 80 objects Ready within 600.4 s")
	assert.Contains(t, last.Reason, "--max-concurrent-reconciles")
	r := styletest.Run(t, t.TempDir(), "decide", "-o", "json", "--existing", "no", "--new-crd", "yes", "--stage", "production", "--scale", "large",
		"--language", "ansible", "--logic", "declarative", "--maintainers", "yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Contains(t, r.Stdout, "80 objects Ready within 600.4 s", "the JSON output carries the caveat")

	a["language"], a["scale"] = "go", "large"
	rec, err = checklist.Recommend(profiles, a)
	require.NoError(t, err)
	decide.Weigh(&rec, a, profiles)
	require.Equal(t, "go", rec.Style)
	for _, c := range rec.Caveats {
		assert.NotContains(t, c.Reason, "measured", "go converges 1000 objects fastest")
	}
	a["scale"] = "small"
	a["language"] = "ansible"
	rec, err = checklist.Recommend(profiles, a)
	require.NoError(t, err)
	decide.Weigh(&rec, a, profiles)
	for _, c := range rec.Caveats {
		assert.NotContains(t, c.Reason, "measured", "at small scale the figures at 1000 do not weigh")
	}
}
