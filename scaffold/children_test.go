package scaffold

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsSubset(t *testing.T) {
	env := func(names ...string) []any {
		var out []any
		for _, n := range names {
			out = append(out, map[string]any{"name": n, "value": "v" + n})
		}
		return out
	}
	tests := []struct {
		name            string
		desired, actual any
		want            bool
	}{
		{"fields the server adds do not count", map[string]any{"a": "1"}, map[string]any{"a": "1", "resourceVersion": "7"}, true},
		{"a changed value", map[string]any{"a": "1"}, map[string]any{"a": "2"}, false},
		{"a missing key", map[string]any{"a": "1"}, map[string]any{}, false},
		{"name-keyed list in another order", env("A", "B", "C"), env("C", "A", "B"), true},
		{"name-keyed list with an item too many", env("A", "B"), env("A", "B", "C"), false},
		{"name-keyed list with another item", env("A", "B"), env("A", "C"), false},
		{"name-keyed item changed", env("A"), []any{map[string]any{"name": "A", "value": "other"}}, false},
		{"plain list in another order", []any{"a", "b"}, []any{"b", "a"}, false},
		{"plain list equal", []any{"a", "b"}, []any{"a", "b"}, true},
		{"numbers as JSON", map[string]any{"n": int64(1)}, map[string]any{"n": float64(1)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isSubset(tt.desired, tt.actual))
		})
	}
}

// The one encoding of spec values into children, which every style
// matches byte for byte (their generated tests read the same table from
// tests/spec-values.json).
func TestFlattenSpecTrickyValues(t *testing.T) {
	assert.Equal(t, map[string]string{
		"html":               `["a&b<c>"]`,
		"utf8":               `["café","日本"]`,
		"quotes":             `["say \"hi\"","back\\slash"]`,
		"lines":              `["one\ntwo","tab\there"]`,
		"empty":              `[]`,
		"text":               "a&b <c> café \"q\"\n",
		"flag":               "true",
		"count":              "3",
		"nested.k":           "v",
		"nested.deeper.list": `["x"]`,
	}, flattenSpec(TrickySpec()))
}
