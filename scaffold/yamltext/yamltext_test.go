package yamltext

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// tricky holds the values whose YAML form go-yaml v2 decides with care:
// YAML 1.1 booleans and nulls, numbers and timestamps in strings, indicator
// characters, spaces and breaks at the ends, escapes, long text folded at
// 80 columns, and keys in go-yaml's order.
var tricky = []any{
	"", " ", "a", "true", "y", "No", "off", "~", "null", "<<", ".inf", "-.Inf", ".5", "1.", "1e3", "+1", "-0", "0x1F", "0o17", "0b101", "-0b11",
	"1_000", "12:30", "190:20:30.15", "2006-01-02", "2006-1-2T15:04:05Z", "2006-01-02 15:04:05", "20060102",
	"- a", "-a", "? x", "?x", ": x", "a: b", "a:b", "a #b", "a#b", "#a", "&a", "*a", "!a", "|a", ">a", "'a", "\"a", "%a", "@a", "`a",
	"[a]", "a, b", "{a}", "---", "--- a", "...", "a\tb", "\ta", "a\n", "a\nb", "\na", "a\n\n", "a \nb", "a\n b", " a", "a ", "a\r\nb",
	"\x00", "\x07", "\x1b", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeffa", "é", "日本", "😀", "\ufffe", "a\\b", `a"b`, "it's",
	strings.Repeat("word ", 40), strings.Repeat("x", 100) + " y z", "a" + strings.Repeat(" ", 90) + "b",
	"\"" + strings.Repeat("quoted words ", 12), "#" + strings.Repeat("hash words ", 12), strings.Repeat("long-word-", 12) + " tail",
	strings.Repeat("line one with words ", 6) + "\n" + strings.Repeat("line two ", 12),
	json.Number("1"), json.Number("-0"), json.Number("1.5"), json.Number("1e3"), json.Number("1E400"), json.Number("18446744073709551615"),
	json.Number("18446744073709551616"), json.Number("0.000001"), 1.0, 1.5, 1e21, 1e-7, -0.0, 3e300, true, false, nil,
	[]any{}, map[string]any{}, []any{"a", []any{"b", map[string]any{"c": "d"}}, []any{}},
}

func TestMatchesSigsYAML(t *testing.T) {
	keys := map[string]any{"b": 1.0, "a10": 1.0, "a9": 1.0, "a_b": 1.0, "aB": 1.0, "A": 1.0, "a00": 1.0, "a01": 1.0, "a1": 1.0, "1": 1.0, "é": 1.0, "": 1.0,
		"a\nb": "multi-line key", strings.Repeat("k", 130): "long key", strings.Repeat("k", 1100): "too long a key", "true": "quoted key"}
	for _, v := range tricky {
		check(t, v)
		check(t, map[string]any{"key": v})
		check(t, map[string]any{"deep": map[string]any{"er": []any{v, map[string]any{"key": v, "more": v}}}})
		check(t, []any{v, []any{v}})
		if s, ok := v.(string); ok {
			keys[s] = v
		}
	}
	check(t, keys)
}

func FuzzMatchesSigsYAML(f *testing.F) {
	for _, v := range tricky {
		if s, ok := v.(string); ok {
			f.Add(s, 0)
		}
	}
	f.Fuzz(func(t *testing.T, s string, depth int) {
		v := any(s)
		for i := 0; i < depth%5; i++ {
			if i%2 == 0 {
				v = map[string]any{s: v, "k": s}
			} else {
				v = []any{v, s}
			}
		}
		check(t, v)
	})
}

func check(t *testing.T, v any) {
	t.Helper()
	want, wantErr := yaml.Marshal(v)
	got, err := Marshal(v)
	short := func(b []byte) string {
		if len(b) > 2000 {
			return string(b[:2000]) + "..."
		}
		return string(b)
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, sigs.k8s.io/yaml: %v", short(want), err, wantErr)
	}
	if string(got) != string(want) {
		t.Fatalf("got:\n%s\nwant (sigs.k8s.io/yaml):\n%s", short(got), short(want))
	}
	if got, err := Encode(v); err == nil && wantErr == nil && string(got) != string(want) {
		t.Fatalf("Encode:\n%s\nwant (sigs.k8s.io/yaml):\n%s", short(got), short(want))
	}
}
