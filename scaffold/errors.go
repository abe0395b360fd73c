package scaffold

import "fmt"

// InputError is a problem with what the user asked for (a flag, a file, a
// value). Commands exit 2 on it; every other error exits 1.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
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
