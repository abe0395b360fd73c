package checklist

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Profile is what the checklist knows of one style; each style declares its
// own in the style registry.
type Profile struct {
	Style      string
	Comparison Comparison
	// Points are added to the style's score for an answer, keyed
	// "question=answer" ("logic=declarative"); negative points push it down.
	Points map[string]int
	// MaintainerPoints are added when the maintainers can fix code in the
	// team's language, keyed by the language answer. The style written in
	// that language gets the largest single weight: maintainability
	// outweighs raw performance.
	MaintainerPoints map[string]int
	// Reasons are the style's own words for an answer that favours it,
	// keyed like Points; shown instead of the answer's general reason when
	// the style is the one recommended.
	Reasons map[string]string
	// Languages are the team languages the style is written in: the
	// checklist offers each as an answer (a style in a new language brings
	// its own). Styles in one language name it alike.
	Languages []Language
	// WithoutCRD: the style serves a project with no CRD of its own (it
	// watches or decorates existing kinds). When no new CRD is wanted,
	// only such styles are recommended.
	WithoutCRD bool
	// ScaleAdvice is what lets the style's runtime keep up with many
	// objects (a flag that raises its rate), as a clause: decide says it
	// where the style's measured figures fall short at large scale.
	ScaleAdvice string
}

// CheckProfiles refuses a style registry Recommend could not serve: fewer
// than two styles (there is always a runner-up), an unnamed or duplicate
// style, a comparison row with an empty column, or points for an answer no
// question offers. opctl runs it at start.
func CheckProfiles(profiles []Profile) error {
	if len(profiles) < 2 {
		return fmt.Errorf("style registry: %d style(s), the checklist needs at least two", len(profiles))
	}
	named := map[string]Language{}
	for _, p := range profiles {
		for _, l := range p.Languages {
			switch earlier, ok := named[l.Value]; {
			case l.Value == "" || l.Label == "" || l.Reason == "":
				return fmt.Errorf("style registry: style %q names a language without a value, label or reason", p.Style)
			case l.Value == other.Value:
				return fmt.Errorf("style registry: style %q is written in %q, the answer of teams no style is written for", p.Style, l.Value)
			case ok && earlier != l:
				return fmt.Errorf("style registry: style %q names language %q otherwise than a style before it", p.Style, l.Value)
			}
			named[l.Value] = l
		}
	}
	options := map[string]bool{}
	for _, q := range Questions(profiles) {
		for _, o := range q.Options {
			options[q.ID+"="+o.Value] = true
		}
	}
	seen := map[string]bool{}
	for _, p := range profiles {
		if p.Style == "" {
			return fmt.Errorf("style registry: a style without a name")
		}
		if seen[p.Style] {
			return fmt.Errorf("style registry: style %q is registered twice", p.Style)
		}
		seen[p.Style] = true
		row := reflect.ValueOf(p.Comparison)
		for i := 0; i < row.NumField(); i++ {
			name := row.Type().Field(i).Name
			if name != "Style" && strings.TrimSpace(row.Field(i).String()) == "" {
				return fmt.Errorf("style registry: style %q has no comparison row (%s is empty)", p.Style, name)
			}
		}
		for key := range p.Points {
			if !options[key] {
				return fmt.Errorf("style registry: style %q gives points for %q, which no question offers", p.Style, key)
			}
		}
		for key := range p.Reasons {
			if !options[key] {
				return fmt.Errorf("style registry: style %q gives a reason for %q, which no question offers", p.Style, key)
			}
		}
		for lang := range p.MaintainerPoints {
			if !options["language="+lang] {
				return fmt.Errorf("style registry: style %q gives maintainer points for language %q, which the checklist does not offer", p.Style, lang)
			}
		}
	}
	return nil
}

// PointsTable is the decision table as the README prints it: per answer,
// the points each style gives it (largest first, ties in registry order),
// then what maintainers who can fix code in the team's language add.
// Generated from the profiles, it cannot drift from what Recommend does.
func PointsTable(profiles []Profile) string {
	var b strings.Builder
	b.WriteString("| answer | points |\n|---|---|\n")
	row := func(answer string, points func(Profile) int) {
		type scored struct {
			style  string
			points int
		}
		var got []scored
		for _, p := range profiles {
			if n := points(p); n != 0 {
				got = append(got, scored{p.Style, n})
			}
		}
		sort.SliceStable(got, func(i, j int) bool { return got[i].points > got[j].points })
		var cells []string
		for _, s := range got {
			cells = append(cells, fmt.Sprintf("%s %+d", s.style, s.points))
		}
		if len(cells) == 0 {
			cells = []string{"none"}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", answer, strings.Join(cells, ", "))
	}
	var spoken []Option
	for _, q := range Questions(profiles) {
		if q.ID == "language" {
			spoken = q.Options
		}
		for _, o := range q.Options {
			row(fmt.Sprintf("%s: %s", q.ID, o.Value), func(p Profile) int { return p.Points[q.ID+"="+o.Value] })
			if q.ID != "maintainers" || o.Value != "yes" {
				continue
			}
			for _, l := range spoken {
				row(fmt.Sprintf("maintainers: yes, language: %s", l.Value), func(p Profile) int { return p.MaintainerPoints[l.Value] })
			}
		}
	}
	return b.String()
}
