package yamltext

// The writers below follow go-yaml v2's emitterc.go function for function
// (put, write, yaml_emitter_write_indent, ..._write_plain_scalar, ...), so
// that each can be read against its original.

func (e *emitter) put(c byte) {
	e.out = append(e.out, c)
	e.column++
}

func (e *emitter) putBreak() {
	e.out = append(e.out, '\n')
	e.column = 0
}

// write copies the character at value[*i] and moves past it.
func (e *emitter) write(value string, i *int) {
	w := width(value[*i])
	e.out = append(e.out, value[*i:*i+w]...)
	e.column++
	*i += w
}

// writeAll writes an indicator, which is ASCII.
func (e *emitter) writeAll(s string) {
	e.out = append(e.out, s...)
	e.column += len(s)
}

func (e *emitter) writeBreak(value string, i *int) {
	if value[*i] == '\n' {
		e.putBreak()
		*i++
		return
	}
	e.write(value, i)
	e.column = 0
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace = true
	e.indention = true
}

func (e *emitter) writeIndicator(indicator string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.writeAll(indicator)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

func (e *emitter) writePlain(value string, allowBreaks bool) {
	if !e.whitespace {
		e.put(' ')
	}
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case isSpace(value, i):
			if allowBreaks && !spaces && e.column > bestWidth && !isSpace(value, i+1) {
				e.writeIndent()
				i += width(value[i])
			} else {
				e.write(value, &i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			e.write(value, &i)
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.whitespace = false
	e.indention = false
}

func (e *emitter) writeSingleQuoted(value string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case isSpace(value, i):
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 && !isSpace(value, i+1) {
				e.writeIndent()
				i += width(value[i])
			} else {
				e.write(value, &i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if value[i] == '\'' {
				e.put('\'')
			}
			e.write(value, &i)
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace = false
	e.indention = false
}

func (e *emitter) writeDoubleQuoted(value string, allowBreaks bool) {
	spaces := false
	e.writeIndicator(`"`, true, false, false)
	for i := 0; i < len(value); {
		switch {
		case !isPrintable(value, i) || isBOM(value) || isBreak(value, i) || value[i] == '"' || value[i] == '\\':
			w := width(value[i])
			v := rune(value[i])
			switch w {
			case 2:
				v &= 0x1F
			case 3:
				v &= 0x0F
			case 4:
				v &= 0x07
			}
			for k := 1; k < w; k++ {
				v = v<<6 + rune(value[i+k])&0x3F
			}
			i += w
			e.put('\\')
			e.escape(v)
			spaces = false
		case isSpace(value, i):
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 {
				e.writeIndent()
				if isSpace(value, i+1) {
					e.put('\\')
				}
				i += width(value[i])
			} else {
				e.write(value, &i)
			}
			spaces = true
		default:
			e.write(value, &i)
			spaces = false
		}
	}
	e.writeIndicator(`"`, false, false, false)
	e.whitespace = false
	e.indention = false
}

// escape writes what follows the backslash of an escaped character.
func (e *emitter) escape(v rune) {
	if c := shortEscape(v); c != 0 {
		e.put(c)
		return
	}
	digits := 8
	switch {
	case v <= 0xFF:
		e.put('x')
		digits = 2
	case v <= 0xFFFF:
		e.put('u')
		digits = 4
	default:
		e.put('U')
	}
	for k := (digits - 1) * 4; k >= 0; k -= 4 {
		e.put("0123456789ABCDEF"[(v>>uint(k))&0x0F])
	}
}

func shortEscape(v rune) byte {
	switch v {
	case 0x00:
		return '0'
	case 0x07:
		return 'a'
	case 0x08:
		return 'b'
	case 0x09:
		return 't'
	case 0x0A:
		return 'n'
	case 0x0B:
		return 'v'
	case 0x0C:
		return 'f'
	case 0x0D:
		return 'r'
	case 0x1B:
		return 'e'
	case 0x22:
		return '"'
	case 0x5C:
		return '\\'
	case 0x85:
		return 'N'
	case 0xA0:
		return '_'
	case 0x2028:
		return 'L'
	case 0x2029:
		return 'P'
	}
	return 0
}

func (e *emitter) writeBlockScalarHints(value string) {
	if isSpace(value, 0) || isBreak(value, 0) {
		e.writeIndicator(string(rune('0'+bestIndent)), false, false, false)
	}
	chomp := ""
	if len(value) == 0 {
		chomp = "-"
	} else {
		i := len(value) - 1
		for value[i]&0xC0 == 0x80 {
			i--
		}
		if !isBreak(value, i) {
			chomp = "-"
		} else if i == 0 {
			chomp = "+"
		} else {
			i--
			for value[i]&0xC0 == 0x80 {
				i--
			}
			if isBreak(value, i) {
				chomp = "+"
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}

func (e *emitter) writeLiteral(value string) {
	e.writeIndicator("|", true, false, false)
	e.writeBlockScalarHints(value)
	e.putBreak()
	e.indention = true
	e.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
			continue
		}
		if breaks {
			e.writeIndent()
		}
		e.write(value, &i)
		e.indention = false
		breaks = false
	}
}
