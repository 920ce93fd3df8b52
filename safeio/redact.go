package safeio

import (
	"io"
	"net/url"
	"regexp"
	"strings"
)

// Hidden replaces a secret.
const Hidden = "xxxxx"

// RedactURL hides the user information and every query value of a URL:
// "https://user:pw@host/m.gguf?token=abc" becomes
// "https://xxxxx@host/m.gguf?token=xxxxx". Strings that do not parse as a
// URL with a scheme are returned unchanged.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		if i := strings.Index(s, "://"); i > 0 {
			// Unparseable but URL-shaped: keep the scheme and host only.
			rest := s[i+3:]
			if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
				rest = Hidden + rest[at:]
			}
			if q := strings.IndexAny(rest, "?#"); q >= 0 {
				rest = rest[:q] + "?" + Hidden
			}
			return s[:i+3] + rest
		}
		return s
	}
	if u.User != nil {
		u.User = url.User(Hidden)
	}
	if u.RawQuery != "" {
		u.RawQuery = redactQuery(u.RawQuery)
	}
	return u.String()
}

// redactQuery keeps the keys of a query and hides the values, in the order
// written (url.Values would sort and merge them).
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
