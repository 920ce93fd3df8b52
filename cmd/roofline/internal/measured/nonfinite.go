package measured

import (
	"fmt"
	"strings"
)

// nonFinite maps the bare NaN, Infinity and -Infinity that Python's
// json.dump writes for float values (allow_nan, its default) to null,
// which encoding/json refuses otherwise: one pass over the text, outside
// strings only, a token only where a JSON value may stand (after ':', ','
// or '[', before ',', ']', '}' or the end). It returns the text, how many
// values it mapped and the line of the first, so that a reader treats
// them as missing and says so.
func nonFinite(text string) (out string, n, line int) {
	if !strings.Contains(text, "NaN") && !strings.Contains(text, "Infinity") {
		return text, 0, 0
	}
	var b strings.Builder
	b.Grow(len(text))
	inString, escaped := false, false
	lines := 1
	prev := byte('[') // the last non-space byte outside a string
	last := 0         // text[last:i] is still to be copied
	for i := 0; i < len(text); i++ {
		ch := text[i]
		if ch == '\n' {
			lines++
		}
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
				prev = '"'
			}
			continue
		case ch == '"':
			inString = true
			continue
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n':
			continue
		}
		if prev == ':' || prev == ',' || prev == '[' {
			for _, tok := range []string{"NaN", "Infinity", "-Infinity"} {
				end := i + len(tok)
				if strings.HasPrefix(text[i:], tok) && (end == len(text) || strings.IndexByte(",]} \t\r\n", text[end]) >= 0) {
					b.WriteString(text[last:i])
					b.WriteString("null")
					last = end
					if n == 0 {
						line = lines
					}
					n++
					i = end - 1
					break
				}
			}
		}
		prev = ch
	}
	if n == 0 {
		return text, 0, 0
	}
	b.WriteString(text[last:])
	return b.String(), n, line
}

// readNonFinite is text with Python's non-finite floats read as missing
// (null), with a warning naming the file and line of the first.
func (c *collector) readNonFinite(text string) string {
	text, n, line := nonFinite(text)
	if n > 0 {
		c.res.Warnings = append(c.res.Warnings, fmt.Sprintf("%s:%d: %d NaN or Infinity value(s), as Python's json.dump writes them, read as missing", c.file, line, n))
	}
	return text
}
