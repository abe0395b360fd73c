package api

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// patternExample builds a short string that pattern matches from the
// pattern itself: the first branch of each alternation, a plain character
// of each class, each repetition at its minimum. ok is false for a pattern
// that does not parse or that matches nothing.
func patternExample(pattern string) (example string, ok bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writeExample(&b, re.Simplify()) {
		return "", false
	}
	return b.String(), true
}

func writeExample(b *strings.Builder, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
		return true
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if ok {
			b.WriteRune(r)
		}
		return ok
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune('a')
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return writeExample(b, re.Sub[0])
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !writeExample(b, re.Sub[0]) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !writeExample(b, sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			var alt strings.Builder
			if writeExample(&alt, sub) {
				b.WriteString(alt.String())
				return true
			}
		}
	}
	return false
}

// classRune picks a readable member of a character class given as ranges
// (lo, hi pairs): a lower-case letter or a digit if the class has one.
func classRune(ranges []rune) (rune, bool) {
	if len(ranges) == 0 {
		return 0, false
	}
	for _, want := range []rune{'a', 'x', '0', '1', 'A'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want, true
			}
		}
	}
	r := ranges[0]
	return r, utf8.ValidRune(r)
}
