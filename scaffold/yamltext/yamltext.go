// Package yamltext writes YAML byte for byte as sigs.k8s.io/yaml.Marshal
// does, without its round trip: sigs.k8s.io/yaml turns an object into
// JSON, decodes that JSON with go-yaml v2 and encodes the result again by
// reflection, which cost a third of a render's allocations. Here the JSON
// value is written directly by a port of the part of go-yaml v2's emitter
// (itself a port of libyaml) that a JSON value reaches: keys in go-yaml's
// order, its choice of plain, quoted and literal strings, and long strings
// folded past 80 columns. TestMatchesSigsYAML and FuzzMatchesSigsYAML hold
// it to the original.
package yamltext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// Marshal is sigs.k8s.io/yaml.Marshal: v as encoding/json writes it, in YAML.
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("error marshaling into JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	out, err := encode(tree)
	if errors.Is(err, errReadBack) {
		return yaml.JSONToYAML(raw)
	}
	return out, err
}

// Encode writes a value as encoding/json decodes one (maps with string
// keys, lists, strings, float64 or json.Number, bools and nil) in YAML,
// as Marshal would write the same value.
func Encode(v any) ([]byte, error) {
	out, err := encode(v)
	if errors.Is(err, errReadBack) {
		return yaml.Marshal(v)
	}
	return out, err
}

func encode(v any) ([]byte, error) {
	e := emitter{indent: -1, whitespace: true, indention: true}
	if err := e.node(v, false, false); err != nil {
		return nil, err
	}
	e.writeIndent() // the document's end: go-yaml's encoder never writes "..."
	return e.out, nil
}

// errReadBack is a string that encoding/json or go-yaml's reader changes
// (or refuses) on sigs.k8s.io/yaml's way through JSON, which only that way
// reproduces.
var errReadBack = errors.New("a string go-yaml's reader changes")

// changedByReading reports whether s has a character encoding/json writes
// as it is and go-yaml's reader folds (NEL, a line break in YAML 1.1) or
// refuses (DEL, C1 controls, U+FFFE and U+FFFF).
func changedByReading(s string) bool {
	for _, r := range s {
		if r == 0x7F || r >= 0x80 && r <= 0x9F || r == 0xFFFE || r == 0xFFFF {
			return true
		}
	}
	return false
}

// maxKey is the longest key written here: go-yaml's reader refuses a JSON
// object whose key is over 1024 characters in JSON, and encoding/json
// writes a byte as up to six (\u003c), so longer keys take the way
// through JSON.
const maxKey = 128

const (
	bestIndent = 2
	bestWidth  = 80
)

type scalarStyle int

const (
	plainStyle scalarStyle = iota
	singleQuotedStyle
	doubleQuotedStyle
	literalStyle
)

// emitter is go-yaml v2's yaml_emitter_t, reduced to what block output of
// JSON values uses.
type emitter struct {
	out        []byte
	column     int
	indent     int
	whitespace bool
	indention  bool

	// The context of the node being written, as yaml_emitter_emit_node
	// records it.
	mappingContext, simpleKeyContext bool
}

func (e *emitter) node(v any, mapping, simpleKey bool) error {
	e.mappingContext, e.simpleKeyContext = mapping, simpleKey
	switch t := v.(type) {
	case map[string]any:
		return e.mappingNode(t)
	case []any:
		return e.sequenceNode(t)
	case string:
		if !utf8.ValidString(t) || changedByReading(t) {
			return errReadBack
		}
		e.stringScalar(t)
	case json.Number:
		e.numberScalar(string(t))
	case float64:
		e.numberScalar(string(jsonFloat(t)))
	case bool:
		e.scalar(strconv.FormatBool(t), plainStyle)
	case nil:
		e.scalar("null", plainStyle)
	default:
		return fmt.Errorf("yaml: cannot write %T", v)
	}
	return nil
}

func (e *emitter) increaseIndent(flow, indentless bool) int {
	saved := e.indent
	if e.indent < 0 {
		if flow {
			e.indent = bestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += bestIndent
	}
	return saved
}

func (e *emitter) sequenceNode(items []any) error {
	if len(items) == 0 {
		e.emptyFlow("[", "]")
		return nil
	}
	saved := e.increaseIndent(false, e.mappingContext && !e.indention)
	for _, it := range items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		if err := e.node(it, false, false); err != nil {
			return err
		}
	}
	e.indent = saved
	return nil
}

func (e *emitter) mappingNode(m map[string]any) error {
	if len(m) == 0 {
		e.emptyFlow("{", "}")
		return nil
	}
	var small [16]string // most objects' keys, without an allocation
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	saved := e.increaseIndent(false, false)
	for _, k := range keys {
		if len(k) > maxKey || !utf8.ValidString(k) || changedByReading(k) {
			return errReadBack
		}
		e.writeIndent()
		// The key is written as e.node would write it, without boxing
		// the string in an interface.
		if a := analyze(k); !a.multiline && len(k) <= 128 {
			e.mappingContext, e.simpleKeyContext = true, true
			e.stringScalar(k)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.mappingContext, e.simpleKeyContext = true, false
			e.stringScalar(k)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		if err := e.node(m[k], true, false); err != nil {
			return err
		}
	}
	e.indent = saved
	return nil
}

// emptyFlow writes an empty list or map, the only flow collections go-yaml
// writes for a JSON value, so no scalar is ever written in flow context.
func (e *emitter) emptyFlow(open, close string) {
	e.writeIndicator(open, true, true, false)
	e.writeIndicator(close, false, false, false)
}

// numberScalar writes a JSON number as go-yaml decodes and encodes it
// again: an integer as an int, anything else as a float.
func (e *emitter) numberScalar(text string) {
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		e.scalar(strconv.FormatInt(i, 10), plainStyle)
		return
	}
	if u, err := strconv.ParseUint(text, 0, 64); err == nil {
		e.scalar(strconv.FormatUint(u, 10), plainStyle)
		return
	}
	if yamlStyleFloat(text) {
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			s := strconv.FormatFloat(f, 'g', -1, 64)
			switch {
			case math.IsInf(f, 1):
				s = ".inf"
			case math.IsInf(f, -1):
				s = "-.inf"
			case math.IsNaN(f):
				s = ".nan"
			}
			e.scalar(s, plainStyle)
			return
		}
	}
	e.stringScalar(text)
}

// jsonFloat is f as encoding/json writes a float64.
func jsonFloat(f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// stringScalar is go-yaml's stringv: quoted when plain it would read as
// another type, literal when it has a line break.
func (e *emitter) stringScalar(s string) {
	style := doubleQuotedStyle
	switch {
	case containsNewline(s):
		style = literalStyle
	case resolvesToString(s) && !isBase60Float(s):
		style = plainStyle
	}
	e.scalar(s, style)
}

func containsNewline(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return true
		}
	}
	return false
}

// scalar is yaml_emitter_emit_scalar with the style go-yaml's encoder asked
// for, narrowed by what the value allows where it stands.
func (e *emitter) scalar(value string, style scalarStyle) {
	a := analyze(value)
	if e.simpleKeyContext && a.multiline {
		style = doubleQuotedStyle
	}
	if style == plainStyle {
		if !a.blockPlainAllowed {
			style = singleQuotedStyle
		}
		if len(value) == 0 && e.simpleKeyContext {
			style = singleQuotedStyle
		}
	}
	if style == singleQuotedStyle && !a.singleQuotedAllowed {
		style = doubleQuotedStyle
	}
	if style == literalStyle && (!a.blockAllowed || e.simpleKeyContext) {
		style = doubleQuotedStyle
	}
	saved := e.increaseIndent(true, false)
	switch style {
	case plainStyle:
		e.writePlain(value, !e.simpleKeyContext)
	case singleQuotedStyle:
		e.writeSingleQuoted(value, !e.simpleKeyContext)
	case doubleQuotedStyle:
		e.writeDoubleQuoted(value, !e.simpleKeyContext)
	case literalStyle:
		e.writeLiteral(value)
	}
	e.indent = saved
}
