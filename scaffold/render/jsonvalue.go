package render

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RoundTrip normalises an object to what encoding/json decodes from it, as
// a file would hold it: maps of any, lists of any, float64 numbers. The
// types objects are built of here are converted directly, since a round
// trip through JSON text was a fifth of a render's allocations; any other
// type takes that round trip.
func RoundTrip(o map[string]any) map[string]any {
	out, _ := decoded(o).(map[string]any)
	return out
}

// decoded is v as encoding/json decodes its encoding.
func decoded(v any) any {
	switch t := v.(type) {
	case nil, bool:
		return t
	case string:
		return validString(t)
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return throughJSON(t) // encoding/json refuses it
		}
		return t
	case int:
		return float64(t)
	case int32:
		return float64(t)
	case int64:
		return float64(t)
	case map[string]any:
		if t == nil {
			return nil
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if !utf8.ValidString(k) {
				return throughJSON(t) // keys that may collide once repaired
			}
			out[k] = decoded(e)
		}
		return out
	case map[string]string:
		if t == nil {
			return nil
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if !utf8.ValidString(k) {
				return throughJSON(t)
			}
			out[k] = validString(e)
		}
		return out
	case []any:
		return decodedList(t)
	case []map[string]any:
		return decodedList(t)
	case []string:
		return decodedList(t)
	}
	return throughJSON(v)
}

func decodedList[E any](list []E) any {
	if list == nil {
		return nil
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = decoded(e)
	}
	return out
}

// throughJSON is decoded the long way, for the types decoded does not
// convert itself.
func throughJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// validString is s as encoding/json writes it: each byte that is not part
// of valid UTF-8 becomes U+FFFD.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// stored is a decoded value with its integers as the API server decodes
// them, int64 (which CEL rules compare with integers), as
// k8s.io/apimachinery/pkg/util/json does: a number written without a
// fraction or exponent that fits in an int64.
func stored(v any) any {
	switch t := v.(type) {
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t) // written as its exact digits
		}
		// Beyond, encoding/json writes the shortest digits that read back
		// as t, which decide.
		if i, err := strconv.ParseInt(strconv.FormatFloat(t, 'f', -1, 64), 10, 64); err == nil {
			return i
		}
		return t
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = stored(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = stored(e)
		}
		return out
	}
	return v
}
