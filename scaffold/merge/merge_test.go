package merge

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var labels = Labels{Ours: "yours", Base: "opctl before", Theirs: "opctl now"}

func TestThreeWay(t *testing.T) {
	for _, tc := range []struct {
		name, base, ours, theirs, want string
		conflicts                      int
	}{
		{"nothing changed", "a\nb\n", "a\nb\n", "a\nb\n", "a\nb\n", 0},
		{"only yours changed", "a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\n", "a\nB\nc\n", 0},
		{"only opctl changed", "a\nb\nc\n", "a\nb\nc\n", "a\nb\nC\n", "a\nb\nC\n", 0},
		{"both, apart", "a\nb\nc\nd\n", "A\nb\nc\nd\n", "a\nb\nc\nD\n", "A\nb\nc\nD\n", 0},
		{"both alike", "a\nb\n", "a\nX\n", "a\nX\n", "a\nX\n", 0},
		{"your line added, opctl's removed elsewhere", "a\nb\nc\n", "a\nmine\nb\nc\n", "a\nb\n", "a\nmine\nb\n", 0},
		{"you removed a line opctl left", "a\nb\nc\n", "a\nc\n", "a\nb\nc\nd\n", "a\nc\nd\n", 0},
		{"added at the end by both: opctl's lines, then yours", "a\n", "a\nmine\n", "a\ntheirs\n", "a\ntheirs\nmine\n", 0},
		{"added at one place by both, a line alike", "a\nz\n", "a\nmine\nshared\nz\n", "a\nshared\ntheirs\nz\n", "a\nmine\nshared\ntheirs\nz\n", 0},
		{"added by both, no newline at the end", "a\n", "a\nmine", "a\ntheirs", "a\ntheirs\nmine", 0},
		{"added by both where one changed a line", "a\nb\n", "a\nB\nmine\n", "a\nb\ntheirs\n",
			"a\n<<<<<<< yours\nB\nmine\n||||||| opctl before\nb\n=======\nb\ntheirs\n>>>>>>> opctl now\n", 1},
		{"the same line changed", "a\nb\nc\n", "a\nmine\nc\n", "a\ntheirs\nc\n",
			"a\n<<<<<<< yours\nmine\n||||||| opctl before\nb\n=======\ntheirs\n>>>>>>> opctl now\nc\n", 1},
		{"no newline at the end", "a\nb", "a\nb\nmine", "x\na\nb", "x\na\nb\nmine", 0},
		{"conflict without newlines", "a", "b", "c", "<<<<<<< yours\nb\n||||||| opctl before\na\n=======\nc\n>>>>>>> opctl now\n", 1},
		{"empty base", "", "a\n", "a\n", "a\n", 0},
		{"everything removed by you", "a\nb\n", "", "a\nb\n", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ThreeWay([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), labels)
			assert.Equal(t, tc.want, string(got.Content))
			assert.Equal(t, tc.conflicts, got.Conflicts)
		})
	}
}

func TestTwoWay(t *testing.T) {
	for _, tc := range []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{"same", "a\nb\n", "a\nb\n", "a\nb\n", 0},
		{"one region differs", "a\nmine\nc\n", "a\ntheirs\nc\n", "a\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> opctl now\nc\n", 1},
		{"a line only opctl has is a conflict too", "a\nc\n", "a\nb\nc\n", "a\n<<<<<<< yours\n=======\nb\n>>>>>>> opctl now\nc\n", 1},
		{"two regions", "x\na\ny\n", "a\nz\n", "<<<<<<< yours\nx\n=======\n>>>>>>> opctl now\na\n<<<<<<< yours\ny\n=======\nz\n>>>>>>> opctl now\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := TwoWay([]byte(tc.ours), []byte(tc.theirs), labels)
			assert.Equal(t, tc.want, string(got.Content))
			assert.Equal(t, tc.conflicts, got.Conflicts)
		})
	}
}

// TestUserLinesSurvive: random edits of a file by a user and by opctl,
// merged: every line the user wrote is in the result, where no conflict
// is, or in the user's side of a conflict; every line opctl wrote is
// there too, or in its side; and with no conflict, a line the user removed
// stays removed. Lines are unique, as a file's edits mostly are, so that
// "the line" means one.
func TestUserLinesSurvive(t *testing.T) {
	for seed := range uint64(2000) {
		r := rand.New(rand.NewPCG(seed, 7))
		next := 0
		line := func(who string) string { next++; return fmt.Sprintf("%s %d\n", who, next) }
		var base []string
		for range r.IntN(12) {
			base = append(base, line("base"))
		}
		ours, added, removed := edit(r, base, func() string { return line("yours") })
		theirs, theirAdded, _ := edit(r, base, func() string { return line("opctl") })
		got := ThreeWay([]byte(strings.Join(base, "")), []byte(strings.Join(ours, "")), []byte(strings.Join(theirs, "")), labels)
		plain, yourSides, theirSides := sides(string(got.Content))
		for _, l := range added {
			assert.True(t, strings.Contains(plain, l) || strings.Contains(yourSides, l), "seed %d: your line %q is lost:\n%s", seed, l, got.Content)
		}
		for _, l := range theirAdded {
			assert.True(t, strings.Contains(plain, l) || strings.Contains(theirSides, l), "seed %d: opctl's line %q is lost:\n%s", seed, l, got.Content)
		}
		if got.Conflicts == 0 {
			for _, l := range removed {
				assert.NotContains(t, plain, l, "seed %d: your removal of %q is undone", seed, l)
			}
		}
		if t.Failed() {
			return
		}
	}
}

// edit changes lines: some removed, some replaced, some added.
func edit(r *rand.Rand, base []string, newLine func() string) (out, added, removed []string) {
	for _, l := range base {
		switch r.IntN(6) {
		case 0:
			removed = append(removed, l)
		case 1:
			n := newLine()
			removed, added, out = append(removed, l), append(added, n), append(out, n)
		case 2:
			n := newLine()
			added, out = append(added, n), append(out, n, l)
		default:
			out = append(out, l)
		}
	}
	if r.IntN(3) == 0 {
		n := newLine()
		added, out = append(added, n), append(out, n)
	}
	return out, added, removed
}

// sides splits merged text into its lines outside conflicts, the ours
// sides and the theirs sides.
func sides(merged string) (plain, ours, theirs string) {
	var b strings.Builder
	var ob, tb strings.Builder
	section := &b
	for _, l := range strings.SplitAfter(merged, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<<"):
			section = &ob
		case strings.HasPrefix(l, "|||||||"):
			section = &strings.Builder{} // the base
		case strings.HasPrefix(l, "======="):
			section = &tb
		case strings.HasPrefix(l, ">>>>>>>"):
			section = &b
		default:
			section.WriteString(l)
		}
	}
	return b.String(), ob.String(), tb.String()
}
