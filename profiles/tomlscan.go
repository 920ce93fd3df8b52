package profiles

import (
	"fmt"

	"github.com/roofline/roofline/limits"
)

// scanTOML bounds what reaches the TOML decoder, from the bytes alone:
// the file's size, and how deep any key sits, counting the parts of its
// table's header, its own dotted parts and the inline tables and arrays
// around it. The decoder keeps every key's full path and each of its
// prefixes, so its memory grows with the square of that depth: a 20 kB
// file of inline tables 5,000 deep took 1.34 GB, a header of 40,000
// dotted parts more than 7 GB. The decoder is a chosen dependency:
// what it is given is bounded here, once, for every TOML input (profiles,
// studies, standard input).
//
// The scan is a lexer of TOML's structure only (strings, comments,
// brackets, keys); it never refuses what is within the limits, and leaves
// a malformed file to the decoder, which says what is wrong with it.
func scanTOML(file string, src []byte) error {
	if len(src) > limits.TOMLBytes {
		return &FileError{File: file, Msg: fmt.Sprintf("%d bytes, larger than %s, the limit for a TOML file (the largest built-in profile is 12 kB)",
			len(src), limits.Ceiling{Value: limits.TOMLBytes, Unit: "B"})}
	}
	s := tomlScanner{src: src, line: 1}
	return s.scan(file)
}

// tomlScanner walks a TOML file. stack holds the open inline tables and
// arrays, each with the depth of the key that holds it.
type tomlScanner struct {
	src   []byte
	pos   int
	line  int
	stack []open
}

type open struct {
	brace bool // an inline table, else an array
	depth int  // parts of the full path of what it holds
}

func (s *tomlScanner) scan(file string) error {
	header := 0   // parts of the current table's header
	keyDepth := 0 // the full depth of the last key read
	deep := func(d int) error {
		if d <= limits.TOMLDepth {
			return nil
		}
		return &FileError{File: file, Line: s.line, Msg: fmt.Sprintf("a key %d deep (its table header, its dotted parts and the inline tables and arrays around it), more than the limit of %d; no roofline file needs more than 5",
			d, limits.TOMLDepth)}
	}
	expectKey := true // at the start of a statement or inside an inline table
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			s.pos++
		case c == '\n':
			s.line++
			s.pos++
			if len(s.stack) == 0 {
				expectKey = true
			}
		case c == '#':
			s.skipComment()
		case expectKey && len(s.stack) == 0 && c == '[':
			// A table header: [a.b] or [[a.b]].
			s.pos++
			if s.pos < len(s.src) && s.src[s.pos] == '[' {
				s.pos++
			}
			parts, ok := s.key()
			if !ok {
				return nil // malformed: the decoder says how
			}
			header = parts
			if err := deep(header); err != nil {
				return err
			}
			for s.pos < len(s.src) && s.src[s.pos] == ']' {
				s.pos++
			}
			expectKey = false
		case expectKey && (len(s.stack) == 0 || s.top().brace) && c != '}':
			parts, ok := s.key()
			if !ok {
				return nil
			}
			base := header
			if len(s.stack) > 0 {
				base = s.top().depth
			}
			keyDepth = base + parts
			if err := deep(keyDepth); err != nil {
				return err
			}
			expectKey = false
		case c == '"' || c == '\'':
			if !s.skipString() {
				return nil
			}
		case c == '=':
			s.pos++
			expectKey = s.value(keyDepth)
		case c == '{' || c == '[':
			// A table or array inside an array: one level deeper.
			s.pos++
			d := keyDepth + 1
			if len(s.stack) > 0 {
				d = s.top().depth + 1
			}
			s.stack = append(s.stack, open{brace: c == '{', depth: d})
			if err := deep(d); err != nil {
				return err
			}
			expectKey = c == '{'
		case c == '}' || c == ']':
			s.pos++
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
		case c == ',':
			s.pos++
			expectKey = len(s.stack) > 0 && s.top().brace
		default:
			s.pos++
		}
	}
	return nil
}

func (s *tomlScanner) top() open { return s.stack[len(s.stack)-1] }

// value reads the start of a value after "=": an inline table or an
// array opens at the depth of its key (checked already). It reports an
// inline table, whose keys come next.
func (s *tomlScanner) value(keyDepth int) bool {
	for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
	if s.pos < len(s.src) && (s.src[s.pos] == '{' || s.src[s.pos] == '[') {
		brace := s.src[s.pos] == '{'
		s.stack = append(s.stack, open{brace: brace, depth: keyDepth})
		s.pos++
		return brace
	}
	return false
}

// key reads a dotted key (bare or quoted parts, spaces around the dots)
// up to what follows it, and counts its parts; false when the file ends
// or a string in it does not close.
func (s *tomlScanner) key() (int, bool) {
	parts := 0
	for {
		for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
			s.pos++
		}
		if s.pos >= len(s.src) {
			return parts, parts > 0
		}
		switch c := s.src[s.pos]; {
		case c == '"' || c == '\'':
			if !s.skipString() {
				return 0, false
			}
		case isBareKey(c):
			for s.pos < len(s.src) && isBareKey(s.src[s.pos]) {
				s.pos++
			}
		default:
			return parts, true // not a key: the decoder will say so
		}
		parts++
		for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
			s.pos++
		}
		if s.pos >= len(s.src) || s.src[s.pos] != '.' {
			return parts, true
		}
		s.pos++
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func (s *tomlScanner) skipComment() {
	for s.pos < len(s.src) && s.src[s.pos] != '\n' {
		s.pos++
	}
}

// skipString skips a basic or literal string, one-line or multi-line,
// counting its line feeds; false when it does not close.
func (s *tomlScanner) skipString() bool {
	q := s.src[s.pos]
	multi := s.pos+2 < len(s.src) && s.src[s.pos+1] == q && s.src[s.pos+2] == q
	if multi {
		s.pos += 3
	} else {
		s.pos++
	}
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\' && q == '"':
			if s.pos+1 < len(s.src) && s.src[s.pos+1] == '\n' {
				s.line++
			}
			s.pos += 2
			continue
		case c == '\n':
			if !multi {
				return false
			}
			s.line++
		case c == q && !multi:
			s.pos++
			return true
		case c == q && s.pos+2 < len(s.src) && s.src[s.pos+1] == q && s.src[s.pos+2] == q:
			// Up to two more quotes may close a multi-line string.
			s.pos += 3
			for n := 0; n < 2 && s.pos < len(s.src) && s.src[s.pos] == q; n++ {
				s.pos++
			}
			return true
		}
		s.pos++
	}
	return false
}
