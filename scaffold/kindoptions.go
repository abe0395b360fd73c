package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"

	"github.com/opctl/opctl/scaffold/input"
)

// apiFields are the keys of every kind's entry in the project file.
func apiFields() []string {
	t := reflect.TypeOf(API{})
	var keys []string
	for i := range t.NumField() {
		if key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); key != "-" && key != "" {
			keys = append(keys, key)
		}
	}
	return keys
}

// plainAPI is an API without its JSON methods.
type plainAPI API

// MarshalJSON writes a kind with its options (its style's settings) as
// keys of its own, beside the fields every kind has.
func (a API) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainAPI(a))
	if err != nil || len(a.Options) == 0 {
		return b, err
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(b, &entry); err != nil {
		return nil, err
	}
	for name, value := range a.Options {
		if slices.Contains(apiFields(), name) {
			return nil, fmt.Errorf("internal error: kind %s: option %s is a field of every kind", a.Kind, name)
		}
		if entry[name], err = json.Marshal(value); err != nil {
			return nil, err
		}
	}
	return json.Marshal(entry)
}

// UnmarshalJSON reads a kind into a, whose fields hold the defaults: a key
// that no kind has is one of its style's options when its value is a
// string (Project.Validate and create api check it against the style),
// else an unknown field.
func (a *API) UnmarshalJSON(b []byte) error {
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(b, &entry); err != nil {
		return err
	}
	known := apiFields()
	var options map[string]string
	for key, raw := range entry {
		if slices.Contains(known, key) {
			continue
		}
		var value string
		if json.Unmarshal(raw, &value) != nil {
			return fmt.Errorf("json: unknown field %q", key)
		}
		if options == nil {
			options = map[string]string{}
		}
		options[key] = value
		delete(entry, key)
	}
	rest, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	plain := plainAPI(*a)
	if err := dec.Decode(&plain); err != nil {
		return err
	}
	*a = API(plain)
	a.Options = options
	return nil
}

// ValidateOptions checks a kind's options against its project's style:
// each must be one of the style's (styles names those that have it), with
// a value it accepts; files as KindOption.Validate takes them.
func ValidateOptions(src input.Source, style Style, styles Styles, a API, files fs.FS) error {
	for _, name := range SortedKeys(a.Options) {
		option, ok := style.KindOption(name)
		if !ok {
			var with []string
			for _, s := range styles {
				if _, has := s.KindOption(name); has {
					with = append(with, s.Name)
				}
			}
			if len(with) == 0 {
				return input.Errorf("%s: a kind has no key %s (its keys: %s)", src(name), name, strings.Join(append(apiFields(), optionNames(styles)...), ", "))
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
func (s Style) RunsInstead(a API) string {
	for _, o := range s.KindOptions {
		if v := a.Options[o.Name]; v != "" && o.RunsInstead {
			return "the " + o.Name + " " + v
		}
	}
	return ""
}
