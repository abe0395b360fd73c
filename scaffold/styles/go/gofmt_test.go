package golang

import (
	"go/format"
	"math/rand/v2"
	"strings"
	"testing"
)

// gofmtKeyPadding lays a literal out as gofmt does, for keys short and
// long enough to end a run of aligned lines.
func TestGofmtKeyPaddingMatchesGofmt(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 500; n++ {
		keys := make([]string, 1+rng.IntN(8))
		for i := range keys {
			keys[i] = `"` + strings.Repeat("k", 1+rng.IntN([]int{10, 45, 120}[rng.IntN(3)])) + `"`
		}
		var b strings.Builder
		b.WriteString("package p\n\nvar m = map[string]string{\n")
		for i, pad := range gofmtKeyPadding(keys) {
			b.WriteString("\t" + keys[i] + ":" + strings.Repeat(" ", pad) + " \"v\",\n")
		}
		b.WriteString("}\n")
		formatted, err := format.Source([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if string(formatted) != b.String() {
			t.Fatalf("keys %q: gofmt writes\n%s\nnot\n%s", keys, formatted, b.String())
		}
	}
}
