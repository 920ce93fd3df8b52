package render

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The one rule for text that came from outside (a runs CSV's note, a
// server's reason phrase, a study's title, a file name): every character
// a terminal or a viewer would act on rather than show is written as Go
// quotes it, the way error messages already quote names (%q): ESC as
// \x1b, a right-to-left override as \u202e, a byte that is not UTF-8 as
// \xff. Letters, marks, digits, punctuation, symbols and spaces print as
// they are. Printable applies it to one value; Terminal to everything a
// command writes (stdout, stderr, a report's text files), where a line
// break and a tab are the writer's own and stay.

// Printable is s with every character that is not printable escaped,
// line breaks and tabs included: a value on one line (a table cell).
func Printable(s string) string { return escape(s, false) }

// printableText is Printable that keeps line breaks and tabs: text of
// several lines.
func printableText(s string) string { return escape(s, true) }

// plain reports whether c is an ASCII byte that prints as itself.
func plain(c byte, lines bool) bool {
	return c >= 0x20 && c < 0x7f || lines && (c == '\n' || c == '\t')
}

// escape applies the rule; lines keeps '\n' and '\t'.
func escape(s string, lines bool) string {
	i := 0
	for i < len(s) && plain(s[i], lines) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		if c := s[i]; plain(c, lines) {
			b.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&15, 16))
		case r >= utf8.RuneSelf && unicode.IsGraphic(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// Terminal wraps w so that what is written through it follows the rule
// (line breaks and tabs kept). A character split across two writes is
// held until the next; Flush writes what is held (escaped: it was never
// completed).
func Terminal(w io.Writer) *TerminalWriter { return &TerminalWriter{w: w} }

// TerminalWriter is Terminal's writer.
type TerminalWriter struct {
	w    io.Writer
	held []byte
}

func (t *TerminalWriter) Write(p []byte) (int, error) {
	data := p
	if len(t.held) > 0 {
		data = append(t.held, p...)
		t.held = nil
	}
	// Hold back the start of a character the next write completes.
	for k := 1; k <= utf8.UTFMax-1 && k <= len(data); k++ {
		c := data[len(data)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-k:]) {
				t.held = append([]byte(nil), data[len(data)-k:]...)
				data = data[:len(data)-k]
			}
			break
		}
	}
	if err := t.write(data); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *TerminalWriter) write(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	clean := true
	for _, c := range data {
		if !plain(c, true) {
			clean = false
			break
		}
	}
	if clean {
		_, err := t.w.Write(data)
		return err
	}
	_, err := io.WriteString(t.w, escape(string(data), true))
	return err
}

// Flush writes what is held, escaped.
func (t *TerminalWriter) Flush() error {
	h := t.held
	t.held = nil
	return t.write(h)
}

// jsonPrintable rewrites, in JSON that encoding/json wrote, every
// character the rule escapes as a JSON escape (\u007f, \u202e; a
// surrogate pair past U+FFFF): such characters stand only inside
// strings, and the JSON then passes through Terminal unchanged.
func jsonPrintable(b []byte) []byte {
	i := 0
	for i < len(b) && plain(b[i], true) {
		i++
	}
	if i == len(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	out.Write(b[:i])
	hex := func(r rune) {
		out.WriteString(`\u`)
		s := strconv.FormatUint(uint64(r), 16)
		out.WriteString(strings.Repeat("0", 4-len(s)) + s)
	}
	for i < len(b) {
		if c := b[i]; plain(c, true) {
			out.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out.WriteString(`\ufffd`)
		case r >= utf8.RuneSelf && unicode.IsGraphic(r):
			out.Write(b[i : i+n])
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			hex(r1)
			hex(r2)
		default:
			hex(r)
		}
		i += n
	}
	return out.Bytes()
}

// utf16Pair is the UTF-16 surrogate pair of r > U+FFFF.
func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
