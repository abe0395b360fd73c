// Package merge merges text files line by line: three ways, from the
// version both sides started from (diff3's algorithm), or two ways when
// that version is lost. What cannot be merged is kept, both sides of it,
// between conflict markers as git writes them.
package merge

import (
	"bytes"
	"slices"
)

// Labels name the sides in conflict markers.
type Labels struct {
	Ours, Base, Theirs string
}

// Result is a merged file and how many conflicts it holds.
type Result struct {
	Content   []byte
	Conflicts int
}

// ThreeWay merges ours and theirs, both changed from base: a region only
// one side changed takes that side's lines, a region both changed alike
// takes them once, lines both only added at one place are all taken, and
// a region they changed differently is a conflict, written with the base's
// lines between the sides (git's diff3 style).
func ThreeWay(base, ours, theirs []byte, l Labels) Result {
	o, a, b := splitLines(base), splitLines(ours), splitLines(theirs)
	ma, mb := matches(o, a), matches(o, b)
	var w writer
	i0, a0, b0 := 0, 0, 0 // lines of o, a and b already merged
	for {
		// The stable run: lines of the base both sides kept, in step.
		j := 0
		for i0+j < len(o) && a0+j < len(a) && b0+j < len(b) && ma[i0+j] == a0+j && mb[i0+j] == b0+j {
			j++
		}
		if j > 0 {
			w.lines(o[i0 : i0+j])
			i0, a0, b0 = i0+j, a0+j, b0+j
			continue
		}
		// The unstable run ends at the next base line both sides kept.
		next := i0
		for next < len(o) && (ma[next] < 0 || mb[next] < 0) {
			next++
		}
		ae, be := len(a), len(b)
		if next < len(o) {
			ae, be = ma[next], mb[next]
		}
		if i0 == len(o) && a0 == len(a) && b0 == len(b) {
			break
		}
		w.chunk(o[i0:next], a[a0:ae], b[b0:be], l)
		i0, a0, b0 = next, ae, be
	}
	return Result{Content: w.buf.Bytes(), Conflicts: w.conflicts}
}

// TwoWay merges ours and theirs when the version they started from is
// lost: the lines they share are kept once, and every region where they
// differ is a conflict, since nothing tells which side changed it.
func TwoWay(ours, theirs []byte, l Labels) Result {
	a, b := splitLines(ours), splitLines(theirs)
	m := matches(a, b)
	var w writer
	a0, b0 := 0, 0
	for a0 < len(a) || b0 < len(b) {
		if a0 < len(a) && m[a0] == b0 {
			w.lines(a[a0 : a0+1])
			a0, b0 = a0+1, b0+1
			continue
		}
		ae := a0
		for ae < len(a) && m[ae] < 0 {
			ae++
		}
		be := len(b)
		if ae < len(a) {
			be = m[ae]
		}
		w.conflict(a[a0:ae], nil, b[b0:be], l, false)
		a0, b0 = ae, be
	}
	return Result{Content: w.buf.Bytes(), Conflicts: w.conflicts}
}

type writer struct {
	buf       bytes.Buffer
	conflicts int
}

func (w *writer) lines(ls [][]byte) {
	for _, l := range ls {
		w.buf.Write(l)
	}
}

// chunk merges one unstable run.
func (w *writer) chunk(o, a, b [][]byte, l Labels) {
	switch {
	case equal(a, b), equal(o, b):
		w.lines(a)
	case equal(o, a):
		w.lines(b)
	case len(o) == 0:
		w.union(a, b)
	default:
		w.conflict(a, o, b, l, true)
	}
}

// union writes the lines both sides only added at one place (a target
// appended to a Makefile by the team and by opctl): theirs, then ours,
// the lines they share once.
func (w *writer) union(a, b [][]byte) {
	m := matches(b, a)
	ai := 0
	for bi, line := range b {
		if m[bi] >= 0 {
			w.added(a[ai:m[bi]])
			ai = m[bi] + 1
		}
		w.added([][]byte{line})
	}
	w.added(a[ai:])
}

// added writes lines after the last, on lines of their own.
func (w *writer) added(ls [][]byte) {
	for _, l := range ls {
		if b := w.buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
			w.buf.WriteByte('\n')
		}
		w.buf.Write(l)
	}
}

func (w *writer) conflict(a, o, b [][]byte, l Labels, withBase bool) {
	w.conflicts++
	w.marker("<<<<<<<", l.Ours)
	w.lines(a)
	if withBase {
		w.marker("|||||||", l.Base)
		w.lines(o)
	}
	w.marker("=======", "")
	w.lines(b)
	w.marker(">>>>>>>", l.Theirs)
}

func (w *writer) marker(m, label string) {
	// A side that ends without a newline still leaves the marker on a
	// line of its own.
	if b := w.buf.Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
		w.buf.WriteByte('\n')
	}
	w.buf.WriteString(m)
	if label != "" {
		w.buf.WriteString(" " + label)
	}
	w.buf.WriteByte('\n')
}

func equal(a, b [][]byte) bool { return slices.EqualFunc(a, b, bytes.Equal) }

// splitLines splits after each newline; a last line without one is a line.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// matches is a longest common subsequence of x and y: for each line of x,
// the index of its line in y, or -1.
func matches(x, y [][]byte) []int {
	m := make([]int, len(x))
	for i := range m {
		m[i] = -1
	}
	// The common prefix and suffix need no table.
	pre := 0
	for pre < len(x) && pre < len(y) && bytes.Equal(x[pre], y[pre]) {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && bytes.Equal(x[len(x)-1-suf], y[len(y)-1-suf]) {
		m[len(x)-1-suf] = len(y) - 1 - suf
		suf++
	}
	xs, ys := x[pre:len(x)-suf], y[pre:len(y)-suf]
	// lcs[i][j] is the length of a longest common subsequence of xs[i:]
	// and ys[j:].
	n := len(ys) + 1
	lcs := make([]int32, (len(xs)+1)*n)
	for i := len(xs) - 1; i >= 0; i-- {
		for j := len(ys) - 1; j >= 0; j-- {
			switch {
			case bytes.Equal(xs[i], ys[j]):
				lcs[i*n+j] = lcs[(i+1)*n+j+1] + 1
			case lcs[(i+1)*n+j] >= lcs[i*n+j+1]:
				lcs[i*n+j] = lcs[(i+1)*n+j]
			default:
				lcs[i*n+j] = lcs[i*n+j+1]
			}
		}
	}
	for i, j := 0, 0; i < len(xs) && j < len(ys); {
		switch {
		case bytes.Equal(xs[i], ys[j]):
			m[pre+i] = pre + j
			i, j = i+1, j+1
		case lcs[(i+1)*n+j] >= lcs[i*n+j+1]:
			i++
		default:
			j++
		}
	}
	return m
}
