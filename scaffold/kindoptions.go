package scaffold

import (
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/api"
	"github.com/opctl/opctl/scaffold/input"
)

// ValidateOptions checks a kind's options against its project's style:
// each must be one of the style's (styles names those that have it), with
// a value it accepts; files as KindOption.Validate takes them.
func ValidateOptions(src input.Source, style Style, styles Styles, a api.API, files fs.FS) error {
	for _, name := range slices.Sorted(maps.Keys(a.Options)) {
		option, ok := style.KindOption(name)
		if !ok {
			var with []string
			for _, s := range styles {
				if _, has := s.KindOption(name); has {
					with = append(with, s.Name)
				}
			}
			if len(with) == 0 {
				return input.Errorf("%s: a kind has no key %s (its keys: %s)", src(name), name, strings.Join(append(api.APIFields(), optionNames(styles)...), ", "))
			}
			return input.Errorf("%s is for %s projects; this project's style is %s", src(name), strings.Join(with, ", "), style.Name)
		}
		if err := option.Validate(src, a, a.Options[name], files); err != nil {
			return err
		}
	}
	return nil
}

// optionNames are the names of every style's kind options, once each.
func optionNames(styles Styles) []string {
	var out []string
	for _, s := range styles {
		for _, o := range s.KindOptions {
			if !slices.Contains(out, o.Name) {
				out = append(out, o.Name)
			}
		}
	}
	return out
}

// RunsInstead is what a kind runs instead of its style's code (a
// KindOption with RunsInstead, as "the playbook playbooks/backup.yml"),
// "" when it runs the style's code.
func (s Style) RunsInstead(a api.API) string {
	for _, o := range s.KindOptions {
		if v := a.Options[o.Name]; v != "" && o.RunsInstead {
			return "the " + o.Name + " " + v
		}
	}
	return ""
}
