package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	pdf "codeberg.org/go-pdf/fpdf"
	stdfnt "golang.org/x/image/font"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas is a vg.Canvas that writes a PDF whose fonts are embedded as
// Unicode (Type 0, Identity-H, with a ToUnicode map). gonum/plot's vgpdf
// embeds them with the WinAnsi code page, so η, ·, ×, Σ and → come out as
// mojibake in every reader and in copied text; fpdf's UTF-8 fonts subset
// the TrueType file to the glyphs used and keep the text searchable.
//
// The drawing model follows vgpdf: fpdf measures from the top left, so the
// page is flipped once and each string flipped back.
type pdfCanvas struct {
	doc    *pdf.Fpdf
	w, h   vg.Length
	width  []vg.Length // line width per Push level
	fonts  map[string]bool
	images int
}

func newPDF(w, h vg.Length) *pdfCanvas {
	doc := pdf.NewCustom(&pdf.InitType{UnitStr: "pt", Size: pdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	// The same input gives the same bytes: a fixed date (or the build's
	// SOURCE_DATE_EPOCH) and resources in a fixed order.
	date := pdfDate()
	doc.SetCreationDate(date)
	doc.SetModificationDate(date)
	doc.SetCatalogSort(true)
	doc.SetCreator("roofline", false)
	doc.SetProducer("roofline", false)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &pdfCanvas{doc: doc, w: w, h: h, width: []vg.Length{0}, fonts: map[string]bool{}}
	c.Push()
	c.Translate(vg.Point{Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

// pdfEpoch is the creation date of a PDF when SOURCE_DATE_EPOCH is not
// set: fixed, so that two renders of one figure are byte-identical.
var pdfEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfDate is SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/)
// when set to a valid number of seconds, else pdfEpoch.
func pdfDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 && n < 253402300800 {
			return time.Unix(n, 0).UTC()
		}
	}
	return pdfEpoch
}

func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.width[len(c.width)-1] = w
	c.doc.SetLineWidth(w.Points())
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := clr.RGBA()
	c.doc.SetFillColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetDrawColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetTextColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

func (c *pdfCanvas) Rotate(r float64) { c.doc.TransformRotate(-r*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(pt vg.Point) {
	c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points())
}

func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

func (c *pdfCanvas) Push() {
	c.width = append(c.width, c.width[len(c.width)-1])
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.width = c.width[:len(c.width)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.width[len(c.width)-1] > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

func (c *pdfCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 {
		return
	}
	name, style := c.font(fnt)
	c.doc.SetFont(name, style, fnt.Font.Size.Points())
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	c.Scale(1, -1) // back upright: fpdf draws text in its own y-down space
	c.doc.Text(0, 0, str)
}

// font registers a face with the document once, as a UTF-8 (subset,
// Unicode-mapped) TrueType font, and returns its fpdf family and style.
func (c *pdfCanvas) font(fnt font.Face) (name, style string) {
	name = fnt.Name()
	if fnt.Font.Weight == stdfnt.WeightBold {
		style += "B"
	}
	if fnt.Font.Style == stdfnt.StyleItalic {
		style += "I"
	}
	if !c.fonts[name+style] {
		c.fonts[name+style] = true
		var raw bytes.Buffer
		if _, err := fnt.Face.WriteSourceTo(nil, &raw); err != nil {
			c.doc.SetError(fmt.Errorf("font %s: %w", name, err))
			return name, style
		}
		c.doc.AddUTF8FontFromBytes(name, style, raw.Bytes())
	}
	return name, style
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		c.doc.SetError(err)
		return
	}
	opts := pdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.images++
	name := fmt.Sprintf("image-%d", c.images)
	c.doc.RegisterImageOptionsReader(name, opts, &b)
	size := rect.Size()
	c.doc.ImageOptions(name, rect.Min.X.Points(), rect.Min.Y.Points(), size.X.Points(), size.Y.Points(), false, opts, 0, "")
}

func (c *pdfCanvas) path(path vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range path {
		x, y := comp.Pos.X.Points(), comp.Pos.Y.Points()
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = x, y
			c.doc.MoveTo(x, y)
		case vg.LineComp:
			c.doc.LineTo(x, y)
		case vg.ArcComp:
			r := comp.Radius
			c.doc.LineTo((comp.Pos.X + r*vg.Length(math.Cos(comp.Start))).Points(), (comp.Pos.Y + r*vg.Length(math.Sin(comp.Start))).Points())
			const deg = 180 / math.Pi
			beg := comp.Start * deg
			c.doc.Arc(x, y, r.Points(), r.Points(), comp.Angle*deg, beg, beg+comp.Angle*deg, style)
			end := comp.Start + comp.Angle
			c.doc.MoveTo((comp.Pos.X + r*vg.Length(math.Cos(end))).Points(), (comp.Pos.Y + r*vg.Length(math.Sin(end))).Points())
		case vg.CurveComp:
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), x, y)
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), x, y)
			}
		case vg.CloseComp:
			c.doc.LineTo(x0, y0)
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

// WriteTo closes the document and writes it.
func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	c.Pop()
	cw := &countWriter{w: w}
	err := c.doc.Output(cw)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
