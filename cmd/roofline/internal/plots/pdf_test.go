package plots

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// nonASCII is every non-ASCII character roofline's figures draw: titles
// (η_bw, ·, ×, Σ E2E, ±20 %, …), units (µs), arrows and signs. The gallery
// test fails on a drawn character missing here, so this list stays whole.
const nonASCII = "η·×Σµ→±…–—−≤≥≈"

// pdfText extracts the text a PDF shows, in drawing order, one string per
// text-showing operator. It reads what fpdf writes and what a reader needs
// to copy text: each font's ToUnicode map (bfchar and bfrange) and the
// strings of Tj and TJ, decoded as two-byte codes for Type 0 fonts.
func pdfText(t *testing.T, doc []byte) []string {
	t.Helper()
	objs := map[string][]byte{} // object number → body
	for _, m := range regexp.MustCompile(`(?s)(\d+) 0 obj(.*?)endobj`).FindAllSubmatch(doc, -1) {
		objs[string(m[1])] = m[2]
	}
	stream := func(body []byte) []byte {
		i := bytes.Index(body, []byte("stream"))
		j := bytes.LastIndex(body, []byte("endstream"))
		if i < 0 || j < i {
			return nil
		}
		data := bytes.TrimLeft(body[i+len("stream"):j], "\r\n")
		if bytes.Contains(body[:i], []byte("/FlateDecode")) {
			r, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("inflate: %v", err)
			}
			out, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("inflate: %v", err)
			}
			return out
		}
		return data
	}
	// Fonts: resource name → (two-byte codes?, code → text).
	type cmap struct {
		wide bool
		m    map[int]string
	}
	fonts := map[string]cmap{}
	ref := regexp.MustCompile(`/(F\w+) (\d+) 0 R`)
	for _, body := range objs {
		for _, dict := range regexp.MustCompile(`(?s)/Font <<(.*?)>>`).FindAllSubmatch(body, -1) {
			for _, m := range ref.FindAllSubmatch(dict[1], -1) {
				fo := objs[string(m[2])]
				if !bytes.Contains(fo, []byte("/Type /Font")) {
					continue
				}
				cm := cmap{wide: bytes.Contains(fo, []byte("/Identity-H")), m: map[int]string{}}
				tu := regexp.MustCompile(`/ToUnicode (\d+) 0 R`).FindSubmatch(fo)
				if tu == nil {
					t.Fatalf("font %s has no ToUnicode map: text cannot be copied", m[1])
				}
				parseCMap(t, stream(objs[string(tu[1])]), cm.m)
				fonts[string(m[1])] = cm
			}
		}
	}
	if len(fonts) == 0 {
		t.Fatal("no fonts in the PDF")
	}
	var out []string
	op := regexp.MustCompile(`(?s)/(F\w+) [\d.]+ Tf|\((?:\\.|[^\\)])*\)\s*Tj|\[(?:\\.|[^\]])*\]\s*TJ`)
	for _, body := range objs {
		if bytes.Contains(body, []byte("/Type")) && !bytes.Contains(body, []byte("/Length")) {
			continue
		}
		content := stream(body)
		if !bytes.Contains(content, []byte(" Tj")) && !bytes.Contains(content, []byte(" TJ")) && !bytes.Contains(content, []byte(")Tj")) {
			continue
		}
		var cur cmap
		for _, m := range op.FindAll(content, -1) {
			if m[0] == '/' {
				cur = fonts[strings.Fields(string(m[1:]))[0]]
				continue
			}
			var s strings.Builder
			for _, lit := range regexp.MustCompile(`\((?:\\.|[^\\)])*\)`).FindAll(m, -1) {
				raw := unescapePDF(lit[1 : len(lit)-1])
				step := 1
				if cur.wide {
					step = 2
				}
				for i := 0; i+step <= len(raw); i += step {
					code := int(raw[i])
					if step == 2 {
						code = code<<8 | int(raw[i+1])
					}
					u, ok := cur.m[code]
					if !ok {
						t.Fatalf("code %#x has no Unicode mapping", code)
					}
					s.WriteString(u)
				}
			}
			out = append(out, s.String())
		}
	}
	return out
}

// parseCMap reads bfchar and bfrange entries of a ToUnicode CMap.
func parseCMap(t *testing.T, data []byte, m map[int]string) {
	hex := func(s []byte) int {
		v, err := strconv.ParseUint(string(s), 16, 32)
		if err != nil {
			t.Fatalf("cmap: %v", err)
		}
		return int(v)
	}
	utf := func(s []byte) string {
		var units []uint16
		for i := 0; i+4 <= len(s); i += 4 {
			units = append(units, uint16(hex(s[i:i+4])))
		}
		return string(utf16.Decode(units))
	}
	for _, sec := range regexp.MustCompile(`(?s)beginbfchar(.*?)endbfchar`).FindAllSubmatch(data, -1) {
		for _, e := range regexp.MustCompile(`<(\w+)>\s*<(\w+)>`).FindAllSubmatch(sec[1], -1) {
			m[hex(e[1])] = utf(e[2])
		}
	}
	for _, sec := range regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`).FindAllSubmatch(data, -1) {
		for _, e := range regexp.MustCompile(`<(\w+)>\s*<(\w+)>\s*<(\w+)>`).FindAllSubmatch(sec[1], -1) {
			lo, hi, dst := hex(e[1]), hex(e[2]), hex(e[3])
			for c := lo; c <= hi; c++ {
				if r := dst + c - lo; r < 0xD800 || r > 0xDFFF {
					m[c] = string(rune(r))
				}
			}
		}
	}
	if len(m) == 0 {
		t.Fatal("empty ToUnicode map")
	}
}

// unescapePDF decodes a PDF literal string's escapes.
func unescapePDF(s []byte) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case '\n':
		default:
			if c >= '0' && c <= '7' {
				v, n := 0, 0
				for ; n < 3 && i < len(s) && s[i] >= '0' && s[i] <= '7'; n++ {
					v = v*8 + int(s[i]-'0')
					i++
				}
				i--
				out = append(out, byte(v))
			} else {
				out = append(out, c)
			}
		}
	}
	return out
}

// TestPDFText renders a figure whose title, legend and axes carry every
// non-ASCII character the figures use and reads the text back.
func TestPDFText(t *testing.T) {
	title := "Σ E2E at η_bw 0.80 · 3 × 4 µs → 200 ms ±20 % … 1–8 — a − b ≤ c ≥ d ≈ e"
	c := curve("rk3588 · cpu = raspberry-pi-5 · cpu × 2 → η", 10, 20, 40)
	c.Ideal = []float64{5, 10, 20}
	f, err := Latency(title, "context (µs)", "Σ E2E (s)", []Curve{c}, 30, "TPOT target 200 µs", LinearY)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Render(f, "pdf", 16*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("PLOTS_KEEP") != "" {
		os.WriteFile(os.Getenv("PLOTS_KEEP"), doc, 0o644)
	}
	text := pdfText(t, doc)
	joined := strings.Join(text, "\n")
	for _, want := range []string{title, "rk3588 · cpu = raspberry-pi-5 · cpu × 2 → η", "context (µs)", "Σ E2E (s)", "TPOT target 200 µs", "ideal: 100 % of peak, no overhead"} {
		found := false
		for _, s := range text {
			found = found || s == want
		}
		if !found {
			t.Errorf("the PDF does not show %q; it shows:\n%s", want, joined)
		}
	}
	for _, r := range nonASCII {
		if !strings.ContainsRune(joined, r) {
			t.Errorf("%q is not in the PDF's text", r)
		}
	}
	for _, mojibake := range []string{"Î", "Â", "Ã"} {
		if strings.Contains(joined, mojibake) {
			t.Errorf("mojibake %q in the PDF's text", mojibake)
		}
	}
}

// TestFontHasGlyphs: every character the figures use has a glyph in the
// font they are drawn with (else a reader shows a box).
func TestFontHasGlyphs(t *testing.T) {
	face := font.DefaultCache.Lookup(plot.DefaultFont, vg.Points(10))
	var buf sfnt.Buffer
	for _, r := range nonASCII {
		if g, err := face.Face.GlyphIndex(&buf, r); err != nil || g == 0 {
			t.Errorf("%q (%U): no glyph in %s", r, r, face.Name())
		}
	}
}

// TestPDFDeterministic: the same figure gives the same bytes, dated by
// SOURCE_DATE_EPOCH when set.
func TestPDFDeterministic(t *testing.T) {
	render := func() []byte {
		c := curve("a · b", 1, 2, 3)
		f, err := Latency("η × Σ", "x", "y", []Curve{c}, 2.5, "target", LogY)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Render(f, "pdf", 16*vg.Centimeter, 10*vg.Centimeter)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Setenv("SOURCE_DATE_EPOCH", "")
	a, b := render(), render()
	if !bytes.Equal(a, b) {
		t.Error("two renders of one figure differ")
	}
	if !bytes.Contains(a, []byte("/CreationDate (D:20000101000000)")) {
		t.Errorf("no fixed creation date without SOURCE_DATE_EPOCH")
	}
	// 1700000000 s = 2023-11-14 22:13:20 UTC.
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if c := render(); !bytes.Contains(c, []byte("/CreationDate (D:20231114221320)")) || !bytes.Contains(c, []byte("/ModDate (D:20231114221320)")) {
		t.Errorf("SOURCE_DATE_EPOCH=1700000000 not used as the creation date")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	if c := render(); !bytes.Equal(c, a) {
		t.Errorf("an invalid SOURCE_DATE_EPOCH is not ignored")
	}
}
