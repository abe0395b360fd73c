package scaffold

import (
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

// EditAPI returns the project with the kind changed by e, checked by the
// rules create api meets, and the kind as it was.
func (p Project) EditAPI(src input.Source, kind string, e api.APIEdit) (Project, api.API, error) {
	return p.changeAPI(src, kind, e, func(a api.API) (api.API, error) { return a, nil })
}

// AddVersion returns the project with a new version v of the kind
// (API.WithVersion), changed by e, keeping the values of the fields it
// removed (API.KeepingRemoved), and the kind as it was.
func (p Project) AddVersion(src input.Source, kind, v string, e api.APIEdit) (Project, api.API, error) {
	p, old, err := p.changeAPI(src, kind, e, func(a api.API) (api.API, error) { return a.WithVersion(src, v, e.Renames) })
	if err != nil {
		return p, old, err
	}
	i := slices.IndexFunc(p.APIs, func(a api.API) bool { return a.Kind == kind })
	p.APIs[i] = p.APIs[i].KeepingRemoved()
	return p, old, nil
}

// TakeBackFrom returns the project with the kind taken back from from, the
// kind as a CRD has it (API.TakenBack), and the kind as it was.
func (p Project) TakeBackFrom(src input.Source, kind string, from api.API) (Project, api.API, error) {
	return p.changeAPI(src, kind, api.APIEdit{}, func(a api.API) (api.API, error) { return a.TakenBack(from) })
}

// changeAPI applies step, then e, to the kind, and checks the result by
// the rules create api meets.
func (p Project) changeAPI(src input.Source, kind string, e api.APIEdit, step func(api.API) (api.API, error)) (Project, api.API, error) {
	i, err := p.kindIndex(src, kind)
	if err != nil {
		return p, api.API{}, err
	}
	old := p.APIs[i]
	a, err := step(old)
	if err != nil {
		return p, old, err
	}
	a, err = e.Apply(src, a)
	if err != nil {
		return p, old, err
	}
	if err := api.ValidateAPI(src, p.Domain, a); err != nil {
		return p, old, err
	}
	p.APIs = slices.Clone(p.APIs)
	p.APIs[i] = a
	return p, old, nil
}

// kindIndex is the index of the project's kind named kind (given as src's
// "kind"), or an error naming the kinds there are.
func (p Project) kindIndex(src input.Source, kind string) (int, error) {
	var kinds []string
	for i, a := range p.APIs {
		if a.Kind == kind {
			return i, nil
		}
		kinds = append(kinds, a.Kind)
	}
	if len(kinds) == 0 {
		return -1, input.Errorf("%s %s: the project has no kinds yet: add one with opctl create api", src("kind"), kind)
	}
	return -1, input.Invalid(src, "kind", kind, "the project has no such kind (kinds: %s)", strings.Join(kinds, ", "))
}
