package machinery

import (
	"bytes"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// goSource finishes a rendered Go file. A template lists every import its
// code may need, in gofmt's layout otherwise (FuzzField and the goldens
// hold the templates to gofmt); goSource keeps the imports the file uses,
// each group sorted as gofmt sorts it. Parsing and printing every file
// with go/format cost 40% of a go render; here a scan of the file's tokens
// finds the imports in use (usedImports). An import listed twice is kept
// once.
func goSource(src []byte) ([]byte, error) {
	block, ok := findImports(src)
	if !ok {
		return src, nil
	}
	used, err := usedImports(src, block)
	if err != nil {
		return nil, err
	}
	var kept [][]importSpec
	seen := map[string]bool{}
	for _, group := range block.groups {
		var keep []importSpec
		for _, spec := range group {
			// A template that lists the imports of data may list one twice.
			if (spec.name == "_" || used[spec.path]) && !seen[spec.name+" "+spec.path] {
				seen[spec.name+" "+spec.path] = true
				keep = append(keep, spec)
			}
		}
		if len(keep) > 0 {
			slices.SortStableFunc(keep, func(a, b importSpec) int {
				if c := strings.Compare(a.path, b.path); c != 0 {
					return c
				}
				return strings.Compare(a.name, b.name)
			})
			kept = append(kept, keep)
		}
	}
	var b bytes.Buffer
	b.Grow(len(src))
	b.Write(src[:block.start])
	if len(kept) > 0 {
		b.WriteString("import (\n")
		for i, group := range kept {
			if i > 0 {
				b.WriteByte('\n')
			}
			for _, spec := range group {
				b.WriteString(spec.line)
				b.WriteByte('\n')
			}
		}
		b.WriteString(")\n")
		b.Write(src[block.end:])
	} else {
		// No import left: the blank line after the block goes with it.
		b.Write(bytes.TrimPrefix(src[block.end:], []byte("\n")))
	}
	return b.Bytes(), nil
}

// importBlock is a file's import declaration, import ( ... ), one spec a
// line, groups apart by blank lines.
type importBlock struct {
	start, end int // the declaration's bytes, its line break included
	groups     [][]importSpec
}

type importSpec struct {
	line       string // as written, indented
	name, path string
}

// localName is the name a file refers to the package by: the one it gives,
// else (as go/ast/astutil guesses) the last element of the path.
func (s importSpec) localName() string {
	if s.name != "" {
		return s.name
	}
	return s.path[strings.LastIndex(s.path, "/")+1:]
}

func (b importBlock) names() map[string]bool {
	names := map[string]bool{}
	for _, group := range b.groups {
		for _, spec := range group {
			names[spec.localName()] = true
		}
	}
	return names
}

// findImports finds the file's import block, or reports false for a file
// without one or with imports written another way.
func findImports(src []byte) (importBlock, bool) {
	const open = "\nimport (\n"
	i := bytes.Index(src, []byte(open))
	if i < 0 {
		return importBlock{}, false
	}
	block := importBlock{start: i + 1}
	rest := src[i+len(open):]
	end := bytes.Index(rest, []byte("\n)\n"))
	if end < 0 {
		return importBlock{}, false
	}
	block.end = i + len(open) + end + len("\n)\n")
	var group []importSpec
	for _, line := range strings.Split(string(rest[:end]), "\n") {
		text := strings.TrimSpace(line)
		if text == "" {
			if len(group) > 0 {
				block.groups = append(block.groups, group)
				group = nil
			}
			continue
		}
		name, quoted, named := strings.Cut(text, " ")
		if !named {
			name, quoted = "", text
		}
		path, err := strconv.Unquote(quoted)
		if err != nil {
			return importBlock{}, false // a comment, or a form the templates do not write
		}
		group = append(group, importSpec{line: line, name: name, path: path})
	}
	if len(group) > 0 {
		block.groups = append(block.groups, group)
	}
	return block, true
}

// identifierUses scans Go code for the given names: qualified when one is
// followed by a dot (pkg.Name), bare when it stands alone. Comments,
// strings and runes are skipped.
func identifierUses(code []byte, names map[string]bool) (qualified, bare map[string]bool) {
	qualified, bare = map[string]bool{}, map[string]bool{}
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '/' && i+1 < len(code) && code[i+1] == '/':
			i = skipTo(code, i+2, "\n")
		case c == '/' && i+1 < len(code) && code[i+1] == '*':
			i = skipTo(code, i+2, "*/")
		case c == '"' || c == '\'':
			i = skipQuoted(code, i, c)
		case c == '`':
			i = skipTo(code, i+1, "`")
		case isIdentStart(c):
			start := i
			for i < len(code) && isIdentPart(code[i]) {
				i++
			}
			// A selector's field (x.cache) is not a use of package cache.
			if start > 0 && code[start-1] == '.' {
				continue
			}
			if word := code[start:i]; names[string(word)] {
				if i < len(code) && code[i] == '.' {
					qualified[string(word)] = true
				} else {
					bare[string(word)] = true
				}
			}
		case c >= '0' && c <= '9':
			for i < len(code) && (isIdentPart(code[i]) || code[i] == '.') {
				i++
			}
		default:
			i++
		}
	}
	return qualified, bare
}

func skipTo(code []byte, from int, end string) int {
	if j := bytes.Index(code[from:], []byte(end)); j >= 0 {
		return from + j + len(end)
	}
	return len(code)
}

func skipQuoted(code []byte, i int, quote byte) int {
	for i++; i < len(code); i++ {
		switch code[i] {
		case '\\':
			i++
		case quote, '\n':
			return i + 1
		}
	}
	return i
}

// Non-ASCII letters start and continue identifiers as in Go; the generated
// code's own names are ASCII, and a user's non-ASCII word is whole either way.
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// usedImports are the paths of the imports the file uses: a name followed by
// a dot is a use of the package of that name, unless the file also has a
// name of its own spelt the same (a variable labels beside package labels),
// where go/ast/astutil, which knows scopes, settles it.
func usedImports(src []byte, block importBlock) (map[string]bool, error) {
	qualified, bare := identifierUses(src[block.end:], block.names())
	used := map[string]bool{}
	for _, group := range block.groups {
		for _, spec := range group {
			if bare[spec.localName()] {
				return usedImportsByAST(src)
			}
			used[spec.path] = qualified[spec.localName()]
		}
	}
	return used, nil
}

func usedImportsByAST(src []byte) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		used[path] = astutil.UsesImport(f, path)
	}
	return used, nil
}
