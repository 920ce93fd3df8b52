package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/roofline/roofline/safeio"
)

// Doc is an answer for people: blocks written as text, Markdown or HTML.
// Commands print a Doc as text or Markdown; the report writes its own as
// Markdown and HTML.
type Doc struct {
	// Spaced documents (a report) set every table off with a blank line in
	// Markdown; a command's answer keeps its tables tight.
	Spaced bool
	blocks []block
}

type blockKind uint8

const (
	bLine    blockKind = iota // a line of its own
	bPara                     // a paragraph: a line and a blank line
	bHeading                  // a document heading (h1 … h3)
	bSection                  // a section of a command's answer
	bRaw                      // literal text per format
	bTable
	bPairs
	bList
	bCode
	bFigure
	bSub // one document for text, another for Markdown
)

type block struct {
	kind     blockKind
	level    int
	text, md string
	items    []string
	table    *Table
	pairs    [][2]string
	fig      *DocFigure
	capital  bool
	sub      [2]*Doc
}

// DocFigure is a figure in a document: the image files beside it and its
// inline SVG for HTML.
type DocFigure struct {
	Kind, Caption, Command string
	PNG, SVG               string // paths relative to the document
	Inline                 []byte // the SVG drawn into HTML
}

// Line adds a line.
func (d *Doc) Line(format string, a ...any) {
	d.add(block{kind: bLine, text: fmt.Sprintf(format, a...)})
}

// Para adds a paragraph.
func (d *Doc) Para(s string) { d.add(block{kind: bPara, text: s}) }

// Heading adds a document heading of level 1 … 3.
func (d *Doc) Heading(level int, s string) { d.add(block{kind: bHeading, level: level, text: s}) }

// Section starts a section of a command's answer: a blank line and the
// title in text (capitalised when capital is set), a level-3 heading in
// Markdown.
func (d *Doc) Section(s string, capital bool) {
	d.add(block{kind: bSection, text: s, capital: capital})
}

// Raw adds literal text, one string for text and one for Markdown.
func (d *Doc) Raw(text, md string) { d.add(block{kind: bRaw, text: text, md: md}) }

// Both adds the same literal text to text and Markdown.
func (d *Doc) Both(s string) { d.Raw(s, s) }

// Sub adds one document to the text and another to the Markdown.
func (d *Doc) Sub(text, md *Doc) { d.add(block{kind: bSub, sub: [2]*Doc{text, md}}) }

// Table adds a table.
func (d *Doc) Table(t *Table) { d.add(block{kind: bTable, table: t}) }

// Pairs adds "key: value" lines, values aligned.
func (d *Doc) Pairs(pairs [][2]string) { d.add(block{kind: bPairs, pairs: pairs}) }

// List adds a bulleted list; nothing when it is empty.
func (d *Doc) List(items []string) {
	if len(items) > 0 {
		d.add(block{kind: bList, items: items})
	}
}

// Code adds a block of commands.
func (d *Doc) Code(s string) { d.add(block{kind: bCode, text: s}) }

// Figure adds a figure.
func (d *Doc) Figure(f *DocFigure) { d.add(block{kind: bFigure, fig: f}) }

func (d *Doc) add(b block) { d.blocks = append(d.blocks, b) }

// Write writes the document as text or Markdown.
func (d *Doc) Write(w io.Writer, f Format) error {
	var b bytes.Buffer
	for _, bl := range d.blocks {
		if f == Markdown {
			bl.writeMarkdown(&b, d.Spaced)
		} else {
			bl.writeText(&b)
		}
	}
	_, err := io.WriteString(w, printableText(b.String()))
	return err
}

func (bl block) writeText(b *bytes.Buffer) {
	switch bl.kind {
	case bLine:
		b.WriteString(bl.text + "\n")
	case bPara:
		b.WriteString(bl.text + "\n\n")
	case bHeading:
		b.WriteString(bl.text + "\n\n")
	case bSection:
		s := bl.text
		if bl.capital && s != "" {
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		b.WriteString("\n" + s + "\n")
	case bRaw:
		b.WriteString(bl.text)
	case bSub:
		bl.sub[0].Write(b, Text)
	case bTable:
		bl.table.Write(b, Text)
	case bPairs:
		tw := tabwriter.NewWriter(b, 0, 0, 1, ' ', 0)
		for _, p := range bl.pairs {
			fmt.Fprintf(tw, "%s\t%s\n", p[0]+":", p[1])
		}
		tw.Flush()
	case bList:
		for _, it := range bl.items {
			b.WriteString("- " + it + "\n")
		}
		b.WriteString("\n")
	case bCode:
		b.WriteString(bl.text + "\n\n")
	case bFigure:
		f := bl.fig
		fmt.Fprintf(b, "%s (%s)\n%s\n\n", f.Caption, f.PNG, f.Command)
	}
}

func (bl block) writeMarkdown(b *bytes.Buffer, spaced bool) {
	md := MarkdownText
	switch bl.kind {
	case bLine:
		b.WriteString(md(bl.text) + "\n")
	case bPara:
		b.WriteString(md(bl.text) + "\n\n")
	case bHeading:
		b.WriteString(strings.Repeat("#", bl.level) + " " + md(bl.text) + "\n\n")
	case bSection:
		b.WriteString("\n### " + md(bl.text) + "\n\n")
	case bRaw:
		b.WriteString(bl.md)
	case bSub:
		bl.sub[1].Write(b, Markdown)
	case bTable:
		bl.table.Write(b, Markdown)
		if spaced {
			b.WriteString("\n")
		}
	case bPairs:
		for _, p := range bl.pairs {
			b.WriteString("- " + md(p[0]) + ": " + md(p[1]) + "\n")
		}
		b.WriteString("\n")
	case bList:
		for _, it := range bl.items {
			b.WriteString("- " + md(it) + "\n")
		}
		b.WriteString("\n")
	case bCode:
		f := fence(bl.text)
		fmt.Fprintf(b, "%s\n%s\n%s\n\n", f, bl.text, f)
	case bFigure:
		f := bl.fig
		cf := fence(f.Command)
		fmt.Fprintf(b, "![%s](%s)\n\n%s ([SVG](%s))\n\n%s\n%s\n%s\n\n", f.Kind, f.PNG, md(f.Caption), f.SVG, cf, f.Command, cf)
	}
}

// markdownActive finds what Markdown would act on in plain text: raw
// HTML and autolinks (<), entities (&), images and links (![, ]().
var markdownActive = strings.NewReplacer("&", "&amp;", "<", "&lt;", "![", `!\[`, "](", `]\(`)

// MarkdownText is text from outside (a study's title and description, a
// profile's description, a runs file's note) as Markdown that shows it as
// written: no raw HTML, no image or link loaded from anywhere.
func MarkdownText(s string) string { return markdownActive.Replace(s) }

// fence is a code fence longer than any run of backticks in s, so text
// in the block cannot end it.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// MarkdownDocument is the document as a Markdown file, without trailing
// blank lines.
func (d *Doc) MarkdownDocument() []byte {
	var b bytes.Buffer
	d.WriteMarkdownDocument(&b)
	return b.Bytes()
}

// WriteMarkdownDocument writes MarkdownDocument to w block by block, so a
// long report is never held whole.
func (d *Doc) WriteMarkdownDocument(w io.Writer) error {
	tw := Terminal(w)
	bw := bufio.NewWriterSize(tw, 1<<16)
	newlines := 0 // held back: trailing ones are dropped
	var b bytes.Buffer
	for _, bl := range d.blocks {
		b.Reset()
		bl.writeMarkdown(&b, d.Spaced)
		text := b.Bytes()
		body := bytes.TrimRight(text, "\n")
		if len(body) == 0 {
			newlines += len(text)
			continue
		}
		bw.WriteString(strings.Repeat("\n", newlines))
		bw.Write(body)
		newlines = len(text) - len(body)
	}
	return errors.Join(bw.Flush(), tw.Flush())
}

const documentCSS = `body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111;line-height:1.45}
h1{font-size:1.7rem}h2{font-size:1.35rem;border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.1rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}th{background:#f2f2f2}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;font-size:.8rem;white-space:pre-wrap;word-break:break-all}
figure{margin:1rem 0}figure svg{width:100%;height:auto}figcaption{font-size:.9rem;color:#333}
a{color:#1a5fb4;overflow-wrap:anywhere}
@media print{body{max-width:none;margin:0}h2,h3{break-after:avoid;page-break-after:avoid}
figure,table,tr,li{break-inside:avoid;page-break-inside:avoid}figure svg{width:auto;max-width:100%;max-height:225mm}pre{white-space:pre-wrap}}`

var xmlProlog = regexp.MustCompile(`^(<\?xml[^>]*\?>\s*)?(<!--.*?-->\s*)?`)

var (
	// webURL is a link a reader may follow: http and https only.
	webURL = regexp.MustCompile(`https?://[^\s"'<>` + "`" + `]+`)
	// numberUnit is a number and the unit after it ("889 ms", "7.4 GiB",
	// "80 %", "1.3 TFLOP/s"), which a line must not break between.
	numberUnit = regexp.MustCompile(`(\d) ((?:[µnmkKMGTP]i?)?(?:s|B|FLOP|OP|W|J|Wh|Hz)\b|%|tok/s|t/s)`)
)

// inline is text as HTML: escaped, every URL redacted (safeio.RedactURL)
// and, when http or https, a link; a no-break space between a number and
// its unit, so "889 ms" never wraps between them.
func inline(s string) string {
	var b strings.Builder
	text := func(t string) {
		b.WriteString(numberUnit.ReplaceAllString(html.EscapeString(safeio.RedactText(t)), "$1&nbsp;$2"))
	}
	last := 0
	for _, m := range webURL.FindAllStringIndex(s, -1) {
		u := strings.TrimRight(s[m[0]:m[1]], ".,;:)]}")
		text(s[last:m[0]])
		r := html.EscapeString(safeio.RedactURL(u))
		b.WriteString(`<a href="` + r + `">` + r + `</a>`)
		last = m[0] + len(u)
	}
	text(s[last:])
	return b.String()
}

// HTMLDocument is the document as one self-contained HTML page: styles
// inline, figures as inline SVG, nothing loaded from anywhere.
func (d *Doc) HTMLDocument(title string) []byte {
	var b bytes.Buffer
	d.WriteHTMLDocument(&b, title)
	return b.Bytes()
}

// WriteHTMLDocument writes HTMLDocument to w block by block.
func (d *Doc) WriteHTMLDocument(w io.Writer, title string) error {
	tw := Terminal(w)
	b := bufio.NewWriterSize(tw, 1<<16)
	e := html.EscapeString
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n", e(title), documentCSS)
	cls := func(right bool) string {
		if right {
			return ` class="r"`
		}
		return ""
	}
	for _, bl := range d.blocks {
		switch bl.kind {
		case bHeading:
			fmt.Fprintf(b, "<h%d>%s</h%d>\n", bl.level, inline(bl.text), bl.level)
		case bSection:
			fmt.Fprintf(b, "<h3>%s</h3>\n", inline(bl.text))
		case bLine, bPara:
			fmt.Fprintf(b, "<p>%s</p>\n", inline(bl.text))
		case bRaw:
			fmt.Fprintf(b, "<p>%s</p>\n", inline(strings.TrimSpace(bl.md)))
		case bList, bPairs:
			items := bl.items
			for _, p := range bl.pairs {
				items = append(items, p[0]+": "+p[1])
			}
			b.WriteString("<ul>\n")
			for _, it := range items {
				fmt.Fprintf(b, "<li>%s</li>\n", inline(it))
			}
			b.WriteString("</ul>\n")
		case bTable:
			head, rows, right := bl.table.people()
			b.WriteString("<table>\n<thead><tr>")
			for i, h := range head {
				fmt.Fprintf(b, "<th%s>%s</th>", cls(right[i]), inline(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range rows {
				b.WriteString("<tr>")
				for i, c := range row {
					fmt.Fprintf(b, "<td%s>%s</td>", cls(right[i]), inline(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n")
		case bCode:
			fmt.Fprintf(b, "<pre><code>%s</code></pre>\n", e(bl.text))
		case bFigure:
			f := bl.fig
			svg := xmlProlog.ReplaceAll(f.Inline, nil)
			fmt.Fprintf(b, "<figure id=\"figure-%s\">\n%s\n<figcaption>%s</figcaption>\n<pre><code>%s</code></pre>\n</figure>\n", e(f.Kind), svg, inline(f.Caption), e(f.Command))
		}
	}
	b.WriteString("</body>\n</html>\n")
	return errors.Join(b.Flush(), tw.Flush())
}
