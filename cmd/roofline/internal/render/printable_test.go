package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// One rule for every string from outside: what a terminal acts on is
// written as %q writes it.
func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, one, text string }{
		{"plain text", "plain text", "plain text"},
		{"ESC \x1b[2J", `ESC \x1b[2J`, `ESC \x1b[2J`},
		{"title \x1b]0;pwned\a", `title \x1b]0;pwned\a`, `title \x1b]0;pwned\a`},
		{"two\nlines\tand a tab", `two\nlines\tand a tab`, "two\nlines\tand a tab"},
		{"cr\rover", `cr\rover`, `cr\rover`},
		{"del \x7f", `del \x7f`, `del \x7f`},
		{"C1 \u009b CSI", `C1 \u009b CSI`, `C1 \u009b CSI`},
		{"bidi \u202eevil", `bidi \u202eevil`, `bidi \u202eevil`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{"µs ≤ 1 · GiB — 日本", "µs ≤ 1 · GiB — 日本", "µs ≤ 1 · GiB — 日本"},
		{"tag \U000E0041", `tag \U000e0041`, `tag \U000e0041`},
	} {
		if got := Printable(c.in); got != c.one {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.one)
		}
		if got := printableText(c.in); got != c.text {
			t.Errorf("printableText(%q) = %q, want %q", c.in, got, c.text)
		}
		if Printable(c.one) != c.one {
			t.Errorf("Printable is not idempotent on %q", c.one)
		}
	}
}

// A character split across writes is held, not escaped as two bad bytes;
// one never completed is escaped at Flush.
func TestTerminalWriter(t *testing.T) {
	var b bytes.Buffer
	w := Terminal(&b)
	s := "a µ b \u202e c\x1b"
	for i := 0; i < len(s); i++ {
		w.Write([]byte{s[i]})
	}
	w.Write([]byte{0xe2, 0x80}) // the start of a 3-byte character
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := `a µ b \u202e c\x1b\xe2\x80`; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// JSON stays JSON: what the rule escapes inside a string becomes a JSON
// escape of the same character, and Terminal leaves it alone.
func TestJSONPrintable(t *testing.T) {
	in := map[string]string{"note": "a \x1b]0;x\a \x7f \u009b \u202e \U000E0041 µ"}
	var b bytes.Buffer
	if err := WriteJSON(&b, in); err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["note"] != in["note"] {
		t.Fatalf("round trip: %v, %q", err, back["note"])
	}
	if Printable(b.String()) != strings.NewReplacer("\n", `\n`).Replace(b.String()) {
		t.Errorf("WriteJSON wrote what the rule escapes: %q", b.String())
	}
	for _, r := range b.String() {
		if r != '\n' && (r == utf8.RuneError || !unicode.IsGraphic(r)) {
			t.Errorf("raw %U in %q", r, b.String())
		}
	}
}

// Markdown shows a study's text as written: no raw HTML, no image or link
// loaded from anywhere; a code block cannot be closed by its content.
func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		"<img src=x onerror=alert(1)>":    "&lt;img src=x onerror=alert(1)>",
		"![x](http://evil.example/i.png)": `!\[x]\(http://evil.example/i.png)`,
		"[a](http://evil.example)":        `[a]\(http://evil.example)`,
		"R&D &lt;b&gt;":                   "R&amp;D &amp;lt;b&amp;gt;",
		"TTFT ≤ 1 s, llama-3.2-1b":        "TTFT ≤ 1 s, llama-3.2-1b",
	} {
		if got := MarkdownText(in); got != want {
			t.Errorf("MarkdownText(%q) = %q, want %q", in, got, want)
		}
	}
	d := &Doc{}
	d.Code("echo ```\nrm -rf /")
	var b bytes.Buffer
	d.Write(&b, Markdown)
	if !strings.HasPrefix(b.String(), "````\necho ```\n") {
		t.Errorf("fence: %q", b.String())
	}
}
