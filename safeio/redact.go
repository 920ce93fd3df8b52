package safeio

import (
	"io"
	"regexp"
	"strings"
)

// Hidden replaces a secret.
const Hidden = "xxxxx"

// RedactURL hides the user information and every query and fragment
// value of a URL, whatever its shape: "https://user:pw@host/m.gguf?token=abc"
// becomes "https://xxxxx@host/m.gguf?token=xxxxx", "?hf_TOKEN" (a value
// with no key) "?xxxxx", "#access_token=X" "#access_token=xxxxx" and
// "?token%3DX" "?xxxxx". A key is kept when it reads like a parameter's
// name (letters, digits, "_", "-", ".", at most 32); anything else in a
// query or fragment is hidden. The rest is kept as written (nothing is
// parsed and re-encoded), so redacting twice changes nothing. Strings
// without "://" are returned unchanged.
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
	// The fragment starts at the first '#'; the query at a '?' before it.
	frag := ""
	if h := strings.IndexByte(tail, '#'); h >= 0 {
		tail, frag = tail[:h], "#"+redactQuery(tail[h+1:])
	}
	if q := strings.IndexByte(tail, '?'); q >= 0 {
		tail = tail[:q+1] + redactQuery(tail[q+1:])
	}
	return head + authority + tail + frag
}

// redactQuery hides every value of a query or fragment: key=xxxxx where
// the key reads like a name, xxxxx for anything else.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		switch k, _, ok := strings.Cut(p, "="); {
		case p == "":
		case ok && plainKey(k):
			parts[i] = k + "=" + Hidden
		default:
			parts[i] = Hidden
		}
	}
	return strings.Join(parts, "&")
}

// plainKey reports a parameter's name: 1 to 32 letters, digits, '_',
// '-' or '.'; a key that is anything else may be a secret itself.
func plainKey(k string) bool {
	if k == "" || len(k) > 32 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
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
