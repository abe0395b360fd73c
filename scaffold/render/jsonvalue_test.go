package render

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestDecodedIsJSONRoundTrip holds decoded and stored to what
// encoding/json and apimachinery's decoder make of the same values.
func TestDecodedIsJSONRoundTrip(t *testing.T) {
	values := []any{
		nil, true, "", "a&b <c> café", "bad\xffutf8\xc3", "\u2028",
		0.0, math.Copysign(0, -1), 1.5, -3.0, 1e20, 1e21, 1e300, math.MaxInt64, float64(math.MaxInt64), float64(math.MinInt64), float64(1 << 60), 123456789012345678.0, -1e19,
		int(7), int32(-8), int64(math.MaxInt64), int64(math.MinInt64), int64(1<<53 + 1),
		float32(0.1), uint8(3), json.Number("12"), math.Inf(1), math.NaN(),
		map[string]any(nil), map[string]any{}, map[string]string(nil), map[string]string{"k": "v\xff"},
		[]any(nil), []any{}, []string(nil), []string{"a", "b"}, []map[string]any{{"a": 1}}, []map[string]any(nil),
		map[string]any{"bad\xffkey": 1, "bad\xfekey": 2},
		map[string]any{"list": []any{map[string]any{"n": int64(2), "f": 2.5}, []string{"x"}}, "m": map[string]string{"a": "b"}},
		struct {
			A int `json:"a,omitempty"`
			B string
		}{B: "x"},
	}
	for _, v := range values {
		want := throughJSON(v)
		assert.Equal(t, want, decoded(v), "decoded(%#v)", v)
		b, err := json.Marshal(want)
		if err != nil {
			continue
		}
		var storedWant any
		if assert.NoError(t, utiljson.Unmarshal(b, &storedWant)) {
			assert.Equal(t, storedWant, stored(want), "stored(%s)", b)
		}
	}
}

// TestConformanceCaseKeys holds the keys of a case's file to its JSON
// tags, omitempty included.
func TestConformanceCaseKeys(t *testing.T) {
	for _, c := range []ConformanceCase{
		{},
		{Description: "d", Object: map[string]any{"a": 1.0}, Observed: []map[string]any{{"o": 1.0}},
			Children: []map[string]any{{"c": "x"}}, Status: map[string]any{"s": true}, Rejected: "r"},
		{Description: "d", Observed: []map[string]any{}, Children: []map[string]any{}, Status: map[string]any{}},
	} {
		b, err := json.Marshal(c)
		assert.NoError(t, err)
		var want map[string]any
		assert.NoError(t, json.Unmarshal(b, &want))
		got := map[string]any{}
		for _, kv := range c.Keys() {
			got[kv.Key] = decoded(kv.Value)
		}
		assert.Equal(t, want, got, "%s", b)
	}
}
