package plots

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Point is one measured or predicted operating point.
type Point struct {
	X, Y  float64
	Label string // short annotation, e.g. "MBU 71%"
}

// Curve is one configuration's predicted latency or rate against a sweep,
// expected and at the physical limit (ideal), with measured points.
type Curve struct {
	Label string
	// Facet names the small multiple the curve is drawn in: curves with
	// the same Facet share a panel, and a figure with several facets
	// draws one panel per facet on shared axes. Empty: one panel, or
	// panels of MaxSeries curves when there are more.
	Facet    string
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

// MaxSeries is the most series one panel draws; more become facets.
const MaxSeries = 8

// YScale is a panel's y axis: chosen from the values (AutoY), or set.
type YScale uint8

// The y scales.
const (
	// AutoY is logarithmic when the values span more than MaxLinearSpan,
	// else linear from zero.
	AutoY YScale = iota
	LinearY
	LogY
)

// MaxLinearSpan is the widest ratio of a panel's largest to smallest
// value that a linear y axis draws: past it the small values lie in a
// line's width of the axis (28 ms beside 1.8 s), so AutoY goes
// logarithmic.
const MaxLinearSpan = 10

// MergeTolerance is how far apart, relative to their own value at every
// x, two series may be and still be drawn as one line labelled "a ≈ b".
// It is relative so that no scale of axis hides a difference a reader
// came for (28 ms against 46 ms is 1 % of an axis to 1.8 s, and 64 %
// of the smaller value).
const MergeTolerance = 0.02

// Latency draws expected (solid) and ideal (dashed) curves against a
// power-of-two sweep on a log x axis, a target as a red reference line,
// and measured points.
func Latency(title, xLabel, yLabel string, curves []Curve, target float64, targetLabel string, scale YScale) (*Figure, error) {
	return Stacked(title, xLabel, true, Panel{YLabel: yLabel, Curves: curves, Target: target, TargetLabel: targetLabel, Scale: scale})
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

// Panel is one quantity of a Stacked figure.
type Panel struct {
	YLabel      string
	Curves      []Curve
	Target      float64 // reference line, 0 for none
	TargetLabel string
	Scale       YScale
}

// logY says whether the panel's y axis is logarithmic: as set, or, for
// AutoY, when its positive values span more than MaxLinearSpan.
func (pn Panel) logY() bool {
	switch pn.Scale {
	case LogY:
		return true
	case LinearY:
		return false
	}
	lo, hi := math.Inf(1), 0.0
	for _, c := range pn.Curves {
		for _, ys := range [][]float64{c.Expected, c.Ideal} {
			for _, y := range ys {
				if !(y > 0) {
					return false // a log axis cannot draw it
				}
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		for _, m := range c.Measured {
			if !(m.Y > 0) {
				return false
			}
			lo, hi = math.Min(lo, m.Y), math.Max(hi, m.Y)
		}
	}
	if pn.Target > 0 {
		lo, hi = math.Min(lo, pn.Target), math.Max(hi, pn.Target)
	}
	return hi > MaxLinearSpan*lo
}

// facets lists the facets of curves in order of first appearance and the
// facet of each curve. Curves without facets, more than MaxSeries of
// them, are split in order into even panels of at most MaxSeries, named
// by their first and last series.
func facets(curves []Curve) (names []string, of []int) { return facetsOf(curves, MaxSeries) }

// facetsOf is facets with at most most curves per unnamed panel.
func facetsOf(curves []Curve, most int) (names []string, of []int) {
	of = make([]int, len(curves))
	idx := map[string]int{}
	for i, c := range curves {
		j, ok := idx[c.Facet]
		if !ok {
			j = len(names)
			idx[c.Facet] = j
			names = append(names, c.Facet)
		}
		of[i] = j
	}
	if len(names) == 1 && names[0] == "" && len(curves) > most {
		n := (len(curves) + most - 1) / most
		per := (len(curves) + n - 1) / n
		names = names[:0]
		for i := range curves {
			of[i] = i / per
			if i%per == 0 {
				last := min(len(curves), i+per) - 1
				names = append(names, span(curves[i].Label, curves[last].Label))
			}
		}
	}
	return names, of
}

// facetCols is the number of columns of a grid of n facets: two, so each
// panel keeps room for its tick labels at a page's width, and three past
// six facets (three devices × three models: a row per model, a column
// per device), so the grid keeps to a printed page's height.
func facetCols(n int) int {
	if n > 6 {
		return 3
	}
	return min(n, 2)
}

// Stacked draws its panels top to bottom over one x axis (log base 2 when
// logX), each with its curves and target. When the curves have facets,
// each facet is a column of these stacked panels in a grid of small
// multiples with shared axes; the legend names each series once.
func Stacked(title, xLabel string, logX bool, panels ...Panel) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("nothing to plot: no panel")
	}
	if len(panels[0].Curves) == 0 {
		return nil, fmt.Errorf("nothing to plot: no series")
	}
	names, of := facets(panels[0].Curves)
	for _, pn := range panels[1:] {
		if len(pn.Curves) != len(panels[0].Curves) {
			return nil, fmt.Errorf("panels %q and %q draw %d and %d series", panels[0].YLabel, pn.YLabel, len(panels[0].Curves), len(pn.Curves))
		}
	}
	count := make([]int, len(names))
	for _, fi := range of {
		if count[fi]++; count[fi] > MaxSeries {
			return nil, fmt.Errorf("facet %q has more than %d series: at most %d per panel", names[fi], MaxSeries, MaxSeries)
		}
	}
	f := newFigure(title, 0)
	nq := len(panels)
	cols := facetCols(len(names))
	frows := (len(names) + cols - 1) / cols
	g := &grid{cells: make([][]*plot.Plot, frows*nq)}
	for r := range g.cells {
		g.cells[r] = make([]*plot.Plot, cols)
	}
	f.grids = []*grid{g}
	logs := make([]bool, len(panels))
	for q, pn := range panels {
		logs[q] = pn.logY()
	}
	// The y span each panel will have, for finding lines that lie within a
	// line's width of each other: shared by every facet when share will
	// share it.
	spans := make([][][2]float64, len(panels))
	for q, pn := range panels {
		spans[q] = make([][2]float64, len(names))
		glo, ghi := yRange(pn.Curves, pn.Target, logs[q])
		lowest := math.Inf(1)
		for fi := range names {
			var cs []Curve
			for i, c := range pn.Curves {
				if of[i] == fi {
					cs = append(cs, c)
				}
			}
			lo, hi := yRange(cs, pn.Target, logs[q])
			spans[q][fi] = [2]float64{lo, hi}
			lowest = math.Min(lowest, hi)
		}
		if logs[q] || ghi/lowest <= 3 {
			for fi := range names {
				spans[q][fi] = [2]float64{glo, ghi}
			}
		}
	}
	for fi, name := range names {
		fr, fc := fi/cols, fi%cols
		for q, pn := range panels {
			p := newPanel()
			g.cells[fr*nq+q][fc] = p
			if q == 0 && len(names) > 1 {
				p.Title.Text = name
			}
			p.Y.Label.Text = pn.YLabel
			switch {
			case logX && !integral(pn.Curves):
				// Rates, not token counts: decades.
				p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
			case logX:
				log2X(p)
			case integral(pn.Curves):
				p.X.Tick.Marker = intTicks{}
			}
			if logs[q] {
				logY(p)
			}
			var cs []Curve
			for i, c := range pn.Curves {
				if of[i] == fi {
					cs = append(cs, c)
				}
			}
			if err := drawCurves(f, p, cs, logX, logs[q], spans[q][fi], xLabel); err != nil {
				return nil, err
			}
			if pn.Target > 0 {
				if fi == 0 {
					f.record(pn.TargetLabel, "target", "", math.NaN(), pn.YLabel, pn.Target, "")
				}
				x0, x1 := xRange(pn.Curves)
				p.Add(hline(x0, x1, pn.Target, targetC, targetDashes))
				f.add(pn.TargetLabel, hline(0, 1, 0, targetC, targetDashes))
				if p.Y.Max < pn.Target*1.05 {
					p.Y.Max = pn.Target * 1.05
				}
			}
			if !logs[q] {
				p.Y.Min = 0
			}
		}
	}
	// Shared axes: each quantity has one x and one y range in every facet;
	// inner panels drop the labels their neighbours carry.
	sharedY := make([]bool, nq)
	for q := range panels {
		var ps []*plot.Plot
		for fi := range names {
			ps = append(ps, g.cells[fi/cols*nq+q][fi%cols])
		}
		sharedY[q] = share(ps)
	}
	for r, row := range g.cells {
		for c, p := range row {
			if p == nil {
				continue
			}
			q := r % nq
			if c > 0 && sharedY[q] {
				p.Y.Label.Text = ""
				p.Y.Tick.Marker = blankTicks{p.Y.Tick.Marker}
			}
			// x is shared: only the lowest panel of a column labels it.
			below := r+1 < len(g.cells) && g.cells[r+1][c] != nil
			if below {
				p.X.Tick.Marker = blankTicks{p.X.Tick.Marker}
			}
			if !below {
				p.X.Label.Text = xLabel
			}
		}
	}
	if len(names) > 1 {
		f.PreferredHeight = vg.Centimeter * vg.Length(3+4*float64(len(g.cells)))
	}
	return f, nil
}

// share gives panels the union of their x ranges, and of their y ranges
// when that leaves no panel's data squashed flat: on a log axis, or when
// the largest panel reaches at most three times as high as the smallest.
// It says whether y is shared.
func share(ps []*plot.Plot) (sharedY bool) {
	if len(ps) < 2 {
		return true
	}
	x0, x1, y0, y1 := ps[0].X.Min, ps[0].X.Max, ps[0].Y.Min, ps[0].Y.Max
	lowest := math.Inf(1)
	for _, p := range ps {
		x0, x1 = math.Min(x0, p.X.Min), math.Max(x1, p.X.Max)
		y0, y1 = math.Min(y0, p.Y.Min), math.Max(y1, p.Y.Max)
		lowest = math.Min(lowest, p.Y.Max)
	}
	_, logY := ps[0].Y.Scale.(plot.LogScale)
	sharedY = logY || (lowest > 0 && y1/lowest <= 3)
	for _, p := range ps {
		p.X.Min, p.X.Max = x0, x1
		if sharedY {
			p.Y.Min, p.Y.Max = y0, y1
		}
	}
	return sharedY
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

// coincide groups curves whose expected values lie within
// MergeTolerance of each other, relative to their own value, at every
// x (the same x). Each group lists curve indices, first the one drawn,
// and says whether they are equal (to a part in a million) or only
// within the tolerance.
func coincide(curves []Curve) (groups [][]int, equal []bool) {
	done := make([]bool, len(curves))
	for i := range curves {
		if done[i] {
			continue
		}
		g, eq := []int{i}, true
		for j := i + 1; j < len(curves); j++ {
			if !done[j] && nearly(curves[i], curves[j]) {
				g = append(g, j)
				done[j] = true
				eq = eq && sameValues(curves[i].Expected, curves[j].Expected)
			}
		}
		groups, equal = append(groups, g), append(equal, eq)
	}
	return groups, equal
}

// nearly says whether two curves are drawn as one: the same x, and
// expected values within MergeTolerance of the larger at every x.
func nearly(a, b Curve) bool {
	if len(a.X) != len(b.X) || len(a.Expected) != len(b.Expected) {
		return false
	}
	for j := range a.X {
		if math.Abs(a.X[j]-b.X[j]) > 1e-9*math.Abs(a.X[j]) {
			return false
		}
		if math.Abs(a.Expected[j]-b.Expected[j]) > MergeTolerance*math.Max(math.Abs(a.Expected[j]), math.Abs(b.Expected[j])) {
			return false
		}
	}
	return true
}

// yRange is the span of the values a panel of curves draws, 0 included
// on a linear axis, and the target.
func yRange(curves []Curve, target float64, logY bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, ys := range [][]float64{c.Expected, c.Ideal} {
			for _, y := range ys {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		for _, m := range c.Measured {
			lo, hi = math.Min(lo, m.Y), math.Max(hi, m.Y)
		}
	}
	if target > 0 {
		lo, hi = math.Min(lo, target), math.Max(hi, target)
	}
	if !logY {
		lo = math.Min(lo, 0)
	}
	return lo, hi
}

// seriesWidth is a series line's width in points. A line that lies
// within a line's width of one drawn before it all along (two models 5 %
// apart on an axis of six decades: apart, but not by a line's width) is
// drawn narrower on top of it, thinWidth of the narrowest below, so the
// colour of each shows.
const (
	seriesWidth = 1.6
	thinWidth   = 0.45
)

// mergeDash is the length of each colour's dash on a line drawn for
// several series.
const mergeDash = vg.Length(5)

// overlaid says whether curve b lies within 1 % of the axis span of a at
// every x (about a line's width on a panel), on the axis drawn.
func overlaid(a, b Curve, logY bool, span [2]float64) bool {
	return overlaidAny([]Curve{a}, b, logY, span)
}

// overlaidAny says whether curve b lies within 1 % of the axis span of
// one of the curves others at every x, not always the same one.
func overlaidAny(others []Curve, b Curve, logY bool, span [2]float64) bool {
	if len(others) == 0 {
		return false
	}
	for _, a := range others {
		if len(a.X) != len(b.X) || len(a.Expected) != len(b.Expected) {
			return false
		}
	}
	for j := range b.X {
		near := false
		for _, a := range others {
			if math.Abs(a.X[j]-b.X[j]) > 1e-9*math.Abs(a.X[j]) {
				return false
			}
			d, w := math.Abs(a.Expected[j]-b.Expected[j]), span[1]-span[0]
			if logY {
				d, w = math.Abs(math.Log(a.Expected[j]/b.Expected[j])), math.Log(span[1]/span[0])
			}
			near = near || d <= 0.01*w
		}
		if !near {
			return false
		}
	}
	return true
}

// coveredLast moves to the end of the drawing order the groups whose
// line lies within a line's width of one other group's or another's at
// every x without lying on any one all along (Q4_K_M near F16 in short
// prompts and equal to Q8_0 in long ones): drawn first, the lines after
// it would hide it in turns; drawn last and narrower, its colour shows.
// covered is how many were moved.
func coveredLast(curves []Curve, groups [][]int, equal []bool, logY bool, span [2]float64) (_ [][]int, _ []bool, covered int) {
	var keep, last [][]int
	var keepEq, lastEq []bool
	for gi, g := range groups {
		var others []Curve
		single := false
		for gj, o := range groups {
			if gj == gi {
				continue
			}
			others = append(others, curves[o[0]])
			single = single || overlaid(curves[o[0]], curves[g[0]], logY, span)
		}
		if !single && len(others) > 1 && overlaidAny(others, curves[g[0]], logY, span) {
			last, lastEq = append(last, g), append(lastEq, equal[gi])
			continue
		}
		keep, keepEq = append(keep, g), append(keepEq, equal[gi])
	}
	return append(keep, last...), append(keepEq, lastEq...), len(last)
}

// drawCurves draws curves in panel p, those within MergeTolerance of
// each other as one line; span is the panel's y span.
func drawCurves(f *Figure, p *plot.Plot, curves []Curve, logXAxis, logYAxis bool, span [2]float64, xName string) error {
	if len(curves) == 0 {
		return fmt.Errorf("nothing to plot: no series")
	}
	yName := p.Y.Label.Text
	scaled := make([]Curve, len(curves))
	for i, c := range curves {
		scaled[i] = c
		pts, err := xys(c.Label, c.X, c.Expected, logXAxis, logYAxis)
		if err != nil {
			return err
		}
		for j := range pts {
			f.record(c.Label, "expected", xName, pts[j].X, yName, pts[j].Y, "")
		}
		if len(c.Ideal) > 0 {
			ipts, err := xys(c.Label+" (ideal)", c.X, c.Ideal, logXAxis, logYAxis)
			if err != nil {
				return err
			}
			for j := range ipts {
				f.record(c.Label, "ideal", xName, ipts[j].X, yName, ipts[j].Y, "")
			}
		}
	}
	// Ideal lines: one per distinct limit, in the series' colour when one
	// series has it, grey when several share it.
	type ideal struct {
		x, y   []float64
		owners []int
	}
	var ideals []*ideal
	for i, c := range scaled {
		if len(c.Ideal) == 0 {
			continue
		}
		var found *ideal
		for _, id := range ideals {
			if sameValues(id.x, c.X) && sameValues(id.y, c.Ideal) {
				found = id
			}
		}
		if found == nil {
			found = &ideal{x: c.X, y: c.Ideal}
			ideals = append(ideals, found)
		}
		found.owners = append(found.owners, i)
	}
	for _, id := range ideals {
		col := colorOf(f.styleOf(scaled[id.owners[0]].Label))
		if len(id.owners) > 1 {
			for _, o := range id.owners[1:] {
				if f.styleOf(scaled[o].Label) != f.styleOf(scaled[id.owners[0]].Label) {
					col = grey
				}
			}
		}
		pts, _ := xys("ideal", id.x, id.y, logXAxis, logYAxis)
		p.Add(line(pts, col, 1, dashed))
	}
	var marks plotter.XYs
	groups, equal := coincide(scaled)
	groups, equal, covered := coveredLast(scaled, groups, equal, logYAxis, span)
	widths := make([]float64, len(groups))
	for gi, g := range groups {
		c := scaled[g[0]]
		names := make([]string, len(g))
		for k, i := range g {
			names[k] = scaled[i].Label
		}
		st := f.styleOf(names[0])
		col := colorOf(st)
		widths[gi] = seriesWidth
		for gj := range gi {
			if overlaid(scaled[groups[gj][0]], c, logYAxis, span) || gi >= len(groups)-covered {
				widths[gi] = math.Min(widths[gi], thinWidth*widths[gj])
			}
		}
		pts, _ := xys(c.Label, c.X, c.Expected, logXAxis, logYAxis)
		l := line(pts, col, widths[gi], dashesOf(st))
		p.Add(l)
		if len(g) == 1 {
			f.addSeries(names[0], l)
		} else {
			// A line drawn for several series alternates their colours, so
			// a panel tells it from the first series drawn alone.
			th := []plot.Thumbnailer{l}
			for k, name := range names[1:] {
				o := line(pts, colorOf(f.styleOf(name)), widths[gi], []vg.Length{mergeDash, mergeDash * vg.Length(len(names)-1)})
				o.LineStyle.DashOffs = mergeDash * vg.Length(len(names)-1-k)
				p.Add(o)
				th = append(th, o)
			}
			f.addMerged(names, equal[gi], th...)
		}
		for _, i := range g {
			c := scaled[i]
			if c.Switch > 0 {
				sy := interp(c.X, c.Expected, c.Switch, logXAxis)
				f.record(c.Label, c.SwitchLabel, xName, c.Switch, yName, sy, "")
				p.Add(scatter(plotter.XYs{{X: c.Switch, Y: sy}}, col, draw.TriangleGlyph{}, 4))
				marks = append(marks, plotter.XY{X: c.Switch, Y: sy})
			}
			if c.Limit > 0 && c.Limit <= c.X[len(c.X)-1] {
				ly := interp(c.X, c.Expected, c.Limit, logXAxis)
				f.record(c.Label, "memory runs out", xName, c.Limit, yName, ly, "")
				p.Add(scatter(plotter.XYs{{X: c.Limit, Y: ly}}, col, draw.CrossGlyph{}, 5))
				marks = append(marks, plotter.XY{X: c.Limit, Y: ly})
			}
			if len(c.Measured) == 0 {
				continue
			}
			var mx, my []float64
			for _, m := range c.Measured {
				mx, my = append(mx, m.X), append(my, m.Y)
			}
			mpts, err := xys(c.Label+" (measured)", mx, my, logXAxis, logYAxis)
			if err != nil {
				return err
			}
			for j := range mpts {
				f.record(c.Label, "measured", xName, mpts[j].X, yName, mpts[j].Y, c.Measured[j].Label)
				f.label(p, mpts[j].X, mpts[j].Y, c.Measured[j].Label, northEast, vg.Points(7))
			}
			p.Add(scatter(mpts, col, draw.RingGlyph{}, 3))
			marks = append(marks, mpts...)
		}
	}
	f.mark(p, marks)
	if len(ideals) > 0 {
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
	for _, c := range curves {
		if len(c.Measured) > 0 {
			f.add("measured (labelled with MBU or MFU)", scatter(plotter.XYs{{}}, grey, draw.RingGlyph{}, 3))
			break
		}
	}
	return nil
}

// sameValues says whether two series are equal to a part in a million.
func sameValues(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6*math.Max(math.Abs(a[i]), math.Abs(b[i])) {
			return false
		}
	}
	return true
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

// span names a run of series by its first and last: "k = 1 … 8 drafted
// tokens" from "k = 1 drafted tokens" and "k = 8 drafted tokens".
func span(first, last string) string {
	if first == last {
		return first
	}
	p := 0
	for p < len(first) && p < len(last) && first[p] == last[p] {
		p++
	}
	for p > 0 && first[p-1] != ' ' { // whole words
		p--
	}
	s := 0
	for s < len(first)-p && s < len(last)-p && first[len(first)-1-s] == last[len(last)-1-s] {
		s++
	}
	for s > 0 && first[len(first)-s] != ' ' {
		s--
	}
	return first[:len(first)-s] + " … " + last[p:]
}
