package scaffold

import (
	"fmt"
	"strconv"
	"strings"
)

// modifier is one modifier of --field (a key of a --from field): how it
// sets the field and whether a field uses it. Which types take it is in
// the type table; how it is checked with the others, in the type's check.
type modifier struct {
	name string
	// flag: it takes no value (required, column).
	flag bool
	set  func(f *Field, value string) error
	used func(f Field) bool
}

func intModifier(name string, get func(*Field) **int64) modifier {
	return modifier{name: name,
		set: func(f *Field, v string) (err error) {
			*get(f), err = parseInt(name, v)
			return err
		},
		used: func(f Field) bool { return *get(&f) != nil },
	}
}

// modifierTable lists the modifiers in the order help shows them.
func modifierTable() []modifier {
	return []modifier{
		{name: "required", flag: true, set: func(f *Field, _ string) error { f.Required = true; return nil },
			used: func(f Field) bool { return f.Required }},
		{name: "default", set: func(f *Field, v string) error { f.Default = &v; return nil },
			used: func(f Field) bool { return f.Default != nil }},
		{name: "enum", set: func(f *Field, v string) error { f.Enum = strings.Split(v, ","); return nil },
			used: func(f Field) bool { return f.Enum != nil }},
		intModifier("min", func(f *Field) **int64 { return &f.Min }),
		intModifier("max", func(f *Field) **int64 { return &f.Max }),
		intModifier("minLength", func(f *Field) **int64 { return &f.MinLength }),
		intModifier("maxLength", func(f *Field) **int64 { return &f.MaxLength }),
		{name: "pattern", set: func(f *Field, v string) error { f.Pattern = v; return nil },
			used: func(f Field) bool { return f.Pattern != "" }},
		{name: "column", flag: true, set: func(f *Field, _ string) error { f.Column = true; return nil },
			used: func(f Field) bool { return f.Column }},
		{name: "key", flag: true, set: func(f *Field, _ string) error { f.Key = true; return nil },
			used: func(f Field) bool { return f.Key }},
		{name: "immutable", flag: true, set: func(f *Field, _ string) error { f.Immutable = true; return nil },
			used: func(f Field) bool { return f.Immutable }},
		{name: "rule", set: func(f *Field, v string) error { f.Rules = append(f.Rules, ParseRule(v)); return nil },
			used: func(f Field) bool { return len(f.Rules) > 0 }},
	}
}

func lookupModifier(name string) (modifier, bool) {
	for _, m := range modifierTable() {
		if m.name == name {
			return m, true
		}
	}
	return modifier{}, false
}

func modifierNames() string {
	var names []string
	for _, m := range modifierTable() {
		names = append(names, m.name)
	}
	return strings.Join(names, ", ")
}

func isModifier(segment string) bool {
	key, _, _ := strings.Cut(segment, "=")
	_, ok := lookupModifier(key)
	return ok
}

// ParseField parses NAME:TYPE[:MODIFIER...] as given to --field.
// pattern= and rule= take the rest of the spec verbatim (so they come last);
// default= extends over following segments that are not modifiers, so
// datetimes keep their colons.
func ParseField(spec string) (Field, error) { return parseField("field", spec) }

// ParseStatusField parses NAME:TYPE[:MODIFIER...] as given to
// --status-field.
func ParseStatusField(spec string) (Field, error) { return parseField("status-field", spec) }

func parseField(flag, spec string) (Field, error) {
	bad := func(format string, args ...any) error {
		return invalid(FlagSource, flag, spec, format, args...)
	}
	parts := strings.Split(spec, ":")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Field{}, bad("want NAME:TYPE[:MODIFIER...], e.g. replicas:int32:min=1")
	}
	f := Field{Name: parts[0], Type: FieldType(parts[1])}
	if !f.Type.known() {
		return Field{}, bad("unknown type %q (types: %s)", parts[1], joinTypes())
	}
	rest := parts[2:]
	for i := 0; i < len(rest); i++ {
		seg := rest[i]
		key, value, hasValue := strings.Cut(seg, "=")
		switch key {
		case "pattern", "rule":
			value = strings.Join(append([]string{value}, rest[i+1:]...), ":")
			i = len(rest)
		case "default":
			for i+1 < len(rest) && !isModifier(rest[i+1]) {
				i++
				value += ":" + rest[i]
			}
		}
		if err := applyModifier(&f, key, value, hasValue); err != nil {
			return Field{}, bad("%v", err)
		}
	}
	return f, nil
}

func applyModifier(f *Field, key, value string, hasValue bool) error {
	m, ok := lookupModifier(key)
	switch {
	case !ok:
		return fmt.Errorf("unknown modifier %q (modifiers: %s)", key, modifierNames())
	case m.flag && hasValue:
		return fmt.Errorf("modifier %q takes no value", key)
	case !m.flag && !hasValue:
		return fmt.Errorf("modifier %q needs a value: %s=V", key, key)
	}
	return m.set(f, value)
}

func parseInt(key, value string) (*int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%s is not an integer", key, value)
	}
	return &n, nil
}

func joinTypes() string {
	var names []string
	for _, t := range FieldTypes() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// Spec is the field as --field takes it, ParseField's inverse: name, type,
// then each modifier in help's order, pattern= and rule= last as they take
// the rest. ok is false when one --field cannot say it (two rules, or a
// pattern and a rule, each of which must come last).
func (f Field) Spec() (spec string, ok bool) {
	parts := []string{f.Name, string(f.Type)}
	if f.Required {
		parts = append(parts, "required")
	}
	if f.Default != nil {
		parts = append(parts, "default="+*f.Default)
	}
	if f.Enum != nil {
		parts = append(parts, "enum="+strings.Join(f.Enum, ","))
	}
	for _, b := range []struct {
		name string
		n    *int64
	}{{"min", f.Min}, {"max", f.Max}, {"minLength", f.MinLength}, {"maxLength", f.MaxLength}} {
		if b.n != nil {
			parts = append(parts, b.name+"="+strconv.FormatInt(*b.n, 10))
		}
	}
	if f.Column {
		parts = append(parts, "column")
	}
	if f.Key {
		parts = append(parts, "key")
	}
	if f.Immutable {
		parts = append(parts, "immutable")
	}
	last := 0
	if f.Pattern != "" {
		parts = append(parts, "pattern="+f.Pattern)
		last++
	}
	for _, r := range f.Rules {
		rule := r.Rule
		if r.Message != "" {
			rule += "#" + r.Message
		}
		parts = append(parts, "rule="+rule)
		last++
	}
	return strings.Join(parts, ":"), last <= 1 && f.Description == ""
}
