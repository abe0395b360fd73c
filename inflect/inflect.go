// Package inflect makes English nouns plural and singular exactly as
// github.com/gobuffalo/flect v1.0.3 does, the inflector kubebuilder picks
// a kind's plural with, so that opctl picks the same one. It is a port:
// flect builds its rule lists at start-up by prepending to a slice once per
// rule, 4.7 MB of allocations and 7 ms of every opctl run, and reads
// inflections.json from the working directory. Here the tables are built
// once, by appending, and nothing is read. TestMatchesFlect holds it to
// flect.
package inflect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type word struct {
	singular       string
	plural         string
	alternative    string
	unidirectional bool // plural to singular is not possible (or bad)
	uncountable    bool
	exact          bool // no rule for compound words ending in it
}

type suffix struct {
	singular string
	plural   string
}

// rule replaces a word's suffix; a rule whose from and to are the same
// keeps the word as it is (the suffix is already inflected).
type rule struct{ from, to string }

// inflector is flect's maps and ordered rule lists, first rule first.
type inflector struct {
	singleToPlural, pluralToSingle map[string]string
	pluralRules, singularRules     []rule
}

// english is built once from the tables, as flect's init functions build
// theirs.
var english = newInflector()

func newInflector() inflector {
	in := inflector{singleToPlural: map[string]string{}, pluralToSingle: map[string]string{}}
	for _, wd := range dictionary {
		if wd.uncountable && wd.plural == "" {
			wd.plural = wd.singular
		}
		in.singleToPlural[wd.singular] = wd.plural
		if !wd.unidirectional {
			in.pluralToSingle[wd.plural] = wd.singular
			if wd.alternative != "" {
				in.pluralToSingle[wd.alternative] = wd.singular
			}
		}
	}
	// flect inserts {to, to} then {from, to} in front of its list for each
	// rule, so its lists run from the last rule inserted to the first.
	var plural, singular [][]rule
	insertPlural := func(from, to string) { plural = append(plural, []rule{{to, to}, {from, to}}) }
	insertSingular := func(from, to string) { singular = append(singular, []rule{{to, to}, {from, to}}) }
	for i := len(suffixes) - 1; i >= 0; i-- {
		insertPlural(suffixes[i].singular, suffixes[i].plural)
		insertSingular(suffixes[i].plural, suffixes[i].singular)
	}
	for _, wd := range dictionary {
		if wd.exact {
			continue
		}
		if wd.uncountable && wd.plural == "" {
			wd.plural = wd.singular
		}
		insertPlural(wd.singular, wd.plural)
		if !wd.unidirectional {
			insertSingular(wd.plural, wd.singular)
			if wd.alternative != "" {
				insertSingular(wd.alternative, wd.singular)
			}
		}
	}
	in.pluralRules, in.singularRules = frontFirst(plural), frontFirst(singular)
	return in
}

// frontFirst is the list that inserting each pair in front, in order,
// leaves.
func frontFirst(pairs [][]rule) []rule {
	out := make([]rule, 0, 2*len(pairs))
	for i := len(pairs) - 1; i >= 0; i-- {
		out = append(out, pairs[i]...)
	}
	return out
}

// Pluralize is flect.Pluralize: user → users, person → people, datum →
// data; a word already plural stays.
func Pluralize(s string) string {
	last := lastPart(s)
	if last == "" {
		return ""
	}
	if p, ok := english.singleToPlural[s]; ok {
		return p
	}
	if _, ok := english.pluralToSingle[s]; ok {
		return s
	}
	lower := strings.ToLower(last)
	if _, ok := english.pluralToSingle[lower]; ok {
		return s
	}
	if p, ok := english.singleToPlural[lower]; ok {
		if last == capitalize(last) {
			p = capitalize(p)
		}
		return strings.TrimSuffix(s, last) + p
	}
	if r, ok := firstRule(english.pluralRules, last); ok {
		return strings.TrimSuffix(s, last) + r
	}
	if strings.HasSuffix(lower, "s") {
		return s
	}
	return s + "s"
}

// Singularize is flect.Singularize: users → user, people → person.
func Singularize(s string) string {
	last := lastPart(s)
	if last == "" {
		return s
	}
	if p, ok := english.pluralToSingle[s]; ok {
		return p
	}
	if _, ok := english.singleToPlural[s]; ok {
		return s
	}
	lower := strings.ToLower(last)
	if p, ok := english.pluralToSingle[lower]; ok {
		if last == capitalize(last) {
			p = capitalize(p)
		}
		return strings.TrimSuffix(s, last) + p
	}
	if _, ok := english.singleToPlural[lower]; ok {
		return s
	}
	if r, ok := firstRule(english.singularRules, last); ok {
		return strings.TrimSuffix(s, last) + r
	}
	if strings.HasSuffix(last, "s") {
		return strings.TrimSuffix(s, "s")
	}
	return s
}

// firstRule is the word inflected by the first rule whose suffix it has.
func firstRule(rules []rule, word string) (string, bool) {
	for _, r := range rules {
		if strings.HasSuffix(word, r.from) {
			return word[:len(word)-len(r.from)] + r.to, true
		}
	}
	return "", false
}

// capitalize is flect.Capitalize: the first letter in title case.
func capitalize(s string) string {
	if len(parts(s)) == 0 {
		return ""
	}
	r := []rune(s)
	r[0] = unicode.ToTitle(r[0])
	return string(r)
}

func lastPart(s string) string {
	p := parts(s)
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// parts are s's words as flect splits them: at spaces and separators,
// before a capital that follows a non-capital, and after an acronym.
func parts(s string) []string {
	var out []string
	s = strings.TrimSpace(s)
	if s == "" {
		return out
	}
	if acronyms[strings.ToUpper(s)] {
		return []string{strings.ToUpper(s)}
	}
	var prev rune
	var x strings.Builder
	split := func(c rune, keep bool) {
		out = appendPart(out, x.String())
		x.Reset()
		if keep {
			x.WriteRune(c)
		}
		prev = c
	}
	for _, c := range s {
		switch {
		case !utf8.ValidRune(c):
		case isSpace(c):
			split(c, true)
		case unicode.IsUpper(c) && !unicode.IsUpper(prev):
			split(c, true)
		case unicode.IsUpper(c) && acronyms[strings.ToUpper(x.String())]:
			split(c, true)
		case unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsPunct(c) || c == '`':
			prev = c
			x.WriteRune(c)
		default:
			split(c, false)
		}
	}
	return appendPart(out, x.String())
}

const separators = "_ :-/"

func isSpace(c rune) bool { return strings.ContainsRune(separators, c) || unicode.IsSpace(c) }

// appendPart appends a word, trimmed of spaces and separators and an
// acronym in capitals, unless nothing is left of it.
func appendPart(out []string, s string) []string {
	s = strings.TrimSpace(s)
	for _, x := range separators {
		s = strings.Trim(s, string(x))
	}
	if acronyms[strings.ToUpper(s)] {
		s = strings.ToUpper(s)
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
