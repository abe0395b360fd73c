package checklist

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Score is a style's total over every answer.
type Score struct {
	Style string `json:"style"`
	Score int    `json:"score"`
}

// Reason is what one answer contributed.
type Reason struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Reason   string `json:"reason"`
}

// Recommendation is the outcome of the checklist.
type Recommendation struct {
	Style    string `json:"style"`
	RunnerUp string `json:"runnerUp"`
	// UseExisting is set when an operator already exists for the software:
	// the advice is then to run it rather than build one.
	UseExisting bool        `json:"useExisting"`
	Candidates  []Candidate `json:"candidates,omitempty"`
	Ranking     []Score     `json:"ranking"`
	// Reasons are the answers that speak for the style recommended, or
	// for none; Caveats what speaks against it: an answer that favours
	// another style, the maintainers' weight given to another, and (Weigh)
	// its measured figures at the scale asked for, with what the team can
	// do.
	Reasons    []Reason     `json:"reasons"`
	Caveats    []Reason     `json:"caveats"`
	Comparison []Comparison `json:"comparison"`
}

// Settled: the team says an operator exists for the software and the
// catalog knows it, so the rest of the checklist is only for building
// anyway.
func Settled(a Answers) bool { return a["existing"] == "yes" && len(Lookup(a["software"])) > 0 }

// complete reports whether every question with options that applies is
// answered.
func complete(profiles []Profile, a Answers) bool {
	for _, q := range Asked(profiles, a) {
		if _, given := a[q.ID]; !given && len(q.Options) > 0 {
			return false
		}
	}
	return true
}

// Asked returns the questions that apply to the answers, in order.
func Asked(profiles []Profile, a Answers) []Question {
	var out []Question
	for _, q := range Questions(profiles) {
		if q.AskIf == nil || q.AskIf(a) {
			out = append(out, q)
		}
	}
	return out
}

// ValidateAnswer checks one answer against its question's options.
func ValidateAnswer(q Question, value string) error {
	if len(q.Options) == 0 {
		return nil
	}
	var values []string
	for _, o := range q.Options {
		if o.Value == value {
			return nil
		}
		values = append(values, o.Value)
	}
	if value == "" {
		return fmt.Errorf("--%s is required (one of %s)", q.ID, strings.Join(values, ", "))
	}
	return fmt.Errorf("--%s %q: want one of %s", q.ID, value, strings.Join(values, ", "))
}

// Recommend ranks the styles of the registry (profiles, already checked
// with CheckProfiles) for the answers; ties go to the earlier style. Every
// question that applies must be answered; answers to questions that do not
// apply are ignored.
//
// When an operator exists for the software (Settled) and the answers stop
// there, the recommendation is to run it, with no style.
func Recommend(profiles []Profile, a Answers) (Recommendation, error) {
	if Settled(a) && !complete(profiles, a) {
		return Recommendation{UseExisting: true, Candidates: Lookup(a["software"]), Ranking: []Score{}, Reasons: []Reason{}, Caveats: []Reason{}, Comparison: []Comparison{}}, nil
	}
	scores := make([]int, len(profiles))
	var reasons []Reason
	for _, q := range Asked(profiles, a) {
		v := a[q.ID]
		if err := ValidateAnswer(q, v); err != nil {
			return Recommendation{}, err
		}
		for i, p := range profiles {
			scores[i] += p.Points[q.ID+"="+v]
		}
		if reason := generalReason(profiles, q.ID, v); reason != "" {
			reasons = append(reasons, Reason{q.ID, v, reason})
		}
	}
	if a["maintainers"] == "yes" {
		for i, p := range profiles {
			scores[i] += p.MaintainerPoints[a["language"]]
		}
	}
	rec := Recommendation{Reasons: reasons, Caveats: []Reason{}}
	for i, p := range profiles {
		rec.Ranking = append(rec.Ranking, Score{p.Style, scores[i]})
	}
	// Without a new CRD, a style that needs one cannot serve: the styles
	// that can come first, whatever the others score.
	serves := map[string]bool{}
	for _, p := range profiles {
		serves[p.Style] = a["new-crd"] != "no" || p.WithoutCRD
	}
	sort.SliceStable(rec.Ranking, func(i, j int) bool {
		x, y := rec.Ranking[i], rec.Ranking[j]
		if serves[x.Style] != serves[y.Style] {
			return serves[x.Style]
		}
		return x.Score > y.Score
	})
	rec.Style, rec.RunnerUp = rec.Ranking[0].Style, rec.Ranking[1].Style
	// The recommended style says in its own words why an answer favours
	// it; an answer that favours another style is a caveat, not a reason.
	chosen := profiles[slices.IndexFunc(profiles, func(p Profile) bool { return p.Style == rec.Style })]
	for i, r := range rec.Reasons {
		key := r.Question + "=" + r.Answer
		if own := chosen.Reasons[key]; own != "" {
			rec.Reasons[i].Reason = own
		} else if best, n := favoured(profiles, serves, key); n > chosen.Points[key] && (r.Question != "maintainers" || a["maintainers"] != "yes") {
			rec.Reasons[i].Reason += fmt.Sprintf("; it favours %s (+%d), not %s, which wins on the other answers", best, n, rec.Style)
			rec.Caveats = append(rec.Caveats, rec.Reasons[i])
		}
	}
	// The maintainers' weight goes to the style of the team's language;
	// say which, and whether it won.
	if a["maintainers"] == "yes" {
		best, bestPoints := "", 0
		for _, p := range profiles {
			if n := p.MaintainerPoints[a["language"]]; n > bestPoints {
				best, bestPoints = p.Style, n
			}
		}
		for i, r := range rec.Reasons {
			switch {
			case r.Question != "maintainers" || best == "":
			case best == rec.Style:
				rec.Reasons[i].Reason = fmt.Sprintf("maintainers can fix %s code, so %s gets the largest weight (+%d)", a["language"], best, bestPoints)
			default:
				rec.Reasons[i].Reason = fmt.Sprintf("maintainers can fix %s code, so %s gets the largest weight (+%d); %s still scores higher on the other answers", a["language"], best, bestPoints, rec.Style)
				rec.Caveats = append(rec.Caveats, rec.Reasons[i])
			}
		}
	}
	rec.Reasons = slices.DeleteFunc(rec.Reasons, func(r Reason) bool { return slices.Contains(rec.Caveats, r) })
	for _, name := range []string{rec.Style, rec.RunnerUp} {
		for _, p := range profiles {
			if p.Style == name {
				row := p.Comparison
				row.Style = p.Style
				rec.Comparison = append(rec.Comparison, row)
			}
		}
	}
	rec.Candidates = Lookup(a["software"])
	rec.UseExisting = a["existing"] == "yes"
	return rec, nil
}

// favoured is the style, of those that serve the answers, an answer
// (keyed like Profile.Points) gives the most points, the earlier on a tie,
// and its points.
func favoured(profiles []Profile, serves map[string]bool, key string) (string, int) {
	best, points := "", 0
	for _, p := range profiles {
		if n := p.Points[key]; n > points && serves[p.Style] {
			best, points = p.Style, n
		}
	}
	return best, points
}
