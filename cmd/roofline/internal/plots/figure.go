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

// Figure is one or more grids of panels stacked top to bottom (a stack
// of panels over one x axis, small multiples, a row of two panels above a
// wide one), a title, and one legend for all of them.
type Figure struct {
	Title  string
	Legend plot.Legend // the style; entries are laid out in columns
	// PreferredHeight, when set, is the height the figure needs to stay
	// legible (a plan with many rows, a grid of facets); Height uses it.
	PreferredHeight vg.Length
	// Data is every number drawn, in drawing order, so the figure can be
	// checked against the predictor and shipped with its data (CSV).
	Data    []Datum
	entries []entry
	grids   []*grid
	styles  map[string]int // series label → style index, shared by facets
	layers  map[*plot.Plot]*labelLayer
	// categories are nominal axes laid out to the width (Memory).
	categories []categoryAxis
	// texts are the panels' titles and x labels as built, before
	// fitPanelText wraps them to a width.
	texts map[*plot.Plot][2]string
	// areas are the data areas of the last draw, for the layout checks.
	areas []vg.Rectangle
}

// grid is a block of panels aligned together: rows × cols, nil for an
// empty cell.
type grid struct {
	cells [][]*plot.Plot
	// weight is the grid's share of the body's height against the other
	// grids' (default: its number of rows).
	weight vg.Length
}

func (g *grid) share() vg.Length {
	if g.weight > 0 {
		return g.weight
	}
	return vg.Length(len(g.cells))
}

// Panels lists every panel, row by row.
func (f *Figure) Panels() []*plot.Plot {
	var out []*plot.Plot
	for _, g := range f.grids {
		for _, row := range g.cells {
			for _, p := range row {
				if p != nil {
					out = append(out, p)
				}
			}
		}
	}
	return out
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
	label  string
	thumb  []plot.Thumbnailer
	series bool // a series (listed first), not a marker or reference
	// merged lists the series of a line drawn for several, "" for one.
	merged string
}

// newPanel is an empty panel in the house style.
func newPanel() *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Label.Font.Size = vg.Points(9)
	}
	p.Title.TextStyle.Font.Size = vg.Points(9.5)
	p.Title.Padding = vg.Points(3)
	p.X.Tick.Marker, p.Y.Tick.Marker = linTicks{}, linTicks{}
	p.Add(gridLines{plotter.NewGrid()})
	return p
}

// gridLines is gonum's grid, drawn also where an inner panel of small
// multiples leaves its tick labels to its neighbours (blankTicks): the
// grid draws at labelled ticks only.
type gridLines struct{ *plotter.Grid }

func (g gridLines) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.X.Tick.Marker, p.Y.Tick.Marker
	if b, ok := x.(blankTicks); ok {
		p.X.Tick.Marker = b.Ticker
	}
	if b, ok := y.(blankTicks); ok {
		p.Y.Tick.Marker = b.Ticker
	}
	g.Grid.Plot(c, p)
	p.X.Tick.Marker, p.Y.Tick.Marker = x, y
}

func newFigure(title string, panels int) *Figure {
	f := &Figure{Title: title, Legend: plot.NewLegend(), styles: map[string]int{}, layers: map[*plot.Plot]*labelLayer{}}
	f.Legend.Top, f.Legend.Left = true, true
	f.Legend.TextStyle.Font.Size = vg.Points(9)
	f.Legend.Padding = vg.Points(2)
	f.Legend.ThumbnailWidth = vg.Points(22)
	if panels > 0 {
		f.addGrid(panels, 1)
	}
	return f
}

// addGrid appends a grid of rows × cols new panels below the others.
func (f *Figure) addGrid(rows, cols int) *grid {
	g := &grid{cells: make([][]*plot.Plot, rows)}
	for i := range g.cells {
		g.cells[i] = make([]*plot.Plot, cols)
		for j := range g.cells[i] {
			g.cells[i][j] = newPanel()
		}
	}
	f.grids = append(f.grids, g)
	return g
}

// add puts an entry in the legend, once per label.
func (f *Figure) add(label string, th ...plot.Thumbnailer) {
	for _, e := range f.entries {
		if e.label == label {
			return
		}
	}
	f.entries = append(f.entries, entry{label: label, thumb: th})
}

// addSeries puts a series in the legend, once per label, after the other
// series and before markers and reference lines.
func (f *Figure) addSeries(label string, th ...plot.Thumbnailer) {
	at := 0
	for i, e := range f.entries {
		if e.label == label {
			return
		}
		if e.series {
			at = i + 1
		}
	}
	f.entries = append(f.entries[:at], append([]entry{{label: label, thumb: th, series: true}}, f.entries[at:]...)...)
}

// addMerged puts a line drawn for several series in the legend, once per
// set of series: "a = b" where they are equal in every panel, "a ≈ b"
// (within MergeTolerance) once they are not in one.
func (f *Figure) addMerged(names []string, equal bool, th ...plot.Thumbnailer) {
	key := strings.Join(names, "\x00")
	label := mergedLabel(names, map[bool]string{true: " = ", false: " ≈ "}[equal])
	for i, e := range f.entries {
		if e.merged == key {
			if !equal {
				f.entries[i].label = label
			}
			return
		}
	}
	f.addSeries(label, th...)
	for i := range f.entries {
		if f.entries[i].label == label {
			f.entries[i].merged = key
		}
	}
}

// mergedLabel names series drawn as one, joined by sep, the leading
// parts they share (" · ") written once: "jetson · gpu · q4_k_m ≈ q8_0"
// for "jetson · gpu · q4_k_m" and "jetson · gpu · q8_0".
func mergedLabel(names []string, sep string) string {
	parts := make([][]string, len(names))
	for i, n := range names {
		parts[i] = strings.Split(n, " · ")
	}
	common := 0
	for ; common < len(parts[0])-1; common++ {
		same := true
		for _, p := range parts[1:] {
			same = same && common < len(p)-1 && p[common] == parts[0][common]
		}
		if !same {
			break
		}
	}
	rest := make([]string, len(names))
	for i, p := range parts {
		rest[i] = strings.Join(p[common:], " · ")
	}
	return strings.Join(append(parts[0][:common:common], strings.Join(rest, sep)), " · ")
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

// MinPlotShare is the least share of a figure's height its plot areas
// keep: Height grows a figure, or moves its legend beside the panels,
// rather than let the legend and labels squash the data.
const MinPlotShare = 0.6

const pad = vg.Length(6) // points

// maxRowsBelow is the most legend rows kept below the panels when they
// squash them; a longer legend moves beside the panels if it fits.
const maxRowsBelow = 4

// minPanelWidth is the least width a panel keeps beside a legend, in
// points: room for its title and tick labels.
const minPanelWidth = vg.Length(130)

// maxCols is the most panels side by side in a grid of f.
func (f *Figure) maxCols() int {
	n := 1
	for _, g := range f.grids {
		n = max(n, len(g.cells[0]))
	}
	return n
}

// minDataHeight is the smallest data area a panel may have, in points.
const minDataHeight = vg.Length(30)

// Height is the height to draw f at, given its width and the height asked
// for by default: at least h and PreferredHeight, and tall enough that the
// plot areas keep MinPlotShare of it with the legend below, unless the
// legend fits beside the panels.
func (f *Figure) Height(w, h vg.Length) vg.Length {
	h = max(h, f.PreferredHeight)
	f.finish()
	lay := func(h vg.Length) (layout, error) { return f.layout(nullCanvas(w, h)) }
	if l, err := lay(h); err == nil && l.share >= MinPlotShare {
		return h
	}
	for range 40 {
		h *= 1.06
		if l, err := lay(h); err == nil && l.share >= MinPlotShare {
			break
		}
	}
	return vg.Length(math.Ceil(float64(h)))
}

// layout is where the parts of a figure go on a canvas.
type layout struct {
	titleLines []string
	titleTop   vg.Length
	legend     [][]entry // columns
	legendRect vg.Rectangle
	beside     bool
	body       draw.Canvas // the panels, their axes and y labels
	labelW     vg.Length
	cells      [][][]draw.Canvas // grid → row → col
	share      float64           // plot areas' share of the height
}

var titleStyle = draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(11)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}

// layout places the title, the legend and the grids: the legend below
// the panels when they keep MinPlotShare of the height, else beside them
// when it fits there.
func (f *Figure) layout(dc draw.Canvas) (layout, error) {
	var l layout
	if len(f.Panels()) == 0 {
		return l, fmt.Errorf("figure %q has no panels", f.Title)
	}
	width := dc.Max.X - dc.Min.X
	top := dc.Max.Y - pad
	l.titleTop = top
	l.titleLines = wrap(titleStyle, f.Title, width-2*pad)
	for _, line := range l.titleLines {
		top -= titleStyle.Height(line) + vg.Points(2)
	}
	body := dc
	body.Max.Y = top - pad
	body.Min.Y = dc.Min.Y + pad
	below := f.legendBelow(width - 2*pad)
	bh := f.legendHeight(below)
	// Below first; beside when below squashes the panels.
	try := func(beside bool) error {
		b := body
		l.beside = beside
		if beside {
			col := [][]entry{f.entries}
			lw := f.legendWidth(col[0])
			l.legend = col
			l.legendRect = vg.Rectangle{Min: vg.Point{X: dc.Max.X - pad - lw, Y: max(body.Min.Y, body.Max.Y-f.legendHeight(col))}, Max: vg.Point{X: dc.Max.X - pad, Y: body.Max.Y}}
			b.Max.X = l.legendRect.Min.X - pad
			if f.legendHeight(col) > body.Max.Y-body.Min.Y || b.Max.X-b.Min.X < max(0.55*width, vg.Length(f.maxCols())*minPanelWidth) {
				return fmt.Errorf("the legend does not fit beside the panels")
			}
		} else {
			l.legend = below
			if len(f.entries) > 0 {
				l.legendRect = vg.Rectangle{Min: vg.Point{X: dc.Min.X + pad, Y: dc.Min.Y + pad}, Max: vg.Point{X: dc.Max.X - pad, Y: dc.Min.Y + pad + bh}}
				b.Min.Y = l.legendRect.Max.Y + pad
			}
		}
		l.body = b
		f.setCategories(b.Max.X - b.Min.X)
		f.fitPanelText(b.Max.X - b.Min.X)
		return f.place(&l, dc.Max.Y-dc.Min.Y)
	}
	// A legend of a few rows stays below (Height grows the figure for
	// it); a long one moves beside the panels when that keeps more of the
	// height for data.
	err := try(false)
	if err != nil || (l.share < MinPlotShare && len(below) > 0 && len(below[0]) > maxRowsBelow) {
		saved := l
		if err2 := try(true); err2 != nil || (err == nil && l.share < saved.share) {
			l = saved
			if err != nil {
				return l, err
			}
		}
	}
	return l, nil
}

// place aligns each grid's panels in the body and measures the plot
// areas' share of the figure's height.
func (f *Figure) place(l *layout, height vg.Length) error {
	rows, weights := 0, vg.Length(0)
	for _, g := range f.grids {
		rows += len(g.cells)
		weights += g.share()
	}
	// gonum/plot places an axis label's glyph box at the arithmetic mean
	// of the axis range, which on a log axis lies near the end and pads
	// the panel by half the label's length; the figure draws the axis
	// labels itself, centred on each panel's data area.
	l.labelW = 0
	for _, p := range f.Panels() {
		if t := p.Y.Label.Text; t != "" {
			l.labelW = max(l.labelW, p.Y.Label.TextStyle.Height(t)+p.Y.Label.Padding)
		}
	}
	labels := f.hideYLabels()
	defer labels()
	b := l.body
	b.Min.X += l.labelW
	avail := b.Max.Y - b.Min.Y
	if avail < vg.Points(40*float64(rows)) {
		return fmt.Errorf("figure too small for %d rows of panels and %d legend entries: make it taller (--height)", rows, len(f.entries))
	}
	l.cells = make([][][]draw.Canvas, len(f.grids))
	y := b.Max.Y
	dataH := vg.Length(0)
	for gi, g := range f.grids {
		gc := b
		gc.Max.Y = y
		gc.Min.Y = y - avail*g.share()/weights
		y = gc.Min.Y
		cols := len(g.cells[0])
		tiles := draw.Tiles{Rows: len(g.cells), Cols: cols, PadY: vg.Points(10), PadX: vg.Points(10), PadLeft: pad, PadRight: vg.Points(12)}
		l.cells[gi] = plot.Align(g.cells, tiles, gc)
		// Data heights of the first column that has a panel in every row
		// (the tallest stack of data areas).
		best := vg.Length(0)
		for c := 0; c < cols; c++ {
			sum := vg.Length(0)
			for r, row := range g.cells {
				if p := row[c]; p != nil {
					da := p.DataCanvas(l.cells[gi][r][c])
					if da.Max.Y-da.Min.Y < minDataHeight || da.Max.X-da.Min.X < minDataHeight {
						return fmt.Errorf("figure too small for %d rows of panels and %d legend entries: make it taller (--height) or wider (--width)", rows, len(f.entries))
					}
					sum += da.Max.Y - da.Min.Y
				}
			}
			best = max(best, sum)
		}
		dataH += best
	}
	l.share = float64(dataH / height)
	return nil
}

// hideYLabels clears the panels' axis labels (the figure draws them) and
// returns the function that restores them. An x label leaves blank lines
// of no width, so the panel keeps the label's height below its axis.
func (f *Figure) hideYLabels() func() {
	ps := f.Panels()
	saved := make([][2]string, len(ps))
	for i, p := range ps {
		saved[i] = [2]string{p.Y.Label.Text, p.X.Label.Text}
		p.Y.Label.Text = ""
		if p.X.Label.Text != "" {
			p.X.Label.Text = strings.Repeat(" \n", strings.Count(p.X.Label.Text, "\n")) + " "
		}
	}
	return func() {
		for i, p := range ps {
			p.Y.Label.Text, p.X.Label.Text = saved[i][0], saved[i][1]
		}
	}
}

// legendBelow splits the entries into the most columns (up to three) that
// fit the width, filled column by column; an entry wider than the width
// goes on as many lines as it needs, in one column (a legend ran past the
// figure's right edge).
func (f *Figure) legendBelow(width vg.Length) [][]entry {
	n := len(f.entries)
	if n == 0 {
		return nil
	}
	if long := f.wrapEntries(width); len(long) > n {
		return [][]entry{long}
	}
	for c := min(3, n); c > 1; c-- {
		if n <= 3 && c > 1 {
			continue // three entries or fewer read best as one column
		}
		rows := (n + c - 1) / c
		var cols [][]entry
		total := vg.Length(0)
		for i := 0; i < n; i += rows {
			col := f.entries[i:min(n, i+rows)]
			cols = append(cols, col)
			total += f.legendWidth(col) + vg.Points(16)
		}
		if total <= width {
			return cols
		}
	}
	return [][]entry{f.entries}
}

// wrapEntries is the entries with each one wider than width broken at
// spaces into lines of their own, the thumbnail on the first.
func (f *Figure) wrapEntries(width vg.Length) []entry {
	var out []entry
	for _, e := range f.entries {
		rest := e.label
		for first := true; rest != ""; first = false {
			cut := len(rest)
			if f.legendWidth([]entry{{label: rest}}) > width {
				for i := range rest {
					if i > 0 && rest[i] == ' ' && f.legendWidth([]entry{{label: rest[:i]}}) <= width {
						cut = i
					}
				}
			}
			line := entry{label: rest[:cut], series: e.series, merged: e.merged}
			if first {
				line.thumb = e.thumb
			}
			out = append(out, line)
			rest = strings.TrimLeft(rest[cut:], " ")
		}
	}
	return out
}

func (f *Figure) legendWidth(col []entry) vg.Length {
	w := vg.Length(0)
	for _, e := range col {
		w = max(w, f.Legend.TextStyle.Width(e.label))
	}
	return f.Legend.ThumbnailWidth + f.Legend.TextStyle.Width(" ") + w
}

func (f *Figure) legendRowH() vg.Length {
	return f.Legend.TextStyle.Height("Mg") + f.Legend.Padding
}

func (f *Figure) legendHeight(cols [][]entry) vg.Length {
	if len(cols) == 0 || len(cols[0]) == 0 {
		return 0
	}
	return vg.Length(len(cols[0])) * f.legendRowH()
}

// finish adds what is drawn last: each panel's label layer, placed once
// the panel's scales are known.
func (f *Figure) finish() {
	for p, l := range f.layers {
		if !l.added {
			l.added = true
			p.Add(l)
		}
	}
}

func (f *Figure) draw(dc draw.Canvas) error {
	f.finish()
	l, err := f.layout(dc)
	if err != nil {
		return err
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := l.titleTop
	for _, line := range l.titleLines {
		dc.FillText(titleStyle, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, line)
		top -= titleStyle.Height(line) + vg.Points(2)
	}
	// Legend.
	x := l.legendRect.Min.X
	for _, col := range l.legend {
		lg := f.Legend
		for _, e := range col {
			lg.Add(e.label, e.thumb...)
		}
		lc := dc
		lc.Min.X, lc.Max.X = x, x+f.legendWidth(col)
		lc.Min.Y, lc.Max.Y = l.legendRect.Min.Y, l.legendRect.Max.Y
		lg.Draw(lc)
		x = lc.Max.X + vg.Points(16)
	}
	yLabels := make(map[*plot.Plot]string)
	xLabels := make(map[*plot.Plot]string)
	for _, p := range f.Panels() {
		yLabels[p], xLabels[p] = p.Y.Label.Text, p.X.Label.Text
	}
	restore := f.hideYLabels()
	defer restore()
	f.areas = f.areas[:0]
	for gi, g := range f.grids {
		for r, row := range g.cells {
			labelled := false
			for c, p := range row {
				if p == nil {
					continue
				}
				cv := l.cells[gi][r][c]
				cv.Canvas = dc.Canvas
				p.Draw(cv)
				da := p.DataCanvas(cv)
				f.areas = append(f.areas, da.Rectangle)
				if t := xLabels[p]; t != "" {
					st := p.X.Label.TextStyle
					dc.FillText(st, vg.Point{X: (da.Min.X + da.Max.X) / 2, Y: cv.Min.Y + st.FontExtents().Descent}, t)
				}
				if t := yLabels[p]; t != "" && !labelled {
					labelled = true
					st := p.Y.Label.TextStyle
					st.Rotation, st.XAlign, st.YAlign = math.Pi/2, draw.XCenter, draw.YTop
					dc.FillText(st, vg.Point{X: l.body.Min.X, Y: (da.Min.Y + da.Max.Y) / 2}, t)
				}
			}
		}
	}
	return nil
}

// palette is Okabe and Ito's colour-blind-safe set without its yellow,
// which vanishes on white. Past seven series the colours repeat with
// another line style (seriesDashes).
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{0, 0, 0, 255},       // black
}

// seriesDashes are the line styles of series 1–7, 8–14 and 15–21: solid,
// dash-dot and dash-dot-dot (ideal lines are plain dashes).
var seriesDashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2), vg.Points(1.5), vg.Points(2)}}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

func dashesOf(i int) []vg.Length { return seriesDashes[(i/len(palette))%len(seriesDashes)] }

// styleOf is the style index of a series label: the same label has the
// same colour and dashes in every panel and facet.
func (f *Figure) styleOf(label string) int {
	i, ok := f.styles[label]
	if !ok {
		i = len(f.styles)
		f.styles[label] = i
	}
	return i
}

var (
	grey    = color.RGBA{120, 120, 120, 255}
	dashed  = []vg.Length{vg.Points(5), vg.Points(3)}
	dotted  = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	targetC = color.RGBA{200, 0, 0, 255}
	// targetDashes are long dashes: a target is not an ideal line.
	targetDashes = []vg.Length{vg.Points(9), vg.Points(3)}
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

// wrap breaks each line of text that is wider than width after a
// semicolon, else a comma or colon (or a space, if it must).
func wrap(st draw.TextStyle, text string, width vg.Length) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for st.Width(line) > width {
			cut := -1
			for _, marks := range []string{";", ",:"} {
				for i := range line {
					if i > 0 && strings.IndexByte(marks, line[i-1]) >= 0 && line[i] == ' ' && st.Width(line[:i]) <= width {
						cut = i
					}
				}
				if cut > 0 {
					break
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

// categoryAxis is a panel's nominal x axis (one bar per configuration),
// whose labels are set out when the width is known.
type categoryAxis struct {
	p     *plot.Plot
	names []string
	cols  int // panels side by side sharing the width
	// bars are drawn in the categories' slots, sized to them.
	bars []*plotter.BarChart
}

// setCategories fits each category axis's labels to the width of the
// body: on one line, else wrapped at " · ", else rotated 45°, else 90°.
func (f *Figure) setCategories(width vg.Length) {
	for _, ca := range f.categories {
		p := ca.p
		st := p.X.Tick.Label
		slot := (width/vg.Length(ca.cols) - vg.Points(60)) / vg.Length(len(ca.names))
		// Bars fill most of their slot, never touching their neighbours.
		for _, b := range ca.bars {
			b.Width = min(vg.Points(40), 0.7*slot)
		}
		widest := func(names []string) vg.Length {
			w := vg.Length(0)
			for _, n := range names {
				for _, line := range strings.Split(n, "\n") {
					w = max(w, st.Width(line))
				}
			}
			return w
		}
		labels := ca.names
		rot := 0.0
		if widest(labels) > 0.92*slot {
			wrapped := make([]string, len(labels))
			for i, n := range labels {
				wrapped[i] = strings.ReplaceAll(n, " · ", "\n")
			}
			switch {
			case widest(wrapped) <= 0.92*slot:
				labels = wrapped
			case slot*0.7 >= st.Height("Mg")*1.1:
				rot = math.Pi / 4
			default:
				rot = math.Pi / 2
			}
		}
		ticks := make([]plot.Tick, len(labels))
		for i, n := range labels {
			ticks[i] = plot.Tick{Value: float64(i), Label: n}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Tick.Label.Rotation = rot
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
		if rot != 0 {
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		}
	}
}

// fitPanelText wraps each panel's title and x-axis label to the width of
// its column, so neighbouring small multiples do not write over each
// other.
func (f *Figure) fitPanelText(width vg.Length) {
	if f.texts == nil {
		f.texts = map[*plot.Plot][2]string{}
		for _, p := range f.Panels() {
			f.texts[p] = [2]string{p.Title.Text, p.X.Label.Text}
		}
	}
	for _, g := range f.grids {
		cols := len(g.cells[0])
		w := width/vg.Length(cols) - vg.Points(40)
		for _, row := range g.cells {
			for _, p := range row {
				if p == nil {
					continue
				}
				t := f.texts[p]
				p.Title.Text = strings.Join(wrap(p.Title.TextStyle, t[0], w), "\n")
				p.X.Label.Text = strings.Join(wrap(p.X.Label.TextStyle, t[1], w), "\n")
			}
		}
	}
}
