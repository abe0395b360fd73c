package scaffold

import (
	"fmt"
	"strconv"
	"strings"
)

// modifiers lists the modifier keywords of --field in the order help shows them.
var modifierNames = []string{"required", "default", "enum", "min", "max", "minLength", "maxLength", "pattern", "column"}

func isModifier(segment string) bool {
	key, _, _ := strings.Cut(segment, "=")
	for _, m := range modifierNames {
		if key == m {
			return true
		}
	}
	return false
}

// ParseField parses NAME:TYPE[:MODIFIER...] as given to --field.
// pattern= takes the rest of the spec verbatim; default= extends over
// following segments that are not modifiers, so datetimes keep their colons.
func ParseField(spec string) (Field, error) {
	bad := func(format string, args ...any) error {
		return invalid(FlagSource, "field", spec, format, args...)
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
		case "pattern":
			f.Pattern = strings.Join(append([]string{value}, rest[i+1:]...), ":")
			i = len(rest)
			continue
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
	flag := key == "required" || key == "column"
	if flag && hasValue {
		return fmt.Errorf("modifier %q takes no value", key)
	}
	if !flag && !hasValue {
		if isModifier(key) {
			return fmt.Errorf("modifier %q needs a value: %s=V", key, key)
		}
		return fmt.Errorf("unknown modifier %q (modifiers: %s)", key, strings.Join(modifierNames, ", "))
	}
	var err error
	switch key {
	case "required":
		f.Required = true
	case "column":
		f.Column = true
	case "default":
		f.Default = &value
	case "enum":
		f.Enum = strings.Split(value, ",")
	case "min":
		f.Min, err = parseInt(key, value)
	case "max":
		f.Max, err = parseInt(key, value)
	case "minLength":
		f.MinLength, err = parseInt(key, value)
	case "maxLength":
		f.MaxLength, err = parseInt(key, value)
	default:
		return fmt.Errorf("unknown modifier %q (modifiers: %s)", key, strings.Join(modifierNames, ", "))
	}
	return err
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
	for _, t := range fieldTypes {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}
