package render

import (
	"bufio"
	"io"
)

// indentWriter indents the compact JSON a json.Encoder writes through it,
// as the encoder's own SetIndent does, without the second, indented copy
// of the whole document SetIndent builds: a 131,072-run comparison held
// 120 MB of JSON twice. What a terminal would act on is escaped first
// (jsonPrintable). The encoder writes one value per Write.
type indentWriter struct {
	w              *bufio.Writer
	prefix, indent string
	depth          int
	// inString and escaped follow a string across bytes; open is a '{'
	// or '[' whose line break waits to see whether it is empty.
	inString, escaped, open bool
}

func newIndentWriter(w io.Writer, prefix, indent string) *indentWriter {
	return &indentWriter{w: bufio.NewWriterSize(w, 64<<10), prefix: prefix, indent: indent}
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	w := iw.w
	for _, c := range jsonPrintable(p) {
		if iw.inString {
			w.WriteByte(c)
			switch {
			case iw.escaped:
				iw.escaped = false
			case c == '\\':
				iw.escaped = true
			case c == '"':
				iw.inString = false
			}
			continue
		}
		if iw.open && c != '}' && c != ']' {
			iw.open = false
			iw.depth++
			iw.newline()
		}
		switch c {
		case '"':
			iw.inString = true
			w.WriteByte(c)
		case '{', '[':
			iw.open = true // {} and [] stay on one line
			w.WriteByte(c)
		case ',':
			w.WriteByte(c)
			iw.newline()
		case ':':
			w.WriteString(": ")
		case '}', ']':
			if iw.open {
				iw.open = false
			} else {
				iw.depth--
				iw.newline()
			}
			w.WriteByte(c)
		default:
			w.WriteByte(c)
		}
	}
	return len(p), w.Flush()
}

func (iw *indentWriter) newline() {
	iw.w.WriteByte('\n')
	iw.w.WriteString(iw.prefix)
	for range iw.depth {
		iw.w.WriteString(iw.indent)
	}
}
