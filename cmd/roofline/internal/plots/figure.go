package plots

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is one or more panels stacked top to bottom with aligned axes,
// a title, and one legend for all of them.
type Figure struct {
	Title  string
	Panels []*plot.Plot
	Legend plot.Legend // the style; entries are laid out in columns
	// PreferredHeight, when set, is the height the figure needs to stay
	// legible (a plan with many rows); the command uses it unless the
	// user sets --height.
	PreferredHeight vg.Length
	// Data is every number drawn, in drawing order, so the figure can be
	// checked against the predictor and shipped with its data (CSV).
	Data    []Datum
	entries []entry
}

// Datum is one plotted value: a point of a series, in the units of the
// axes it is drawn against.
type Datum struct {
	Series   string // legend label, bar or row
	Quantity string // expected, ideal, measured, target, weights, …
	XName    string // x axis, with unit
	X        float64
	YName    string // y axis, with unit
	Y        float64
	Label    string // annotation drawn beside the point, if any
}

func (f *Figure) record(series, quantity, xName string, x float64, yName string, y float64, label string) {
	f.Data = append(f.Data, Datum{series, quantity, xName, x, yName, y, label})
}

// num formats a value for CSV; NaN (no x: a target line) is empty.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

// CSV is Data as comma-separated values with a header row.
func (f *Figure) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"series", "quantity", "x_name", "x", "y_name", "y", "label"})
	for _, d := range f.Data {
		w.Write([]string{d.Series, d.Quantity, d.XName, num(d.X), d.YName, num(d.Y), d.Label})
	}
	w.Flush()
	return b.Bytes()
}

type entry struct {
	label string
	thumb []plot.Thumbnailer
}

func newFigure(title string, panels int) *Figure {
	f := &Figure{Title: title, Legend: plot.NewLegend()}
	f.Legend.Top, f.Legend.Left = true, true
	f.Legend.TextStyle.Font.Size = vg.Points(9)
	f.Legend.Padding = vg.Points(2)
	f.Legend.ThumbnailWidth = vg.Points(22)
	for i := 0; i < panels; i++ {
		p := plot.New()
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			a.Label.TextStyle.Font.Size = vg.Points(10)
			a.Tick.Label.Font.Size = vg.Points(9)
		}
		p.X.Tick.Marker, p.Y.Tick.Marker = cleanTicks{}, cleanTicks{}
		p.Add(plotter.NewGrid())
		f.Panels = append(f.Panels, p)
	}
	return f
}

// add puts an entry in the legend.
func (f *Figure) add(label string, th ...plot.Thumbnailer) {
	f.entries = append(f.entries, entry{label, th})
}

// legendColumns splits the entries into one or two columns: two when there
// are more than three and every label fits in half the width.
func (f *Figure) legendColumns(width vg.Length) [][]entry {
	if len(f.entries) <= 3 {
		return [][]entry{f.entries}
	}
	half := width/2 - f.Legend.ThumbnailWidth - vg.Points(16)
	for _, e := range f.entries {
		if f.Legend.TextStyle.Width(e.label) > half {
			return [][]entry{f.entries}
		}
	}
	n := (len(f.entries) + 1) / 2
	return [][]entry{f.entries[:n], f.entries[n:]}
}

// Formats are the encodings Render knows, by file extension.
var Formats = []string{"png", "svg", "pdf"}

// FormatOf is the encoding a file name asks for.
func FormatOf(path string) (string, error) {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	for _, f := range Formats {
		if ext == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: unknown image type %q (want .png, .svg or .pdf)", path, filepath.Ext(path))
}

// Render encodes f at width × height.
func Render(f *Figure, format string, w, h vg.Length) ([]byte, error) {
	var (
		canvas vg.CanvasSizer
		write  func(*bytes.Buffer) error
	)
	switch format {
	case "svg":
		s := vgsvg.New(w, h)
		canvas, write = s, func(b *bytes.Buffer) error {
			var raw bytes.Buffer
			if _, err := s.WriteTo(&raw); err != nil {
				return err
			}
			b.Write(svgFontStack(raw.Bytes()))
			return nil
		}
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(150))
		canvas, write = img, func(b *bytes.Buffer) error { _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(b); return err }
	case "pdf":
		p := newPDF(w, h)
		canvas, write = p, func(b *bytes.Buffer) error { _, err := p.WriteTo(b); return err }
	default:
		return nil, fmt.Errorf("unknown image format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	if err := f.draw(draw.New(canvas)); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// svgFamily is the font stack an SVG names: Liberation Serif, which the
// figure was laid out with, then fonts with the same metrics (Tinos on
// ChromeOS and Android, Times New Roman on Windows and macOS), so text
// keeps its measured width where Liberation is not installed.
const svgFamily = "font-family:'Liberation Serif',Tinos,'Times New Roman',serif;"

// svgFontStack replaces the single family vgsvg writes with svgFamily.
func svgFontStack(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Serif;"), []byte(svgFamily))
}

func (f *Figure) draw(dc draw.Canvas) error {
	if len(f.Panels) == 0 {
		return fmt.Errorf("figure %q has no panels", f.Title)
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	pad := vg.Points(6)
	// Title band.
	title := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(11)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	top := dc.Max.Y - pad
	for _, line := range wrap(title, f.Title, dc.Max.X-dc.Min.X-2*pad) {
		dc.FillText(title, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, line)
		top -= title.Height(line) + vg.Points(2)
	}
	// Legend band, below the panels.
	legendH := vg.Length(0)
	if cols := f.legendColumns(dc.Max.X - dc.Min.X - 2*pad); len(cols[0]) > 0 {
		rowH := f.Legend.TextStyle.Height("Mg") + f.Legend.Padding
		legendH = vg.Length(len(cols[0]))*rowH + 2*pad
		colW := (dc.Max.X - dc.Min.X - 2*pad) / vg.Length(len(cols))
		for i, col := range cols {
			l := f.Legend
			for _, e := range col {
				l.Add(e.label, e.thumb...)
			}
			lc := dc
			lc.Min.X = dc.Min.X + pad + vg.Length(i)*colW
			lc.Max.X = lc.Min.X + colW
			lc.Min.Y = dc.Min.Y + pad
			lc.Max.Y = dc.Min.Y + legendH - pad
			l.Draw(lc)
		}
	}
	body := dc
	body.Min.Y = dc.Min.Y + legendH + pad
	body.Max.Y = top - pad
	if body.Max.Y-body.Min.Y < vg.Points(40*float64(len(f.Panels))) {
		return fmt.Errorf("figure too small for %d panels and %d legend entries: make it taller (--height)", len(f.Panels), len(f.entries))
	}
	// gonum/plot places a y-axis label's glyph box at the arithmetic mean
	// of the axis range, which on a log axis lies near the top and pads
	// the panel down by half the label's length; the figure draws the
	// y labels itself, centred on each panel's data area.
	yLabels := make([]string, len(f.Panels))
	labelW := vg.Length(0)
	for i, p := range f.Panels {
		yLabels[i] = p.Y.Label.Text
		if p.Y.Label.Text != "" {
			labelW = max(labelW, p.Y.Label.TextStyle.Height(p.Y.Label.Text)+p.Y.Label.Padding)
		}
		p.Y.Label.Text = ""
	}
	defer func() {
		for i, p := range f.Panels {
			p.Y.Label.Text = yLabels[i]
		}
	}()
	body.Min.X += labelW
	rows := make([][]*plot.Plot, len(f.Panels))
	for i, p := range f.Panels {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(f.Panels), Cols: 1, PadY: vg.Points(10), PadX: pad, PadLeft: pad, PadRight: vg.Points(12)}
	cs := plot.Align(rows, tiles, body)
	for i, p := range f.Panels {
		p.Draw(cs[i][0])
		if yLabels[i] != "" {
			da := p.DataCanvas(cs[i][0])
			st := p.Y.Label.TextStyle
			st.Rotation, st.XAlign, st.YAlign = math.Pi/2, draw.XCenter, draw.YTop
			dc.FillText(st, vg.Point{X: body.Min.X - labelW, Y: (da.Min.Y + da.Max.Y) / 2}, yLabels[i])
		}
	}
	return nil
}

// palette is Okabe and Ito's colour-blind-safe set.
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{240, 228, 66, 255},  // yellow
	{0, 0, 0, 255},       // black
}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

var (
	grey    = color.RGBA{120, 120, 120, 255}
	dashed  = []vg.Length{vg.Points(5), vg.Points(3)}
	dotted  = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	targetC = color.RGBA{200, 0, 0, 255}
)

// xys checks a series before it reaches gonum/plot, whose log scales panic
// on values ≤ 0.
func xys(what string, x, y []float64, logX, logY bool) (plotter.XYs, error) {
	if len(x) == 0 || len(y) == 0 {
		return nil, fmt.Errorf("%s: empty series", what)
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("%s: %d x values but %d y values", what, len(x), len(y))
	}
	pts := make(plotter.XYs, len(x))
	for i := range x {
		for _, v := range []struct {
			v   float64
			log bool
			ax  string
		}{{x[i], logX, "x"}, {y[i], logY, "y"}} {
			if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
				return nil, fmt.Errorf("%s: %s value %v at point %d", what, v.ax, v.v, i+1)
			}
			if v.log && v.v <= 0 {
				return nil, fmt.Errorf("%s: %s value %v at point %d cannot go on a log axis", what, v.ax, v.v, i+1)
			}
		}
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts, nil
}

func line(pts plotter.XYs, c color.Color, width float64, dashes []vg.Length) *plotter.Line {
	l, _ := plotter.NewLine(pts) // pts are checked by xys
	l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = c, vg.Points(width), dashes
	return l
}

func scatter(pts plotter.XYs, c color.Color, shape draw.GlyphDrawer, radius float64) *plotter.Scatter {
	s, _ := plotter.NewScatter(pts)
	s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = c, shape, vg.Points(radius)
	return s
}

// hline draws y = v across [x0, x1].
func hline(x0, x1, v float64, c color.Color, dashes []vg.Length) *plotter.Line {
	return line(plotter.XYs{{X: x0, Y: v}, {X: x1, Y: v}}, c, 1, dashes)
}

// vline draws x = v across [y0, y1].
func vline(y0, y1, v float64, c color.Color, dashes []vg.Length) *plotter.Line {
	return line(plotter.XYs{{X: v, Y: y0}, {X: v, Y: y1}}, c, 1, dashes)
}

func logX(p *plot.Plot) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
}

func logY(p *plot.Plot) {
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
}

// logTicks labels 1-2-5 steps per decade with short SI numbers.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for _, m := range []float64{1, 2, 5} {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			switch {
			case m == 1, m == 5 && hi/lo < 1e3, m == 2 && hi/lo < 30:
				t.Label = si(v)
			}
			ticks = append(ticks, t)
		}
		for m := 3.0; m < 10; m++ {
			if v := m * d; v > lo && v < hi && m != 5 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	if len(ticks) < 2 { // a narrow range: fall back to linear ticks
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	return ticks
}

// si formats v compactly: 512, 4k, 128k, 1.5M, 0.2, 0.05.
func si(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.f {
			return trim(v/u.f) + u.s
		}
	}
	return trim(v)
}

// siSpace is si with a space before the prefix, for units: "717 G".
func siSpace(v float64) string {
	s := si(v)
	if n := len(s); n > 0 && strings.ContainsAny(s[n-1:], "kMGT") {
		return s[:n-1] + " " + s[n-1:]
	}
	return s + " "
}

func trim(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if strings.Contains(s, "e") {
		s = fmt.Sprintf("%g", v)
	}
	return s
}

// pow2Ticks labels powers of two on a log axis (contexts, batches, prompts).
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	n := 0
	for v := math.Pow(2, math.Ceil(math.Log2(lo))); v <= hi*(1+1e-9); v *= 2 {
		n++
	}
	step := max(1, (n+7)/8) // at most ~8 labels
	i := 0
	for v := math.Pow(2, math.Ceil(math.Log2(lo))); v <= hi*(1+1e-9); v *= 2 {
		t := plot.Tick{Value: v}
		if i%step == 0 {
			t.Label = pow2Label(v)
		}
		ticks = append(ticks, t)
		i++
	}
	return ticks
}

func pow2Label(v float64) string {
	switch {
	case v >= 1<<20 && math.Mod(v, 1<<20) == 0:
		return fmt.Sprintf("%.0fM", v/(1<<20))
	case v >= 1024 && math.Mod(v, 1024) == 0:
		return fmt.Sprintf("%.0fk", v/1024)
	}
	return fmt.Sprintf("%.0f", v)
}

func log2X(p *plot.Plot) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, pow2Ticks{}
}

// cleanTicks are gonum's default linear ticks labelled without trailing
// zeros (250, not 250.00).
// intTicks labels a linear axis of counts (turns): multiples of 1, 2 or 5
// × 10^k, at most about eight, and the first count.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Ceil(lo), math.Floor(hi)
	if !(hi >= lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step := 1.0
	for e := 0.0; (hi-lo)/step > 8; e++ {
		for _, m := range []float64{1, 2, 5} {
			if step = m * math.Pow(10, e); (hi-lo)/step <= 8 {
				break
			}
		}
	}
	ticks := []plot.Tick{{Value: lo, Label: si(lo)}}
	minor := step <= 10
	for v := lo + 1; v <= hi; v++ {
		if !minor { // jump to the next multiple of step
			v = math.Ceil(v/step) * step
			if v > hi {
				break
			}
		}
		t := plot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			t.Label = si(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

type cleanTicks struct{}

func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = trim(ticks[i].Value)
		}
	}
	return ticks
}

// wrap breaks each line of text that is wider than width after a comma or
// semicolon (or a space, if it must).
func wrap(st draw.TextStyle, text string, width vg.Length) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for st.Width(line) > width {
			cut := -1
			for i := range line {
				if i > 0 && (line[i-1] == ',' || line[i-1] == ';' || line[i-1] == ':') && line[i] == ' ' && st.Width(line[:i]) <= width {
					cut = i
				}
			}
			if cut < 0 {
				for i := range line {
					if line[i] == ' ' && st.Width(line[:i]) <= width {
						cut = i
					}
				}
			}
			if cut <= 0 {
				break
			}
			out = append(out, line[:cut])
			line = strings.TrimSpace(line[cut:])
		}
		out = append(out, line)
	}
	return out
}
