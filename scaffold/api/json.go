package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// APIFields are the keys of every kind's entry in the project file.
func APIFields() []string {
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
		if slices.Contains(APIFields(), name) {
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
	known := APIFields()
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
