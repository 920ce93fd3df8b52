package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Kinds lists the figures roofline draws, in documentation order.
var Kinds = []string{"roofline", "tpot-context", "ttft-prompt", "batch", "memory", "compare", "plan", "chat", "concurrency", "speculative"}

// Point is one measured or predicted operating point.
type Point struct {
	X, Y  float64
	Label string // short annotation, e.g. "MBU 71%"
}

// Curve is one configuration's predicted latency or rate against a sweep,
// expected and at the physical limit (ideal), with measured points.
type Curve struct {
	Label    string
	X        []float64
	Expected []float64
	Ideal    []float64 // optional
	Measured []Point
	// Switch, when > 0, is the x where the bound changes (prefill turning
	// compute-bound, decode turning compute-bound); SwitchLabel says which.
	Switch      float64
	SwitchLabel string
	// Limit, when > 0, is the x where memory runs out.
	Limit float64
}

// Latency draws expected (solid) and ideal (dashed) curves against a
// power-of-two sweep on a log x axis, a target as a red reference line,
// and measured points.
func Latency(title, xLabel, yLabel string, curves []Curve, target float64, targetLabel string, logYAxis bool) (*Figure, error) {
	return Stacked(title, xLabel, true, Panel{YLabel: yLabel, Curves: curves, Target: target, TargetLabel: targetLabel, LogY: logYAxis})
}

// integral says whether every x is a whole number (turns, chats).
func integral(curves []Curve) bool {
	for _, c := range curves {
		for _, x := range c.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// Panel is one panel of a Stacked figure.
type Panel struct {
	YLabel      string
	Curves      []Curve
	Target      float64 // reference line, 0 for none
	TargetLabel string
	LogY        bool
}

// Stacked draws panels top to bottom over one x axis (log base 2 when
// logX), each with its curves and target. Only the first panel's curves
// enter the legend: the panels show the same series.
func Stacked(title, xLabel string, logX bool, panels ...Panel) (*Figure, error) {
	f := newFigure(title, len(panels))
	f.Panels[len(panels)-1].X.Label.Text = xLabel
	for i, pn := range panels {
		p := f.Panels[i]
		p.Y.Label.Text = pn.YLabel
		switch {
		case logX:
			log2X(p)
		case integral(pn.Curves):
			p.X.Tick.Marker = intTicks{}
		}
		if pn.LogY {
			logY(p)
		}
		into := f
		if i > 0 {
			into = newFigure("", 0)
		}
		if err := drawCurves(into, p, pn.Curves, logX, pn.LogY, 1, xLabel); err != nil {
			return nil, err
		}
		if i > 0 {
			f.Data = append(f.Data, into.Data...)
		}
		if pn.Target > 0 {
			f.record(pn.TargetLabel, "target", "", math.NaN(), pn.YLabel, pn.Target, "")
			x0, x1 := xRange(pn.Curves)
			p.Add(hline(x0, x1, pn.Target, targetC, dashed))
			f.add(pn.TargetLabel, hline(0, 1, 0, targetC, dashed))
			if p.Y.Max < pn.Target*1.05 {
				p.Y.Max = pn.Target * 1.05
			}
		}
		if !pn.LogY {
			p.Y.Min = 0
		}
	}
	return f, nil
}

func xRange(curves []Curve) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, x := range c.X {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo, hi
}

func drawCurves(f *Figure, p *plot.Plot, curves []Curve, logXAxis, logYAxis bool, scale float64, xName string) error {
	if len(curves) == 0 {
		return fmt.Errorf("nothing to plot: no series")
	}
	ideal := false
	for i, c := range curves {
		col := colorOf(i)
		y := make([]float64, len(c.Expected))
		for j, v := range c.Expected {
			y[j] = v * scale
		}
		pts, err := xys(c.Label, c.X, y, logXAxis, logYAxis)
		if err != nil {
			return err
		}
		yName := p.Y.Label.Text
		for j := range pts {
			f.record(c.Label, "expected", xName, pts[j].X, yName, pts[j].Y, "")
		}
		l := line(pts, col, 1.6, nil)
		p.Add(l)
		f.add(c.Label, l)
		if len(c.Ideal) > 0 {
			yi := make([]float64, len(c.Ideal))
			for j, v := range c.Ideal {
				yi[j] = v * scale
			}
			ipts, err := xys(c.Label+" (ideal)", c.X, yi, logXAxis, logYAxis)
			if err != nil {
				return err
			}
			for j := range ipts {
				f.record(c.Label, "ideal", xName, ipts[j].X, yName, ipts[j].Y, "")
			}
			p.Add(line(ipts, col, 1, dashed))
			ideal = true
		}
		if c.Switch > 0 {
			sy := interp(c.X, y, c.Switch, logXAxis)
			f.record(c.Label, c.SwitchLabel, xName, c.Switch, yName, sy, "")
			p.Add(scatter(plotter.XYs{{X: c.Switch, Y: sy}}, col, draw.TriangleGlyph{}, 4))
		}
		if c.Limit > 0 && c.Limit <= c.X[len(c.X)-1] {
			ly := interp(c.X, y, c.Limit, logXAxis)
			f.record(c.Label, "memory runs out", xName, c.Limit, yName, ly, "")
			p.Add(scatter(plotter.XYs{{X: c.Limit, Y: ly}}, col, draw.CrossGlyph{}, 5))
		}
		if len(c.Measured) > 0 {
			var mx, my []float64
			var labels []string
			for _, m := range c.Measured {
				mx, my, labels = append(mx, m.X), append(my, m.Y*scale), append(labels, m.Label)
			}
			mpts, err := xys(c.Label+" (measured)", mx, my, logXAxis, logYAxis)
			if err != nil {
				return err
			}
			for j := range mpts {
				f.record(c.Label, "measured", xName, mpts[j].X, yName, mpts[j].Y, labels[j])
			}
			s := scatter(mpts, col, draw.CircleGlyph{}, 3)
			p.Add(s)
			f.add(c.Label+" measured", s)
			if lab := labelsAt(mpts, labels, aboveRight); lab != nil {
				p.Add(lab)
			}
		}
	}
	if ideal {
		f.add("ideal: 100 % of peak, no overhead", line(plotter.XYs{{}, {X: 1}}, grey, 1, dashed))
	}
	for _, c := range curves {
		if c.Switch > 0 {
			f.add(c.SwitchLabel, scatter(plotter.XYs{{}}, grey, draw.TriangleGlyph{}, 4))
			break
		}
	}
	for _, c := range curves {
		if c.Limit > 0 && c.Limit <= c.X[len(c.X)-1] {
			f.add("memory runs out", scatter(plotter.XYs{{}}, grey, draw.CrossGlyph{}, 5))
			break
		}
	}
	return nil
}

// Where labelsAt puts text relative to its point.
const (
	aboveRight = iota
	belowRight
	aboveLeft
)

// labelsAt annotates points; a roofline puts predicted points' labels below
// right and measured ones above left so the pair beside each other do not
// collide.
func labelsAt(pts plotter.XYs, labels []string, where int) *plotter.Labels {
	any := false
	for _, l := range labels {
		any = any || l != ""
	}
	if !any {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return nil
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(7)
		l.TextStyle[i].XAlign = draw.XLeft
	}
	l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
	for i := range l.TextStyle {
		switch where {
		case belowRight:
			l.TextStyle[i].YAlign = draw.YTop
			l.Offset.Y = -vg.Points(2)
		case aboveLeft:
			l.TextStyle[i].XAlign = draw.XRight
			l.Offset.X = -vg.Points(4)
		}
	}
	return l
}

// interp is y at x along a polyline, straight on the axis drawn (log or
// linear x).
func interp(xs, ys []float64, x float64, logX bool) float64 {
	i := sort.SearchFloat64s(xs, x)
	switch {
	case i == 0:
		return ys[0]
	case i >= len(xs):
		return ys[len(ys)-1]
	}
	f := func(v float64) float64 { return v }
	if logX {
		f = math.Log
	}
	t := (f(x) - f(xs[i-1])) / (f(xs[i]) - f(xs[i-1]))
	return ys[i-1] + t*(ys[i]-ys[i-1])
}

// Batch draws aggregate throughput (top) and per-sequence TPOT (bottom)
// against batch size; ▲ marks where decode turns compute-bound and × where
// memory runs out.
func Batch(title string, throughput, tpot []Curve, target float64) (*Figure, error) {
	return Stacked(title, "concurrent sequences (batch)", true,
		Panel{YLabel: "tokens/s, all", Curves: throughput},
		Panel{YLabel: "TPOT (ms)", Curves: tpot, Target: target, TargetLabel: fmt.Sprintf("TPOT target %s ms", trim(target))})
}

// Roof is one device engine's roofline at one precision.
type Roof struct {
	Label     string
	Peak      float64 // FLOP/s
	Bandwidth float64 // B/s
}

// OpPoint is an operating point on a roofline chart.
type OpPoint struct {
	Roof      int // index into the roofs
	Intensity float64
	FLOPPerS  float64
	Label     string
	Measured  bool
}

// Roofline draws attainable FLOP/s against arithmetic intensity (log-log):
// each roof's bandwidth slope and compute ceiling, its ridge point, and
// operating points (predicted: filled, measured: open).
func Roofline(title string, roofs []Roof, points []OpPoint) (*Figure, error) {
	if len(roofs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no device")
	}
	f := newFigure(title, 1)
	p := f.Panels[0]
	logX(p)
	logY(p)
	p.X.Label.Text = "arithmetic intensity (FLOP/B)"
	p.Y.Label.Text = "attainable (TFLOP/s)"
	lo, hi := 0.5, 0.0
	for _, r := range roofs {
		hi = math.Max(hi, 4*r.Peak/r.Bandwidth)
	}
	for _, pt := range points {
		lo, hi = math.Min(lo, pt.Intensity/2), math.Max(hi, pt.Intensity*2)
	}
	const tera = 1e12
	for i, r := range roofs {
		ridge := r.Peak / r.Bandwidth
		pts, err := xys(r.Label, []float64{lo, ridge, hi}, []float64{r.Bandwidth * lo / tera, r.Peak / tera, r.Peak / tera}, true, true)
		if err != nil {
			return nil, err
		}
		f.record(r.Label, "ridge (FLOP/B) at peak", p.X.Label.Text, ridge, p.Y.Label.Text, r.Peak/tera, "")
		f.record(r.Label, "bandwidth (B/s)", "", math.NaN(), "B/s", r.Bandwidth, "")
		l := line(pts, colorOf(i), 1.6, nil)
		p.Add(l)
		f.add(fmt.Sprintf("%s: %sB/s, %sFLOP/s, ridge %.0f FLOP/B", r.Label, siSpace(r.Bandwidth), siSpace(r.Peak), ridge), l)
		p.Add(vline(r.Bandwidth*lo/tera, r.Peak/tera, ridge, colorOf(i), dotted))
	}
	var labels [2][]string
	var at [2]plotter.XYs
	for _, pt := range points {
		if pt.Roof < 0 || pt.Roof >= len(roofs) {
			return nil, fmt.Errorf("operating point %q refers to no device", pt.Label)
		}
		shape, side, q := draw.GlyphDrawer(draw.CircleGlyph{}), 0, "predicted"
		if pt.Measured {
			shape, side, q = draw.RingGlyph{}, 1, "measured"
		}
		one, err := xys(pt.Label, []float64{pt.Intensity}, []float64{pt.FLOPPerS / tera}, true, true)
		if err != nil {
			return nil, err
		}
		f.record(roofs[pt.Roof].Label, q, p.X.Label.Text, pt.Intensity, p.Y.Label.Text, pt.FLOPPerS/tera, pt.Label)
		p.Add(scatter(one, colorOf(pt.Roof), shape, 3))
		at[side], labels[side] = append(at[side], one[0]), append(labels[side], pt.Label)
	}
	for side := range at {
		if l := labelsAt(at[side], labels[side], []int{belowRight, aboveLeft}[side]); l != nil {
			p.Add(l)
		}
	}
	if len(points) > 0 {
		f.add("predicted operating point", scatter(plotter.XYs{{}}, grey, draw.CircleGlyph{}, 3))
		if measuredAny(points) {
			f.add("measured", scatter(plotter.XYs{{}}, grey, draw.RingGlyph{}, 3))
		}
	}
	p.X.Min, p.X.Max = lo, hi
	for _, r := range roofs {
		p.Y.Max = math.Max(p.Y.Max, 2*r.Peak/tera) // room above the roof for labels
	}
	return f, nil
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
}

// Memory draws stacked bars of weights, KV cache, activations and runtime
// overhead in GiB, each with its usable-memory line.
func Memory(title string, bars []MemoryBar) (*Figure, error) {
	if len(bars) == 0 {
		return nil, fmt.Errorf("nothing to plot: no configuration")
	}
	f := newFigure(title, 1)
	p := f.Panels[0]
	p.Y.Label.Text = "memory (GiB)"
	const gib = 1 << 30
	parts := []struct {
		name string
		get  func(MemoryBar) float64
	}{
		{"weights", func(b MemoryBar) float64 { return b.Weights }},
		{"KV cache", func(b MemoryBar) float64 { return b.KV }},
		{"activations", func(b MemoryBar) float64 { return b.Activations }},
		{"runtime overhead", func(b MemoryBar) float64 { return b.Overhead }},
	}
	width := vg.Points(math.Min(40, 300/float64(len(bars))))
	var below *plotter.BarChart
	for i, part := range parts {
		vals := make(plotter.Values, len(bars))
		for j, b := range bars {
			v := part.get(b)
			if math.IsNaN(v) || v < 0 {
				return nil, fmt.Errorf("%s: %s is %v", b.Label, part.name, v)
			}
			vals[j] = v / gib
			f.record(b.Label, part.name, "configuration", float64(j), p.Y.Label.Text, v/gib, "")
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
		p.Add(bc)
		f.add(part.name, bc)
	}
	maxY := 0.0
	for j, b := range bars {
		total := (b.Weights + b.KV + b.Activations + b.Overhead) / gib
		maxY = math.Max(maxY, math.Max(total, b.Usable/gib))
		f.record(b.Label, "total", "configuration", float64(j), p.Y.Label.Text, total, "")
		f.record(b.Label, "usable memory", "configuration", float64(j), p.Y.Label.Text, b.Usable/gib, "")
		if b.Usable > 0 {
			p.Add(hline(float64(j)-0.45, float64(j)+0.45, b.Usable/gib, targetC, nil))
		}
	}
	f.add("usable memory", hline(0, 1, 0, targetC, nil))
	names := make([]string, len(bars))
	for j, b := range bars {
		// One part per line keeps wide device names from pushing the
		// bars inward.
		names[j] = strings.ReplaceAll(b.Label, " · ", "\n")
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(bars))-0.4
	var tops plotter.XYs
	var texts []string
	for j, b := range bars {
		total := b.Weights + b.KV + b.Activations + b.Overhead
		y := total / gib
		if u := b.Usable / gib; u >= y && u-y < 0.07*maxY {
			y = u // above the usable line rather than through it
		}
		tops = append(tops, plotter.XY{X: float64(j), Y: y})
		texts = append(texts, fmt.Sprintf("%.2f GiB", total/gib))
	}
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: tops, Labels: texts}); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = vg.Points(8)
			l.TextStyle[i].XAlign = draw.XCenter
		}
		l.Offset = vg.Point{Y: vg.Points(3)}
		p.Add(l)
	}
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.Y.Min, p.Y.Max = 0, maxY*1.08
	return f, nil
}

// Comparison is one measured run against its prediction.
type Comparison struct {
	Group     int // colour: one per device
	Label     string
	Measured  float64 // tokens/s
	Predicted float64 // tokens/s
	MBU       float64 // share of datasheet bandwidth; 0 when not a decode run
}

// Compare draws predicted against measured tokens/s (log-log) with y = x
// and a ±20 % band (top), and each run's MBU (bottom).
func Compare(title string, groups []string, runs []Comparison) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("nothing to plot: no compared run")
	}
	withMBU := 0
	for _, r := range runs {
		if r.MBU > 0 {
			withMBU++
		}
	}
	panels := 1
	if withMBU > 0 {
		panels = 2
	}
	f := newFigure(title, panels)
	p := f.Panels[0]
	logX(p)
	logY(p)
	p.X.Label.Text, p.Y.Label.Text = "measured (tokens/s)", "predicted (tokens/s)"
	lo, hi := math.Inf(1), 0.0
	for _, r := range runs {
		if !(r.Measured > 0) || !(r.Predicted > 0) {
			return nil, fmt.Errorf("%s: measured %v and predicted %v tokens/s must be positive", r.Label, r.Measured, r.Predicted)
		}
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
	p.Add(diag)
	f.add("prediction = measurement", diag)
	band := line(plotter.XYs{{X: lo, Y: lo * 1.2}, {X: hi, Y: hi * 1.2}}, grey, 0.8, dashed)
	p.Add(band, line(plotter.XYs{{X: lo, Y: lo * 0.8}, {X: hi, Y: hi * 0.8}}, grey, 0.8, dashed))
	f.add("±20 %", band)
	for g, name := range groups {
		var pts plotter.XYs
		for _, r := range runs {
			if r.Group == g {
				pts = append(pts, plotter.XY{X: r.Measured, Y: r.Predicted})
				f.record(name, "run", p.X.Label.Text, r.Measured, p.Y.Label.Text, r.Predicted, r.Label)
			}
		}
		if len(pts) == 0 {
			continue
		}
		s := scatter(pts, colorOf(g), draw.CircleGlyph{}, 3)
		p.Add(s)
		f.add(name, s)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	if panels == 2 {
		q := f.Panels[1]
		q.Y.Label.Text = "MBU (%)"
		q.X.Label.Text = "decode runs in file order (MBU: achieved / datasheet bandwidth)"
		var names []string
		for i, r := range runs {
			if r.MBU <= 0 {
				continue
			}
			bc, err := plotter.NewBarChart(plotter.Values{100 * r.MBU}, vg.Points(math.Min(24, 260/float64(withMBU))))
			if err != nil {
				return nil, err
			}
			bc.XMin = float64(len(names))
			f.record(groups[r.Group], "MBU", "run", float64(i+1), q.Y.Label.Text, 100*r.MBU, r.Label)
			bc.Color, bc.LineStyle.Width = colorOf(r.Group), 0
			q.Add(bc)
			names = append(names, fmt.Sprint(i+1))
		}
		// Label at most ~20 bars.
		step := (len(names) + 19) / 20
		for j := range names {
			if j%step != 0 {
				names[j] = ""
			}
		}
		q.NominalX(names...)
		q.Y.Min, q.Y.Max = 0, 100
		q.Add(hline(-0.5, float64(len(names))-0.5, 100, grey, dotted))
	}
	return f, nil
}

// PlanCell is one evaluated configuration of a plan.
type PlanCell struct {
	Row     int // index into the row labels
	Context int
	Limit   string // "" when feasible, else the first failing constraint
}

// Plan draws a plan's search grid: rows (device · model · weights) against
// context, each cell feasible or marked by the first constraint it fails.
func Plan(title string, rows []string, cells []PlanCell) (*Figure, error) {
	if len(cells) == 0 || len(rows) == 0 {
		return nil, fmt.Errorf("nothing to plot: the plan evaluated nothing")
	}
	f := newFigure(title, 1)
	p := f.Panels[0]
	log2X(p)
	p.X.Label.Text = "context per sequence (tokens)"
	// The first row at the top.
	y := func(row int) float64 { return float64(len(rows) - 1 - row) }
	kinds := map[string]plotter.XYs{}
	var order []string
	for _, c := range cells {
		if c.Row < 0 || c.Row >= len(rows) || c.Context <= 0 {
			return nil, fmt.Errorf("plan cell out of range (row %d, context %d)", c.Row, c.Context)
		}
		k := c.Limit
		if _, ok := kinds[k]; !ok {
			order = append(order, k)
		}
		kinds[k] = append(kinds[k], plotter.XY{X: float64(c.Context), Y: y(c.Row)})
		q := "meets every target"
		if k != "" {
			q = "fails first: " + k
		}
		f.record(rows[c.Row], q, p.X.Label.Text, float64(c.Context), "row", float64(c.Row), "")
	}
	sort.Slice(order, func(i, j int) bool { return limitRank(order[i]) < limitRank(order[j]) })
	for _, k := range order {
		st := limitStyles[limitRank(k)]
		name := "meets every target"
		if k != "" {
			name = "fails first: " + k
		}
		s := scatter(kinds[k], st.color, st.shape, 4)
		p.Add(s)
		f.add(name, s)
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

// limitStyles mark a plan cell by the first constraint it fails, in the
// order sim checks them: feasible, memory, TTFT, TPOT, throughput.
var limitStyles = []struct {
	color color.Color
	shape draw.GlyphDrawer
}{
	{palette[2], draw.CircleGlyph{}},
	{palette[1], draw.CrossGlyph{}},
	{palette[4], draw.TriangleGlyph{}},
	{palette[3], draw.SquareGlyph{}},
	{palette[5], draw.PlusGlyph{}},
}

func limitRank(l string) int {
	switch l {
	case "":
		return 0
	case "memory":
		return 1
	case "ttft":
		return 2
	case "tpot":
		return 3
	}
	return 4
}
