package api

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/opctl/opctl/scaffold/input"
)

// modifier is one modifier of --field (a key of a --from field): how it
// sets the field and whether a field uses it. Which types take it is in
// the type table; how it is checked with the others, in the type's check.
type modifier struct {
	name string
	// flag: it takes no value (required, column).
	flag bool
	// about is what it does, as a prompt offers it: the value asked for,
	// or what a flag means.
	about string
	set   func(f *Field, value string) error
	used  func(f Field) bool
	// value is the value as --field gives it (a flag has none; a rule is
	// the first).
	value func(f Field) string
}

func intModifier(name, about string, get func(*Field) **int64) modifier {
	return modifier{name: name, about: about,
		set: func(f *Field, v string) (err error) {
			*get(f), err = parseInt(name, v)
			return err
		},
		used: func(f Field) bool { return *get(&f) != nil },
		value: func(f Field) string {
			if n := *get(&f); n != nil {
				return strconv.FormatInt(*n, 10)
			}
			return ""
		},
	}
}

func noValue(Field) string { return "" }

// modifierTable lists the modifiers in the order help shows them.
func modifierTable() []modifier {
	return []modifier{
		{name: "required", flag: true, about: "must be set", set: func(f *Field, _ string) error { f.Required = true; return nil },
			used: func(f Field) bool { return f.Required }, value: noValue},
		{name: "default", about: "Default", set: func(f *Field, v string) error { f.Default = &v; return nil },
			used: func(f Field) bool { return f.Default != nil },
			value: func(f Field) string {
				if f.Default == nil {
					return ""
				}
				return *f.Default
			}},
		{name: "enum", about: "Allowed values, comma-separated", set: func(f *Field, v string) error { f.Enum = strings.Split(v, ","); return nil },
			used: func(f Field) bool { return f.Enum != nil }, value: func(f Field) string { return strings.Join(f.Enum, ",") }},
		intModifier("min", "Minimum", func(f *Field) **int64 { return &f.Min }),
		intModifier("max", "Maximum", func(f *Field) **int64 { return &f.Max }),
		intModifier("minLength", "Minimum length", func(f *Field) **int64 { return &f.MinLength }),
		intModifier("maxLength", "Maximum length", func(f *Field) **int64 { return &f.MaxLength }),
		{name: "pattern", about: "Pattern (a regular expression)", set: func(f *Field, v string) error { f.Pattern = v; return nil },
			used: func(f Field) bool { return f.Pattern != "" }, value: func(f Field) string { return f.Pattern }},
		{name: "format", about: "Format the API server checks (email, uri, uuid, hostname, ipv4, cidr, date, ...)", set: func(f *Field, v string) error { f.Format = v; return nil },
			used: func(f Field) bool { return f.Format != "" }, value: func(f Field) string { return f.Format }},
		intModifier("minItems", "Minimum number of items", func(f *Field) **int64 { return &f.MinItems }),
		intModifier("maxItems", "Maximum number of items", func(f *Field) **int64 { return &f.MaxItems }),
		{name: "listType", about: "atomic (replaced whole), set (unique items) or map (objects merged by mapKeys)", set: func(f *Field, v string) error { f.ListType = v; return nil },
			used: func(f Field) bool { return f.ListType != "" }, value: func(f Field) string { return f.ListType }},
		{name: "mapKeys", about: "Keys of the list's objects, comma-separated (listType map)", set: func(f *Field, v string) error { f.MapKeys = strings.Split(v, ","); return nil },
			used: func(f Field) bool { return f.MapKeys != nil }, value: func(f Field) string { return strings.Join(f.MapKeys, ",") }},
		intModifier("minProperties", "Minimum number of keys", func(f *Field) **int64 { return &f.MinProperties }),
		intModifier("maxProperties", "Maximum number of keys", func(f *Field) **int64 { return &f.MaxProperties }),
		{name: "column", flag: true, about: "a column of kubectl get", set: func(f *Field, _ string) error { f.Column = true; return nil },
			used: func(f Field) bool { return f.Column }, value: noValue},
		{name: "key", flag: true, about: "a key of its list's objects", set: func(f *Field, _ string) error { f.Key = true; return nil },
			used: func(f Field) bool { return f.Key }, value: noValue},
		{name: "immutable", flag: true, about: "no change once created", set: func(f *Field, _ string) error { f.Immutable = true; return nil },
			used: func(f Field) bool { return f.Immutable }, value: noValue},
		{name: "rule", about: "CEL rule, self being the field (a message after #)",
			set:  func(f *Field, v string) error { f.Rules = append(f.Rules, ParseRule(v)); return nil },
			used: func(f Field) bool { return len(f.Rules) > 0 },
			value: func(f Field) string {
				if len(f.Rules) == 0 {
					return ""
				}
				return f.Rules[0].text()
			}},
		{name: "itemRule", about: "CEL rule on each item of a list or value of a map, self being it (a message after #)",
			set:  func(f *Field, v string) error { f.ItemRules = append(f.ItemRules, ParseRule(v)); return nil },
			used: func(f Field) bool { return len(f.ItemRules) > 0 },
			value: func(f Field) string {
				if len(f.ItemRules) == 0 {
					return ""
				}
				return f.ItemRules[0].text()
			}},
	}
}

// FieldModifier is a modifier of --field as a prompt offers it: Flag
// modifiers take no value, and About says what they mean; the others ask
// for the value About names.
type FieldModifier struct {
	Name  string
	Flag  bool
	About string
}

// Modifiers are the modifiers a field of f's type takes, in help's order;
// key only in a list's objects, the only place it means something.
func (f Field) Modifiers() []FieldModifier {
	var out []FieldModifier
	for _, m := range modifierTable() {
		if f.Type.Allows(m.name) && (m.name != "key" || f.InList()) {
			out = append(out, FieldModifier{Name: m.name, Flag: m.flag, About: m.about})
		}
	}
	return out
}

// SetModifier sets f's modifier name as --field does, with the same
// errors; value is ignored for a flag.
func (f *Field) SetModifier(name, value string) error {
	m, ok := lookupModifier(name)
	if !ok {
		return fmt.Errorf("unknown modifier %q (modifiers: %s)", name, modifierNames())
	}
	if m.flag {
		value = ""
	}
	return applyModifier(f, name, value, !m.flag)
}

// ModifierValue is f's value of the modifier as --field gives it, and
// whether f uses the modifier at all.
func (f Field) ModifierValue(name string) (string, bool) {
	m, ok := lookupModifier(name)
	if !ok || !m.used(f) {
		return "", false
	}
	return m.value(f), true
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
// pattern=, rule= and itemRule= take the rest of the spec verbatim (so they
// come last); default= extends over following segments that are not
// modifiers, so datetimes and JSON keep their colons.
func ParseField(spec string) (Field, error) { return parseField("field", spec) }

// ParseStatusField parses NAME:TYPE[:MODIFIER...] as given to
// --status-field.
func ParseStatusField(spec string) (Field, error) { return parseField("status-field", spec) }

func parseField(flag, spec string) (Field, error) {
	bad := func(format string, args ...any) error {
		return input.Invalid(input.FlagSource, flag, spec, format, args...)
	}
	parts := strings.Split(spec, ":")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return Field{}, bad("want NAME:TYPE[:MODIFIER...], e.g. replicas:int32:min=1")
	}
	f := Field{Name: parts[0], Type: FieldType(parts[1]).Canonical()}
	if _, err := f.Type.parse(); err != nil {
		return Field{}, bad("%v", err)
	}
	rest := parts[2:]
	for i := 0; i < len(rest); i++ {
		seg := rest[i]
		key, value, hasValue := strings.Cut(seg, "=")
		switch key {
		case "pattern", "rule", "itemRule":
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
	if errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%s=%s is outside int64", key, value)
	}
	if err != nil {
		shown := value
		if q := strconv.Quote(value); q != `"`+value+`"` {
			shown = q // one line, whatever the value holds
		}
		return nil, fmt.Errorf("%s=%s is not an integer", key, shown)
	}
	return &n, nil
}

// joinTypes lists the scalar types.
func joinTypes() string {
	var names []string
	for _, r := range fieldTypeTable {
		names = append(names, string(r.t))
	}
	return strings.Join(names, ", ")
}

// Spec is the field as --field takes it, ParseField's inverse: name, type,
// then each modifier in help's order, pattern=, rule= and itemRule= last as
// they take the rest. ok is false when one --field cannot say it (two
// rules, or a pattern and a rule, each of which must come last).
func (f Field) Spec() (spec string, ok bool) {
	parts := []string{f.Name, string(f.Type)}
	var last []string
	for _, m := range modifierTable() {
		switch {
		case !m.used(f):
		case m.name == "rule":
			for _, r := range f.Rules {
				last = append(last, "rule="+r.text())
			}
		case m.name == "itemRule":
			for _, r := range f.ItemRules {
				last = append(last, "itemRule="+r.text())
			}
		case m.name == "pattern":
			last = append(last, "pattern="+m.value(f))
		case m.flag:
			parts = append(parts, m.name)
		default:
			parts = append(parts, m.name+"="+m.value(f))
		}
	}
	return strings.Join(append(parts, last...), ":"), len(last) <= 1 && f.Description == ""
}

// text is the rule as --field and --rule take it: RULE[#MESSAGE].
func (r Rule) text() string {
	if r.Message == "" {
		return r.Rule
	}
	return r.Rule + "#" + r.Message
}
