package render

import (
	"github.com/opctl/opctl/scaffold"
	"github.com/opctl/opctl/scaffold/input"
	"github.com/opctl/opctl/scaffold/machinery"
)

// CheckWrittenStyle refuses a project whose file names another style than
// the one its files were written in (style: changed by hand): rendering it
// would put one style's project over another's, in place. tree is p
// rendered; only when it lacks a generated file the project file records
// are the styles compared, each rendering p, so a command pays for it only
// then.
func CheckWrittenStyle(p scaffold.Project, tree *machinery.Tree, styles scaffold.Styles) error {
	missing := false
	for path := range p.Generated {
		if _, ok := tree.Get(path); !ok {
			missing = true
			break
		}
	}
	if !missing {
		return nil
	}
	// Each style is scored by the recorded files it alone generates (its
	// code's wiring): the files every style, or several, generate (config/,
	// the chart, the OLM bundle, which a style may stop writing when the
	// project changes) tell no style from another.
	trees := map[string]*machinery.Tree{}
	producers := map[string]int{}
	for _, s := range styles {
		q := p
		q.Style = s.Name
		t, err := Project(q, s)
		if err != nil {
			continue // a style that cannot take the project did not write it
		}
		trees[s.Name] = t
		for _, f := range t.Files() {
			if f.Owner == machinery.Generated && p.Generated[f.Path] != "" {
				producers[f.Path]++
			}
		}
	}
	counts := map[string]int{}
	written := p.Style
	for _, s := range styles {
		t, ok := trees[s.Name]
		if !ok {
			continue
		}
		for _, f := range t.Files() {
			if f.Owner == machinery.Generated && p.Generated[f.Path] != "" && producers[f.Path] == 1 {
				counts[s.Name]++
			}
		}
		if counts[s.Name] > counts[written] {
			written = s.Name
		}
	}
	if written == p.Style {
		return nil
	}
	return input.Errorf("%s: style %q: the project's files were written in the %s style, and writing %s over them in place would leave neither: put style: %s back, then opctl migrate --to %s DIR writes the project in %s into DIR", scaffold.ProjectFileName, p.Style, written, p.Style, written, p.Style, p.Style)
}
