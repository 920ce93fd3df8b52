package profiles

import (
	"slices"
	"strconv"
	"strings"
)

// Lines finds where keys and quoted values are written in one TOML file,
// for messages. It reads the file once: asking for the line of each of a
// file's keys costs time in proportion to the file, not to the file times
// its keys (8,000 unknown keys took 15.8 s when every lookup rescanned
// it).
type Lines struct {
	src []byte
	// assigns and headers list, by a key's last part, the lines (0-based,
	// ascending) that assign it or open a table named by it; tables is
	// the first line of each table header, by the header as written.
	assigns, headers map[string][]int
	tables           map[string]int
	// written lists the lines of each table header as written (comments
	// and spaces around it aside): [[engine]].
	written map[string][]int
	// values lists the lines of each quoted string, quotes included,
	// built when first asked.
	values map[string][]int
	// starts are the offsets where lines start, built when first asked.
	starts []int
}

// NewLines is the index of src, built when it is first asked.
func NewLines(src []byte) *Lines { return &Lines{src: src} }

// index reads the keys and table headers of every line.
func (l *Lines) index() {
	if l.assigns != nil {
		return
	}
	l.assigns, l.headers, l.tables, l.written = map[string][]int{}, map[string][]int{}, map[string]int{}, map[string][]int{}
	for i, line := range splitLines(l.src) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			h := strings.TrimSpace(stripComment(line))
			l.written[h] = append(l.written[h], i)
			if name, ok := headerName(t); ok {
				if _, seen := l.tables[name]; !seen {
					l.tables[name] = i
				}
				last := name
				if j := strings.LastIndexByte(name, '.'); j >= 0 {
					last = name[j+1:]
				}
				last = strings.Trim(strings.TrimSpace(last), `"`)
				l.headers[last] = appendLine(l.headers[last], i)
			}
		}
		s := stripComment(line)
		for j := strings.IndexByte(s, '='); j >= 0; {
			if k, ok := assignedKey(s[:j]); ok {
				l.assigns[k] = appendLine(l.assigns[k], i)
			}
			next := strings.IndexByte(s[j+1:], '=')
			if next < 0 {
				break
			}
			j += 1 + next
		}
	}
}

// appendLine adds line i once.
func appendLine(lines []int, i int) []int {
	if n := len(lines); n > 0 && lines[n-1] == i {
		return lines
	}
	return append(lines, i)
}

// splitLines splits src at line feeds without copying it.
func splitLines(src []byte) []string {
	return strings.Split(string(src), "\n")
}

// headerName is what a table header ([a.b] or [[a.b]]) names, spaces
// around it trimmed.
func headerName(t string) (string, bool) {
	t = strings.TrimPrefix(t, "[")
	t = strings.TrimPrefix(t, "[")
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return "", false
	}
	return strings.TrimSpace(t[:end]), true
}

// assignedKey is the key written just before an "=" ending s: the last
// part of a dotted key, without its quotes, when what precedes it is the
// start of the line, an opening brace, a comma, a space or a dot.
func assignedKey(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	if q, ok := strings.CutSuffix(s, `"`); ok {
		if j := strings.LastIndexByte(q, '"'); j >= 0 {
			return q[j+1:], true // a quoted key, dots and all
		}
		s = q
	}
	start := strings.LastIndexAny(s, "{, \t.\"")
	k := s[start+1:]
	if k == "" {
		return "", false
	}
	return k, true
}

// Key is the line (1-based) where a dotted key is written, 0 when not
// found: the first line, at or after the header of the nearest table it
// is in if there is one, that assigns or opens its last part.
func (l *Lines) Key(key ...string) int {
	if len(key) == 0 {
		return 0
	}
	l.index()
	last := key[len(key)-1]
	// Start at the header of the nearest table the key is in, then at
	// each part between it and the last (an inline table, a dotted key):
	// engine.compute_capability.value is the value after the engine's
	// compute_capability, not the engine's first value (its units').
	start, n := 0, len(key)-1
	for ; n > 0; n-- {
		if i, ok := l.tables[strings.Join(key[:n], ".")]; ok {
			start = i
			break
		}
	}
	for _, k := range key[n : len(key)-1] {
		if i := slices.IndexFunc(l.assigns[k], func(i int) bool { return i >= start }); i >= 0 {
			start = l.assigns[k][i]
		}
	}
	best, first := -1, -1
	for _, lines := range [2][]int{l.assigns[last], l.headers[last]} {
		for _, i := range lines {
			if first < 0 || i < first {
				first = i
			}
			if i >= start && (best < 0 || i < best) {
				best = i
			}
			if i >= start {
				break // ascending: the first at or after start is found
			}
		}
	}
	switch {
	case best >= 0:
		return best + 1
	case first >= 0:
		return first + 1
	}
	return 0
}

// Value is the line (1-based) of the first quoted string v, for messages
// about a list item; 0 when not found.
func (l *Lines) Value(v string) int {
	if n := l.TextFrom(v, 1); n > 0 {
		return n
	}
	if lines := l.quoted()["'"+v+"'"]; len(lines) > 0 {
		return lines[0] + 1
	}
	return 0
}

// TextFrom is the first line at or after line from (1-based) that holds
// the double-quoted string text, 0 when none does.
func (l *Lines) TextFrom(text string, from int) int {
	if strings.TrimSpace(text) == "" {
		return 0
	}
	lines := l.quoted()[strconv.Quote(text)]
	i, _ := slices.BinarySearch(lines, from-1)
	if i < len(lines) {
		return lines[i] + 1
	}
	return 0
}

// KeyValue is the first line that sets key to the quoted string v
// (hardware = "x" in a [[measured]] table, not the devices list that
// names x too), else Value(v).
func (l *Lines) KeyValue(key, v string) int {
	q := l.quoted()
	all := append(slices.Clone(q[strconv.Quote(v)]), q["'"+v+"'"]...)
	slices.Sort(all)
	for _, i := range all {
		if k, _, ok := strings.Cut(l.line(i), "="); ok && strings.TrimSpace(k) == key {
			return i + 1
		}
	}
	return l.Value(v)
}

// line is line i (0-based) of the file.
func (l *Lines) line(i int) string {
	if l.starts == nil {
		l.starts = []int{0}
		for j, b := range l.src {
			if b == '\n' {
				l.starts = append(l.starts, j+1)
			}
		}
	}
	end := len(l.src)
	if i+1 < len(l.starts) {
		end = l.starts[i+1] - 1
	}
	return string(l.src[l.starts[i]:end])
}

// Nth is the line (1-based) of the n-th (from 0) table header written
// as h ("[[engine]]"), 0 when the file has fewer.
func (l *Lines) Nth(h string, n int) int {
	l.index()
	if lines := l.written[h]; n >= 0 && n < len(lines) {
		return lines[n] + 1
	}
	return 0
}

// quoted is the index of quoted strings.
func (l *Lines) quoted() map[string][]int {
	if l.values == nil {
		l.values = map[string][]int{}
		for i, line := range splitLines(l.src) {
			for _, s := range quotedStrings(line) {
				l.values[s] = appendLine(l.values[s], i)
			}
		}
	}
	return l.values
}

// quotedStrings are the "double-quoted" and 'single-quoted' strings of a
// line, quotes included, as written.
func quotedStrings(line string) []string {
	var out []string
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '#':
			return out
		case '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return out
			}
			out = append(out, line[i:j+1])
			i = j
		case '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return out
			}
			out = append(out, line[i:i+j+2])
			i += j + 1
		}
	}
	return out
}
