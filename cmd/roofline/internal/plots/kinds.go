package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Kinds lists the figures roofline draws, in documentation order.
var Kinds = []string{"roofline", "tpot-context", "ttft-prompt", "batch", "memory", "compare", "plan", "chat", "concurrency", "speculative", "ops"}

// Batch draws aggregate throughput (top) and per-sequence TPOT (bottom)
// against batch size, both on y axes of the scale given; ▲ marks where
// decode turns compute-bound and × where memory runs out.
func Batch(title string, throughput, tpot []Curve, target float64, scale YScale) (*Figure, error) {
	return Stacked(title, "concurrent sequences (batch)", true,
		Panel{YLabel: "tokens/s, all", Curves: throughput, Scale: scale},
		Panel{YLabel: "TPOT (ms)", Curves: tpot, Target: target, TargetLabel: fmt.Sprintf("TPOT target %s ms", trim(target)), Scale: scale})
}

// Roof is one device engine's roofline at one precision.
type Roof struct {
	Label     string
	Peak      float64 // FLOP/s
	Bandwidth float64 // B/s
	// Facet, as Curve.Facet: roofs with the same Facet share a panel.
	Facet string
}

// OpPoint is an operating point on a roofline chart.
type OpPoint struct {
	Roof      int // index into the roofs
	Intensity float64
	FLOPPerS  float64
	Label     string // what the point is: pp512, b16, MBU 71%
	// Prefill marks a prefill point; Batch is a decode point's batch.
	// Each kind of point has its own marker (RooflineKinds).
	Prefill bool
	Batch   int
	// Series names the configuration when several share a roof (the
	// model and format): the points are then coloured by series, their
	// kind told by the marker, and only measured points labelled.
	Series   string
	Measured bool
}

// MaxLabelledPoints is the most predicted points a roofline panel labels
// one by one (one configuration: pp512, b1, b16, b256); past it the
// marker and the legend say what each point is, and only the measured
// points, the few that matter, carry a label.
const MaxLabelledPoints = 6

// maxLabelledMeasured is the most measured points a panel labels.
const maxLabelledMeasured = 8

// diamond is a filled diamond marker (gonum/plot has none).
type diamond struct{}

func (diamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * 1.25
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// decodeGlyphs mark decode points by batch, smallest first; prefill
// points are triangles. Measured points are open.
var decodeGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, diamond{}, draw.PlusGlyph{}, draw.CrossGlyph{}}

// Roofline draws attainable FLOP/s against arithmetic intensity (log-log):
// each roof's bandwidth slope and compute ceiling, its ridge point, and
// operating points (predicted: filled, measured: open), each kind with
// its marker. Roofs with different facets, or more than MaxSeries roofs,
// are drawn as small multiples on shared axes. When points name their
// series, they take the series' colours and the roofs are black, told
// apart by line style and a label on each ceiling.
func Roofline(title string, roofs []Roof, points []OpPoint) (*Figure, error) {
	if len(roofs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no device")
	}
	cs := make([]Curve, len(roofs))
	for i, r := range roofs {
		cs[i] = Curve{Label: r.Label, Facet: r.Facet}
	}
	names, of := facets(cs)
	f := newFigure(title, 0)
	cols := facetCols(len(names))
	g := f.addGrid((len(names)+cols-1)/cols, cols)
	panels := make([]*plot.Plot, len(names))
	for i := range names {
		panels[i] = g.cells[i/cols][i%cols]
	}
	for i := len(names); i < len(g.cells)*cols; i++ {
		g.cells[i/cols][i%cols] = nil
	}
	const xName, yName = "arithmetic intensity (FLOP/B)", "attainable (TFLOP/s)"
	lo, hi := 0.5, 0.0
	for _, r := range roofs {
		hi = math.Max(hi, 4*r.Peak/r.Bandwidth)
	}
	bySeries := false
	var batches []int
	for _, pt := range points {
		if pt.Roof < 0 || pt.Roof >= len(roofs) {
			return nil, fmt.Errorf("operating point %q refers to no device", pt.Label)
		}
		lo, hi = math.Min(lo, pt.Intensity/2), math.Max(hi, pt.Intensity*2)
		bySeries = bySeries || pt.Series != ""
		if !pt.Prefill && !pt.Measured && !slices.Contains(batches, pt.Batch) {
			batches = append(batches, pt.Batch)
		}
	}
	slices.Sort(batches)
	const tera = 1e12
	// Roofs a reader could not tell apart (the same bandwidth and peak in
	// one panel) are drawn once and named together.
	drawnAs := make([]int, len(roofs))
	for i, r := range roofs {
		drawnAs[i] = i
		for j := 0; j < i; j++ {
			if drawnAs[j] == j && of[j] == of[i] && sameValues([]float64{r.Peak, r.Bandwidth}, []float64{roofs[j].Peak, roofs[j].Bandwidth}) {
				drawnAs[i] = j
				break
			}
		}
	}
	inPanel := make([]int, len(names))  // roofs drawn in each panel so far
	bwOf := make([]float64, len(names)) // the bandwidth labelled in each panel
	for i, r := range roofs {
		ridge := r.Peak / r.Bandwidth
		f.record(r.Label, "ridge (FLOP/B) at peak", xName, ridge, yName, r.Peak/tera, "")
		f.record(r.Label, "bandwidth (B/s)", "", math.NaN(), "B/s", r.Bandwidth, "")
		if drawnAs[i] != i {
			continue
		}
		p := panels[of[i]]
		label := r.Label
		for j := i + 1; j < len(roofs); j++ {
			if drawnAs[j] == i {
				label += " = " + roofs[j].Label
			}
		}
		pts, err := xys(r.Label, []float64{lo, ridge, hi}, []float64{r.Bandwidth * lo / tera, r.Peak / tera, r.Peak / tera}, true, true)
		if err != nil {
			return nil, err
		}
		if bySeries {
			// The colours are the series'; a roof is black, in the style of
			// its place in the panel, and says on its ceiling its precision
			// and peak, and on its slope the bandwidth (once per panel).
			k := inPanel[of[i]]
			l := line(pts, color.Black, seriesWidth, roofDashes[k%len(roofDashes)])
			p.Add(l, vline(r.Bandwidth*lo/tera, r.Peak/tera, ridge, color.Black, dotted))
			_, prec := cutLast(r.Label, " ")
			f.label(p, math.Sqrt(ridge*hi), r.Peak/tera, prec+" "+siSpace(r.Peak)+"FLOP/s", north, vg.Points(7))
			if k == 0 || roofs[i].Bandwidth != bwOf[of[i]] {
				x := math.Sqrt(lo * ridge)
				f.label(p, x, r.Bandwidth*x/tera, siSpace(r.Bandwidth)+"B/s", northWest, vg.Points(7))
				bwOf[of[i]] = r.Bandwidth
			}
			inPanel[of[i]]++
			f.add("roof (dotted: ridge)", line(plotter.XYs{{}, {X: 1}}, color.Black, seriesWidth, nil))
			continue
		}
		st := f.styleOf(r.Label)
		col, dashes := colorOf(st), dashesOf(st)
		l := line(pts, col, seriesWidth, dashes)
		p.Add(l)
		f.addSeries(fmt.Sprintf("%s: %sB/s, %sFLOP/s, ridge %.0f FLOP/B", label, siSpace(r.Bandwidth), siSpace(r.Peak), ridge), l)
		p.Add(vline(r.Bandwidth*lo/tera, r.Peak/tera, ridge, col, dotted))
	}
	glyphOf := func(pt OpPoint) draw.GlyphDrawer {
		switch {
		case pt.Prefill && pt.Measured:
			return draw.TriangleGlyph{}
		case pt.Prefill:
			return draw.PyramidGlyph{}
		case pt.Measured:
			return draw.RingGlyph{}
		}
		return decodeGlyphs[min(slices.Index(batches, pt.Batch), len(decodeGlyphs)-1)]
	}
	predicted, measured := make([]int, len(names)), make([]int, len(names))
	for _, pt := range points {
		if pt.Measured {
			measured[of[pt.Roof]]++
		} else {
			predicted[of[pt.Roof]]++
		}
	}
	marks := map[*plot.Plot]plotter.XYs{}
	for _, pt := range points {
		fi := of[pt.Roof]
		p := panels[fi]
		one, err := xys(pt.Label, []float64{pt.Intensity}, []float64{pt.FLOPPerS / tera}, true, true)
		if err != nil {
			return nil, err
		}
		name, q := roofs[pt.Roof].Label, "predicted"
		if pt.Series != "" {
			name = pt.Series + " on " + name
		}
		if pt.Measured {
			q = "measured"
		}
		f.record(name, q, xName, pt.Intensity, yName, pt.FLOPPerS/tera, pt.Label)
		var col color.Color
		if bySeries {
			col = colorOf(f.styleOf(pt.Series))
			f.addSeries(pt.Series, scatter(plotter.XYs{{}}, col, draw.CircleGlyph{}, 3))
		} else {
			col = colorOf(f.styleOf(roofs[drawnAs[pt.Roof]].Label))
		}
		p.Add(scatter(one, col, glyphOf(pt), 3))
		marks[p] = append(marks[p], one[0])
		switch {
		case pt.Measured && measured[fi] <= maxLabelledMeasured:
			f.label(p, one[0].X, one[0].Y, pt.Label, northWest, vg.Points(7))
		case !pt.Measured && predicted[fi] <= MaxLabelledPoints:
			f.label(p, one[0].X, one[0].Y, pt.Label, southEast, vg.Points(7))
		}
	}
	for p, m := range marks {
		f.mark(p, m)
	}
	// What each marker is.
	kinds := map[string]bool{}
	for _, pt := range points {
		if pt.Measured || kinds[pt.Label] {
			continue
		}
		kinds[pt.Label] = true
		what := fmt.Sprintf("%s: decode, batch %d", pt.Label, pt.Batch)
		if pt.Prefill {
			what = pt.Label + ": prefill"
		}
		f.add(what, scatter(plotter.XYs{{}}, grey, glyphOf(pt), 3))
	}
	if measuredAny(points) {
		f.add("measured (open): MFU, MBU", scatter(plotter.XYs{{}}, grey, draw.RingGlyph{}, 3))
	}
	for i, p := range panels {
		logX(p)
		logY(p)
		p.X.Min, p.X.Max = lo, hi
		if len(names) > 1 {
			p.Title.Text = names[i]
		}
		for _, r := range roofs {
			p.Y.Max = math.Max(p.Y.Max, 2*r.Peak/tera) // room above the roof for labels
		}
	}
	gridLabels(g, xName, yName, share(panels))
	if len(names) > 1 {
		f.PreferredHeight = vg.Centimeter * vg.Length(3+5*float64(len(g.cells)))
	}
	return f, nil
}

// roofDashes tell the roofs of one panel apart when they are all black.
var roofDashes = [][]vg.Length{nil, {vg.Points(7), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

// cutLast splits s around its last sep.
func cutLast(s, sep string) (before, after string) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):]
	}
	return "", s
}

// gridLabels names the axes of a grid of small multiples on shared axes:
// x below the bottom panel of each column, y left of each row; inner
// panels keep their ticks but not their tick labels.
func gridLabels(g *grid, xName, yName string, sharedY bool) {
	for r, row := range g.cells {
		for c, p := range row {
			if p == nil {
				continue
			}
			if c == 0 {
				p.Y.Label.Text = yName
			} else if sharedY {
				p.Y.Tick.Marker = blankTicks{p.Y.Tick.Marker}
			}
			if r+1 == len(g.cells) || g.cells[r+1][c] == nil {
				p.X.Label.Text = xName
			} else {
				p.X.Tick.Marker = blankTicks{p.X.Tick.Marker}
			}
		}
	}
}

func measuredAny(pts []OpPoint) bool {
	for _, p := range pts {
		if p.Measured {
			return true
		}
	}
	return false
}

// MemoryBar is one configuration's memory need, in bytes.
type MemoryBar struct {
	Label                              string
	Weights, KV, Activations, Overhead float64
	Usable                             float64
	// Facet, as Curve.Facet: bars with the same Facet share a panel.
	Facet string
}

// MaxBars is the most bars one memory panel draws; more become facets.
const MaxBars = 16

// Memory draws stacked bars of weights, KV cache, activations and runtime
// overhead in GiB, each with its usable-memory line.
func Memory(title string, bars []MemoryBar) (*Figure, error) {
	if len(bars) == 0 {
		return nil, fmt.Errorf("nothing to plot: no configuration")
	}
	const gib = 1 << 30
	const yName = "memory (GiB)"
	parts := []struct {
		name string
		get  func(MemoryBar) float64
	}{
		{"weights", func(b MemoryBar) float64 { return b.Weights }},
		{"KV cache", func(b MemoryBar) float64 { return b.KV }},
		{"activations", func(b MemoryBar) float64 { return b.Activations }},
		{"runtime overhead", func(b MemoryBar) float64 { return b.Overhead }},
	}
	maxY := 0.0
	for _, b := range bars {
		for _, part := range parts {
			if v := part.get(b); math.IsNaN(v) || v < 0 {
				return nil, fmt.Errorf("%s: %s is %v", b.Label, part.name, v)
			}
		}
		maxY = math.Max(maxY, math.Max((b.Weights+b.KV+b.Activations+b.Overhead)/gib, b.Usable/gib))
	}
	bars = groupBars(bars)
	cs := make([]Curve, len(bars))
	for i, b := range bars {
		cs[i] = Curve{Label: b.Label, Facet: b.Facet}
	}
	names, of := facetsOf(cs, MaxBars)
	f := newFigure(title, 0)
	cols := facetCols(len(names))
	g := f.addGrid((len(names)+cols-1)/cols, cols)
	for i := len(names); i < len(g.cells)*cols; i++ {
		g.cells[i/cols][i%cols] = nil
	}
	for fi := range names {
		p := g.cells[fi/cols][fi%cols]
		if len(names) > 1 {
			p.Title.Text = names[fi]
		}
		var bs []MemoryBar
		for i, b := range bars {
			if of[i] == fi {
				bs = append(bs, b)
			}
		}
		width := vg.Points(math.Min(40, 300/float64(len(bs)*cols))) // until the layout knows the slot
		var below *plotter.BarChart
		var charts []*plotter.BarChart
		for i, part := range parts {
			vals := make(plotter.Values, len(bs))
			for j, b := range bs {
				vals[j] = part.get(b) / gib
				f.record(b.Label, part.name, "configuration", float64(j), yName, vals[j], "")
			}
			bc, err := plotter.NewBarChart(vals, width)
			if err != nil {
				return nil, err
			}
			bc.Color = colorOf(i)
			bc.LineStyle.Width = 0
			if below != nil {
				bc.StackOn(below)
			}
			below = bc
			charts = append(charts, bc)
			p.Add(bc)
			f.addSeries(part.name, bc)
		}
		names := make([]string, len(bs))
		for j, b := range bs {
			total := (b.Weights + b.KV + b.Activations + b.Overhead) / gib
			f.record(b.Label, "total", "configuration", float64(j), yName, total, "")
			f.record(b.Label, "usable memory", "configuration", float64(j), yName, b.Usable/gib, "")
			if b.Usable > 0 {
				p.Add(hline(float64(j)-0.45, float64(j)+0.45, b.Usable/gib, targetC, nil))
			}
			y := total
			if u := b.Usable / gib; u >= y && u-y < 0.07*maxY {
				y = u // above the usable line rather than through it
			}
			text := fmt.Sprintf("%.2f GiB", total)
			if len(bs)*cols > 8 {
				text = fmt.Sprintf("%.1f", total) // the axis says GiB
			}
			f.label(p, float64(j), y, text, north, vg.Points(8))
			names[j] = b.Label
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(bs))-0.4
		p.X.Tick.Label.Font.Size = vg.Points(8)
		p.Y.Min, p.Y.Max = 0, maxY*1.1
		f.categories = append(f.categories, categoryAxis{p: p, names: names, cols: cols, bars: charts})
	}
	f.add("usable memory", hline(0, 1, 0, targetC, nil))
	gridLabels(g, "", yName, true)
	if len(names) > 1 {
		f.PreferredHeight = vg.Centimeter * vg.Length(3+5.5*float64(len(g.cells)))
	}
	return f, nil
}

// barLabelWidth is the widest a bar's label may be, in points, at the
// default width of 16 cm: its slot less a gap.
func barLabelWidth(n int) vg.Length {
	return 0.92 * (16*vg.Centimeter - vg.Points(60)) / vg.Length(n)
}

// groupBars puts bars that share no panel, whose labels name several
// things ("jetson-orin-nano-super-8gb · gpu · llama-3.2-1b") and would
// not fit under them even wrapped, into panels by the first thing
// named: one panel per device, the bars labelled by the rest. Parts of
// the labels that one panel settles (the device's engine) go into its
// title. Labels set at an angle would push the bars aside and leave a
// third of the panel empty.
func groupBars(bars []MemoryBar) []MemoryBar {
	parts := make([][]string, len(bars))
	widest := vg.Length(0)
	st := newPanel().X.Tick.Label
	st.Font.Size = vg.Points(8)
	for i, b := range bars {
		if b.Facet != "" {
			return bars
		}
		parts[i] = strings.Split(b.Label, " · ")
		if len(parts[i]) < 2 || len(parts[i]) != len(parts[0]) {
			return bars
		}
		for _, p := range parts[i] {
			widest = max(widest, st.Width(p))
		}
	}
	if widest <= barLabelWidth(len(bars)) {
		return bars
	}
	// Which parts each panel settles.
	settled := make([]bool, len(parts[0]))
	for j := 1; j < len(settled); j++ {
		settled[j] = true
		first := map[string]string{}
		for _, p := range parts {
			if v, ok := first[p[0]]; ok && v != p[j] {
				settled[j] = false
			}
			first[p[0]] = p[j]
		}
	}
	out := make([]MemoryBar, len(bars))
	groups := map[string]bool{}
	for i, b := range bars {
		facet, label := []string{parts[i][0]}, []string(nil)
		for j := 1; j < len(parts[i]); j++ {
			if settled[j] {
				facet = append(facet, parts[i][j])
			} else {
				label = append(label, parts[i][j])
			}
		}
		if len(label) == 0 {
			return bars // one bar a panel: nothing gained
		}
		b.Facet, b.Label = strings.Join(facet, " · "), strings.Join(label, " · ")
		groups[b.Facet] = true
		out[i] = b
	}
	if len(groups) < 2 || len(groups) > MaxFacets {
		return bars
	}
	return out
}

// Comparison is one measured run against its prediction.
type Comparison struct {
	Group int // colour: one per device (or family)
	// Label names the test as a reader knows it: pp512, tg128 @ d4096,
	// with the model and format when they differ between runs.
	Label     string
	Prefill   bool    // a prefill (prompt) test; else decode
	Measured  float64 // tokens/s
	Predicted float64 // tokens/s
	// Utilization is the share of the physical limit the run achieved:
	// MFU for prefill, MBU for decode; 0 when unknown.
	Utilization float64
}

// MaxLabelledRuns is the most runs a comparison names one by one; more
// are summarised per group.
const MaxLabelledRuns = 24

// Compare draws predicted against measured tokens/s (log-log, y = x and
// a ±20 % band) in a prefill and a decode panel, and below them each
// run's utilisation of its limit (MFU for prefill, MBU for decode) on one
// axis: one row per test when there are few runs, one row per group when
// there are many.
func Compare(title string, groups []string, runs []Comparison) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no compared run")
	}
	var phases [2][]Comparison // prefill, decode
	withU := 0
	for _, r := range runs {
		if !(r.Measured > 0) || !(r.Predicted > 0) {
			return nil, fmt.Errorf("%s: measured %v and predicted %v tokens/s must be positive", r.Label, r.Measured, r.Predicted)
		}
		if r.Group < 0 || r.Group >= len(groups) {
			return nil, fmt.Errorf("%s: group %d of %d", r.Label, r.Group, len(groups))
		}
		if math.IsNaN(r.Utilization) || r.Utilization < 0 {
			return nil, fmt.Errorf("%s: utilisation %v", r.Label, r.Utilization)
		}
		ph := 1
		if r.Prefill {
			ph = 0
		}
		phases[ph] = append(phases[ph], r)
		if r.Utilization > 0 {
			withU++
		}
	}
	f := newFigure(title, 0)
	var names []string
	var sets [][]Comparison
	for i, n := range []string{"prefill (prompt tokens/s)", "decode (generated tokens/s)"} {
		if len(phases[i]) > 0 {
			names, sets = append(names, n), append(sets, phases[i])
		}
	}
	top := f.addGrid(1, len(sets))
	for i, set := range sets {
		p := top.cells[0][i]
		p.Title.Text = names[i]
		logX(p)
		logY(p)
		p.X.Label.Text = "measured (tokens/s)"
		if i == 0 {
			p.Y.Label.Text = "predicted (tokens/s)"
		}
		lo, hi := math.Inf(1), 0.0
		for _, r := range set {
			lo = math.Min(lo, math.Min(r.Measured, r.Predicted))
			hi = math.Max(hi, math.Max(r.Measured, r.Predicted))
		}
		lo, hi = lo/1.5, hi*1.5
		// The axes run from lo to hi × 1.2 (the band): beyond float64 the
		// lines cannot be drawn.
		if !(lo > 0) || math.IsInf(hi*1.2, 0) {
			return nil, fmt.Errorf("tokens/s from %.3g to %.3g cannot be drawn on an axis", lo*1.5, hi/1.5)
		}
		diag := line(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}, grey, 1, nil)
		band := line(plotter.XYs{{X: lo, Y: lo * 1.2}, {X: hi, Y: hi * 1.2}}, grey, 0.8, dashed)
		p.Add(diag, band, line(plotter.XYs{{X: lo, Y: lo * 0.8}, {X: hi, Y: hi * 0.8}}, grey, 0.8, dashed))
		f.add("prediction = measurement", diag)
		f.add("±20 %", band)
		var marks plotter.XYs
		for g, name := range groups {
			var pts plotter.XYs
			for _, r := range set {
				if r.Group != g {
					continue
				}
				pt := plotter.XY{X: r.Measured, Y: r.Predicted}
				pts = append(pts, pt)
				f.record(name, map[bool]string{true: "prefill run", false: "decode run"}[r.Prefill], "measured (tokens/s)", r.Measured, "predicted (tokens/s)", r.Predicted, r.Label)
				if len(set) <= 12 {
					f.label(p, pt.X, pt.Y, r.Label, southEast, vg.Points(7))
				}
			}
			if len(pts) == 0 {
				continue
			}
			p.Add(scatter(pts, colorOf(g), phaseGlyph(set[0].Prefill), 3))
			marks = append(marks, pts...)
		}
		f.mark(p, marks)
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	}
	for g, name := range groups {
		f.addSeries(name, scatter(plotter.XYs{{}}, colorOf(g), draw.BoxGlyph{}, 3))
	}
	if len(phases[0]) > 0 {
		f.add("prefill test (utilisation: MFU)", scatter(plotter.XYs{{}}, grey, phaseGlyph(true), 3))
	}
	if len(phases[1]) > 0 {
		f.add("decode test (utilisation: MBU)", scatter(plotter.XYs{{}}, grey, phaseGlyph(false), 3))
	}
	if withU == 0 {
		return f, nil
	}
	// Utilisation: a dot per run on one 0–100 % axis, the limit at 100 %.
	q := f.addGrid(1, 1).cells[0][0]
	q.X.Label.Text = "utilisation of the limit (%): MFU for prefill, MBU for decode"
	var rows []string
	byRun := withU <= MaxLabelledRuns
	rowOf := map[int]int{}
	if !byRun {
		for g, name := range groups {
			for _, r := range runs {
				if r.Group == g && r.Utilization > 0 {
					rowOf[g] = len(rows)
					rows = append(rows, name)
					break
				}
			}
		}
	}
	var pts [2][]plotter.XYs // phase → group → points
	for i := range pts {
		pts[i] = make([]plotter.XYs, len(groups))
	}
	n := 0
	for _, r := range runs {
		if r.Utilization <= 0 {
			continue
		}
		y := 0.0
		if byRun {
			y = float64(len(rows))
			rows = append(rows, r.Label)
		} else {
			// Spread a group's runs over its row so they do not hide
			// each other: a fixed pattern, the same for every render.
			y = float64(rowOf[r.Group]) + 0.3*(math.Mod(float64(n)*0.618034, 1)-0.5)
			n++
		}
		ph := 1
		if r.Prefill {
			ph = 0
		}
		pts[ph][r.Group] = append(pts[ph][r.Group], plotter.XY{X: 100 * r.Utilization, Y: y})
		f.record(groups[r.Group], map[bool]string{true: "MFU", false: "MBU"}[r.Prefill], q.X.Label.Text, 100*r.Utilization, "run", y, r.Label)
	}
	// The first row at the top.
	flip := func(y float64) float64 { return float64(len(rows)-1) - y }
	for ph := range pts {
		for g, ps := range pts[ph] {
			if len(ps) == 0 {
				continue
			}
			for i := range ps {
				ps[i].Y = flip(ps[i].Y)
			}
			q.Add(scatter(ps, colorOf(g), phaseGlyph(ph == 0), 3))
		}
	}
	reversed := make([]string, len(rows))
	for i, r := range rows {
		reversed[len(rows)-1-i] = r
	}
	q.NominalY(reversed...)
	q.Y.Tick.Label.Font.Size = vg.Points(8)
	q.Y.Min, q.Y.Max = -0.6, float64(len(rows))-0.4
	// A run past the limit widens the axis rather than falling off it:
	// compare calls it FASTER THAN THE LIMIT, and so does the legend.
	most, past := 0.0, false
	for _, r := range runs {
		most = math.Max(most, 100*r.Utilization)
		past = past || r.Utilization > 1
	}
	q.X.Min, q.X.Max = 0, math.Max(105, 1.05*most)
	q.X.Tick.Marker = linTicks{}
	limit := vline(q.Y.Min, q.Y.Max, 100, targetC, dotted)
	q.Add(limit)
	legend := "the limit: datasheet bandwidth or dense peak"
	if past {
		legend += " (runs past it are faster than the limit: check the device, model or file)"
	}
	f.add(legend, limit)
	f.PreferredHeight = vg.Centimeter * vg.Length(12+0.45*float64(len(rows)))
	// The top panels keep a fixed share; the rows take the rest.
	f.grids[0].weight = 7
	f.grids[1].weight = vg.Length(max(3, 0.45*float64(len(rows))+1.5))
	return f, nil
}

// phaseGlyph tells prefill (triangle) from decode (circle) runs.
func phaseGlyph(prefill bool) draw.GlyphDrawer {
	if prefill {
		return draw.PyramidGlyph{}
	}
	return draw.CircleGlyph{}
}

// PlanCell is one evaluated configuration of a plan.
type PlanCell struct {
	Row     int // index into the row labels
	Context int
	// Verdict is "meets" (the slow end of the predictions' interval
	// meets every target), "uncertain" (the interval straddles one) or
	// "fails"; Limit is the first constraint the prediction fails, "" when
	// none.
	Verdict, Limit string
}

// Plan draws a plan's search grid: rows (device · model · weights) against
// context, each cell marked by its verdict — meets, uncertain — or, when
// it fails, by the first constraint it fails.
func Plan(title string, rows []string, cells []PlanCell) (*Figure, error) {
	if len(cells) == 0 || len(rows) == 0 {
		return nil, fmt.Errorf("nothing to plot: the plan evaluated nothing")
	}
	f := newFigure(title, 1)
	p := f.grids[0].cells[0][0]
	log2X(p)
	p.X.Label.Text = "context per sequence (tokens)"
	// The first row at the top.
	y := func(row int) float64 { return float64(len(rows) - 1 - row) }
	kinds := map[int]plotter.XYs{}
	for _, c := range cells {
		if c.Row < 0 || c.Row >= len(rows) || c.Context <= 0 {
			return nil, fmt.Errorf("plan cell out of range (row %d, context %d)", c.Row, c.Context)
		}
		k := planClass(c)
		kinds[k] = append(kinds[k], plotter.XY{X: float64(c.Context), Y: y(c.Row)})
		f.record(rows[c.Row], planClasses[k].name, p.X.Label.Text, float64(c.Context), "row", float64(c.Row), "")
	}
	for k, st := range planClasses {
		if xys, ok := kinds[k]; ok {
			s := scatter(xys, st.color, st.shape, 4)
			p.Add(s)
			f.add(st.name, s)
		}
	}
	reversed := make([]string, len(rows))
	for i, r := range rows {
		reversed[len(rows)-1-i] = r
	}
	f.PreferredHeight = vg.Centimeter * vg.Length(6+0.5*float64(len(rows)))
	p.NominalY(reversed...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	return f, nil
}

// planClasses mark a plan cell, in legend order: its verdict when it
// meets or is uncertain, else the first constraint it fails, in the order
// sim checks them (memory, TTFT, TPOT, throughput), else the interval's
// fast end.
var planClasses = []struct {
	name  string
	color color.Color
	shape draw.GlyphDrawer
}{
	{"meets every target", palette[2], draw.CircleGlyph{}},
	{"uncertain: the interval straddles a target", palette[0], draw.RingGlyph{}},
	{"fails first: memory", palette[1], draw.CrossGlyph{}},
	{"fails first: ttft", palette[4], draw.TriangleGlyph{}},
	{"fails first: tpot", palette[3], draw.SquareGlyph{}},
	{"fails first: throughput", palette[5], draw.PlusGlyph{}},
	{"fails at the interval's fast end", palette[6], draw.BoxGlyph{}},
}

// planClass is the index of c's mark in planClasses: its verdict, as the
// plan's text words it, before its limit.
func planClass(c PlanCell) int {
	switch {
	case c.Verdict == "meets" || c.Verdict == "" && c.Limit == "":
		return 0
	case c.Verdict == "uncertain":
		return 1
	}
	switch c.Limit {
	case "":
		return 6
	case "memory":
		return 2
	case "ttft":
		return 3
	case "tpot":
		return 4
	}
	return 5
}
