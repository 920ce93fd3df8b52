package safeio

import (
	"io"
	"regexp"
	"strings"
)

// Hidden replaces a secret.
const Hidden = "xxxxx"

// RedactURL hides the user information and every query value of a URL:
// "https://user:pw@host/m.gguf?token=abc" becomes
// "https://xxxxx@host/m.gguf?token=xxxxx". The rest is kept as written
// (nothing is parsed and re-encoded), so redacting twice changes nothing.
// Strings without "://" are returned unchanged.
func RedactURL(s string) string {
	i := strings.Index(s, "://")
	if i <= 0 {
		return s
	}
	head, rest := s[:i+3], s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		authority = Hidden + authority[at:]
	}
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		query, frag := tail[q+1:], ""
		if h := strings.IndexByte(query, '#'); h >= 0 {
			query, frag = query[:h], query[h:]
		}
		tail = tail[:q+1] + redactQuery(query) + frag
	}
	return head + authority + tail
}

// redactQuery keeps the keys of a query and hides the values, in the order
// written.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + Hidden
		}
	}
	return strings.Join(parts, "&")
}

var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)

// RedactText redacts every URL in s.
func RedactText(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, func(u string) string {
		// Keep punctuation that ends a sentence or a quotation outside.
		trail := strings.TrimRight(u, ".,;:)]}")
		return RedactURL(trail) + u[len(trail):]
	})
}

// HasSecret reports whether a URL carries user information or query
// values that RedactURL would hide.
func HasSecret(s string) bool { return RedactURL(s) != s }

// Writer redacts every URL in what is written through it. Each Write is
// redacted on its own: write whole messages.
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	s := RedactText(string(p))
	if _, err := io.WriteString(w.W, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
