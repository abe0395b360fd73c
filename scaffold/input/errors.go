// Package input is how opctl reports a problem with what the user asked
// for: the input (a flag, or a key of a file), the value and the rule it
// breaks, so every front end names it the same way and exits 2.
package input

import (
	"fmt"
)

// Error is a problem with what the user asked for: the input (Key, as
// its flag is named), the Value given and the Rule it breaks. Each front end
// shows it its own way: Error names a flag or a key of a file (by Src), and
// a prompt re-asks with the Rule alone. Commands exit 2 on it; every other
// error exits 1.
type Error struct {
	Key, Value, Rule string
	// Src names the key; nil names it as a flag.
	Src Source
	// msg is a message about no single value (a missing project file).
	msg string
}

func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	src := e.Src
	if src == nil {
		src = FlagSource
	}
	return fmt.Sprintf("%s %q: %s", src(e.Key), e.Value, e.Rule)
}

// Invalid reports that value, given for key (named by src), breaks a rule.
func Invalid(src Source, key, value, rule string, args ...any) error {
	return &Error{Key: key, Value: value, Rule: fmt.Sprintf(rule, args...), Src: src}
}

// Errorf is an input error about no single value.
func Errorf(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}

// Source names where an input came from, so errors point at the flag or the
// file the user has to fix.
type Source func(key string) string

// FlagSource names inputs as command-line flags: "--kind".
func FlagSource(key string) string { return "--" + key }

// FileSource names inputs as keys of a file: "api.yaml: kind".
func FileSource(path string) Source {
	return func(key string) string { return path + ": " + key }
}
