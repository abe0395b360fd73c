package checklist_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	. "github.com/opctl/opctl/checklist"
)

func projects(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Project)
	}
	return out
}

func TestLookup(t *testing.T) {
	tests := []struct {
		software string
		want     []string
	}{
		{"Kafka", []string{"Strimzi"}},
		{"our MySQL fleet", []string{"MySQL Operator for Kubernetes", "Percona Operator for MySQL"}},
		{"Redis caches", []string{"Redis Operator (OT-Container-Kit)"}},
		{"monitoring", []string{"Prometheus Operator"}},
		{"TLS certificates", []string{"cert-manager"}},
		{"etcd", []string{"etcd-operator"}},
		{"RabbitMQ", []string{"RabbitMQ Cluster Operator"}},
		{"Elasticsearch", []string{"Elastic Cloud on Kubernetes (ECK)"}},
		{"postgresql", []string{"CloudNativePG", "Zalando Postgres Operator"}},
		{"an upgrade tool", nil},
		{"", nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, projects(Lookup(tt.software)), tt.software)
	}
}

func TestRecommendRejectsBadAnswers(t *testing.T) {
	good := Answers{"existing": "no", "new-crd": "yes", "stage": "prototype", "language": "go", "logic": "imperative", "maintainers": "yes"}
	tests := []struct {
		id, value, want string
	}{
		{"language", "rust", `--language "rust": want one of go, python, other`},
		{"stage", "", `--stage is required (one of production, prototype)`},
		{"logic", "both", `--logic "both": want one of declarative, imperative`},
	}
	for _, tt := range tests {
		a := Answers{}
		for k, v := range good {
			a[k] = v
		}
		a[tt.id] = tt.value
		_, err := Recommend(twoStyles(), a)
		assert.EqualError(t, err, tt.want)
	}
	// scale is only asked in production.
	a := Answers{"existing": "no", "new-crd": "yes", "stage": "production", "language": "go", "logic": "imperative", "maintainers": "yes"}
	_, err := Recommend(twoStyles(), a)
	assert.EqualError(t, err, `--scale is required (one of small, large)`)
}

func TestCheckProfilesRefusesWhatRecommendCannotServe(t *testing.T) {
	row := Comparison{Language: "l", LearningCurve: "c", Expressiveness: "e", Performance: "p", Idempotency: "i", Maturity: "m", BestFit: "b"}
	golang := Language{"go", "Go", "a Go team"}
	good := func(name string) Profile { return Profile{Style: name, Comparison: row, Languages: []Language{golang}} }
	noRow := good("rust")
	noRow.Comparison = Comparison{}
	badPoints := good("rust")
	badPoints.Points = map[string]int{"language=rust": 3}
	badReason := good("rust")
	badReason.Reasons = map[string]string{"logic=both": "x"}
	badLanguage := good("rust")
	badLanguage.MaintainerPoints = map[string]int{"rust": 4}
	unnamed := good("rust")
	unnamed.Languages = []Language{{Value: "rust"}}
	otherwise := good("rust")
	otherwise.Languages = []Language{{"go", "Golang", "a Go team"}}
	other := good("rust")
	other.Languages = []Language{{"other", "anything", "any team"}}
	rust := good("rust")
	rust.Languages = []Language{{"rust", "Rust", "a Rust team: a style in Rust"}}
	rust.MaintainerPoints = map[string]int{"rust": 4}
	rust.Points = map[string]int{"language=rust": 3}
	tests := []struct {
		name     string
		profiles []Profile
		want     string
	}{
		{"one style", []Profile{good("toy")}, "style registry: 1 style(s), the checklist needs at least two"},
		{"no comparison row", []Profile{good("toy"), noRow}, `style registry: style "rust" has no comparison row (Language is empty)`},
		{"twice", []Profile{good("toy"), good("toy")}, `style registry: style "toy" is registered twice`},
		{"points for no answer", []Profile{good("toy"), badPoints}, `style registry: style "rust" gives points for "language=rust", which no question offers`},
		{"unknown language", []Profile{good("toy"), badLanguage}, `style registry: style "rust" gives maintainer points for language "rust", which the checklist does not offer`},
		{"reason for no answer", []Profile{good("toy"), badReason}, `style registry: style "rust" gives a reason for "logic=both", which no question offers`},
		{"language without a label", []Profile{good("toy"), unnamed}, `style registry: style "rust" names a language without a value, label or reason`},
		{"language named otherwise", []Profile{good("toy"), otherwise}, `style registry: style "rust" names language "go" otherwise than a style before it`},
		{"written in other", []Profile{good("toy"), other}, `style registry: style "rust" is written in "other", the answer of teams no style is written for`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, CheckProfiles(tt.profiles), tt.want)
		})
	}
	// A style in a new language brings its answer, and points for it.
	require.NoError(t, CheckProfiles([]Profile{good("toy"), rust}))
	rec, err := Recommend([]Profile{good("toy"), rust}, Answers{"existing": "no", "new-crd": "yes", "stage": "prototype",
		"language": "rust", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	assert.Equal(t, "rust", rec.Style)
	assert.Contains(t, rec.Reasons, Reason{Question: "language", Answer: "rust", Reason: "a Rust team: a style in Rust"})

	// What it accepts, Recommend serves: the runner-up and both rows are there.
	rec, err = Recommend([]Profile{good("a"), good("b")}, Answers{"existing": "no", "new-crd": "yes", "stage": "prototype",
		"language": "go", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	assert.Equal(t, "a", rec.Style)
	assert.Equal(t, "b", rec.RunnerUp)
	assert.Equal(t, []string{"a", "b"}, []string{rec.Comparison[0].Style, rec.Comparison[1].Style})
}

// twoStyles are profiles enough for Recommend: the checklist is tested
// without the registry (the registry's own scenarios are tested with it).
func twoStyles() []Profile {
	row := Comparison{Language: "l", LearningCurve: "c", Expressiveness: "e", Performance: "p", Idempotency: "i", Maturity: "m", BestFit: "b"}
	return []Profile{{Style: "a", Comparison: row, Languages: []Language{{"go", "Go", "a Go team"}}},
		{Style: "b", Comparison: row, Languages: []Language{{"python", "Python", "a Python team"}}}}
}

// The recommended style explains the answers that favour it in its own
// words; the others keep the general reason.
func TestRecommendedStyleGivesItsOwnReasons(t *testing.T) {
	profiles := twoStyles()
	profiles[1].Points = map[string]int{"language=python": 5}
	profiles[1].Reasons = map[string]string{"language=python": "b is written in Python"}
	profiles[0].Reasons = map[string]string{"logic=imperative": "a takes any code"}
	rec, err := Recommend(profiles, Answers{"existing": "no", "new-crd": "yes", "stage": "prototype",
		"language": "python", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	require.Equal(t, "b", rec.Style)
	reasons := map[string]string{}
	for _, r := range rec.Reasons {
		reasons[r.Question] = r.Reason
	}
	assert.Equal(t, "b is written in Python", reasons["language"])
	assert.NotEqual(t, "a takes any code", reasons["logic"], "only the recommended style's words")
}

// Without a new CRD, a style that needs one is never recommended, however
// high it scores; with one, the scores alone rank.
func TestWithoutCRDOnlyStylesThatServeIt(t *testing.T) {
	profiles := twoStyles()
	profiles[0].Points = map[string]int{"language=go": 9}
	profiles[1].WithoutCRD = true
	answers := Answers{"existing": "no", "stage": "prototype", "language": "go", "logic": "imperative", "maintainers": "no"}
	for _, tt := range []struct{ newCRD, style, runnerUp string }{
		{"no", "b", "a"},
		{"yes", "a", "b"},
	} {
		answers["new-crd"] = tt.newCRD
		rec, err := Recommend(profiles, answers)
		require.NoError(t, err)
		assert.Equal(t, []string{tt.style, tt.runnerUp}, []string{rec.Style, rec.RunnerUp}, "new-crd=%s", tt.newCRD)
	}
}

// An answer that favours another style than the one recommended is a
// caveat that says so, not a reason for the recommendation; so is the
// maintainers' weight given to another style.
func TestReasonFavouringTheRunnerUpSaysSo(t *testing.T) {
	profiles := twoStyles()
	profiles[0].Points = map[string]int{"logic=imperative": 2}
	profiles[0].MaintainerPoints = map[string]int{"python": 1}
	profiles[1].Points = map[string]int{"language=python": 5}
	rec, err := Recommend(profiles, Answers{"existing": "no", "new-crd": "yes", "stage": "prototype",
		"language": "python", "logic": "imperative", "maintainers": "yes"})
	require.NoError(t, err)
	require.Equal(t, "b", rec.Style)
	var reasons, caveats []string
	for _, r := range rec.Reasons {
		reasons = append(reasons, r.Question)
	}
	for _, r := range rec.Caveats {
		caveats = append(caveats, r.Question+": "+r.Reason)
	}
	assert.Equal(t, []string{"existing", "new-crd", "stage", "language"}, reasons)
	assert.Equal(t, []string{"logic: imperative steps, state machines and external calls need a general-purpose reconcile loop; it favours a (+2), not b, which wins on the other answers",
		"maintainers: maintainers can fix python code, so a gets the largest weight (+1); b still scores higher on the other answers"}, caveats)
}
