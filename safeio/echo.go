package safeio

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/limits"
)

// Clip bounds what a message quotes of its input: a run of more than
// limits.EchoWord bytes without a space (a 100,000-digit number, a
// megabyte status line) keeps its start and end around a count of what
// was left out, and a message keeps its first limits.EchoLines lines and
// limits.EchoBytes bytes.
func Clip(s string) string {
	if len(s) <= limits.EchoWord && !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, line := range lines {
		if i == limits.EchoLines || b.Len() >= limits.EchoBytes {
			fmt.Fprintf(&b, "… %d more lines\n", len(lines)-i)
			break
		}
		line = clipWords(line)
		if room := limits.EchoBytes - b.Len(); len(line) > room {
			b.WriteString(Shorten(line, room))
			if i+1 < len(lines) {
				fmt.Fprintf(&b, "\n… %d more lines", len(lines)-i-1)
			}
			if strings.HasSuffix(s, "\n") {
				b.WriteByte('\n')
			}
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// Shorten is s cut to at most n bytes (at the start of a character) with
// the count of what was cut, for a message quoting s.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !startsRune(s[n]) {
		n--
	}
	return fmt.Sprintf("%s…[%d more bytes]", s[:n], len(s)-n)
}

// clipWords shortens each run of more than limits.EchoWord bytes
// without a space in line.
func clipWords(line string) string {
	var b strings.Builder
	for len(line) > 0 {
		i := strings.IndexAny(line, " \t\n")
		if i < 0 {
			i = len(line)
		}
		w := line[:i]
		if len(w) > limits.EchoWord {
			head, tail := w[:limits.EchoWord/2], w[len(w)-limits.EchoWord/8:]
			// Cut at rune starts: a UTF-8 sequence stays whole.
			for len(head) > 0 && !startsRune(w[len(head)]) {
				head = head[:len(head)-1]
			}
			for len(tail) > 0 && !startsRune(tail[0]) {
				tail = tail[1:]
			}
			w = fmt.Sprintf("%s…[%d bytes]…%s", head, len(w)-len(head)-len(tail), tail)
		}
		b.WriteString(w)
		if i < len(line) {
			b.WriteByte(line[i])
			i++
		}
		line = line[i:]
	}
	return b.String()
}

func startsRune(c byte) bool { return c&0xC0 != 0x80 }

// JoinErrors joins errs as errors.Join does, nils left out, but says each
// distinct message once and at most limits.Errors of them: a file of
// 150,000 unknown keys, or a figure listed 2,000 times, is told in a few
// lines and the count of the rest. errors.Is and errors.As see the
// errors kept.
func JoinErrors(errs ...error) error {
	j := &joined{}
	seen := map[string]bool{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		msg := err.Error()
		switch {
		case seen[msg]:
			j.repeats++
		case len(j.errs) == limits.Errors:
			j.more++
		default:
			seen[msg] = true
			j.errs = append(j.errs, err)
		}
	}
	switch {
	case len(j.errs) == 0:
		return nil
	case len(j.errs) == 1 && j.more == 0 && j.repeats == 0:
		return j.errs[0]
	}
	return j
}

type joined struct {
	errs          []error
	more, repeats int
}

func (j *joined) Error() string {
	var b strings.Builder
	for i, err := range j.errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	switch {
	case j.more > 0 && j.repeats > 0:
		fmt.Fprintf(&b, "\n… and %d more errors (and %d repeated)", j.more, j.repeats)
	case j.more > 0:
		fmt.Fprintf(&b, "\n… and %d more errors", j.more)
	case j.repeats > 0:
		fmt.Fprintf(&b, "\n(%d repeated errors left out)", j.repeats)
	}
	return b.String()
}

func (j *joined) Unwrap() []error { return j.errs }
