package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// OpsPanel is one pass's operators on its engine's roofline: a prefill,
// a decode step.
type OpsPanel struct {
	Title string
	Roof  Roof
	// Expected is the roof the pass is priced at (the bandwidth it
	// reaches, the rate of its products), drawn dashed; zero: none.
	Expected Roof
	Marks    []OpMark
	// Note says what the panel leaves out (operators with no FLOPs, the
	// fixed costs) and how much of the pass's time that is.
	Note string
}

// OpMark is one operator: where it runs on the roofline and how much of
// the pass it takes.
type OpMark struct {
	// Kind is its family (projections, attention, feed-forward, experts,
	// head, …): its colour and legend entry.
	Kind      string
	Label     string // the text beside it
	Intensity float64
	FLOPPerS  float64
	Share     float64 // of the pass's time: the mark's area
}

// MaxOpLabels and MinOpLabelShare bound the marks a panel names: the
// largest, each at least that share of the pass.
const (
	MaxOpLabels     = 10
	MinOpLabelShare = 0.005
)

// opRadius is the radius of a mark taking all of a pass, points; a mark's
// area is its share of that.
const opRadius, opMinRadius = 24.0, 2.0

// OperatorRoofline draws each panel's operators as discs on its roofline,
// their area in proportion to their share of the pass (LLM-Viewer's
// view): the datasheet roof, its ridge, and a legend of operator kinds in
// a fixed order of colours, so that a 36-layer model stays one mark per
// operator and layer kind.
func OperatorRoofline(title string, kinds []string, panels []OpsPanel) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("nothing to plot: no pass")
	}
	f := newFigure(title, 0)
	g := f.addGrid(1, len(panels))
	const xName, yName, tera = "arithmetic intensity (FLOP/B)", "achieved (TFLOP/s)", 1e12
	colourOf := map[string]color.Color{}
	for i, k := range kinds {
		colourOf[k] = colorOf(i)
	}
	used := map[string]bool{}
	unlabelled := make([]int, len(panels))
	lo, hi, ylo := math.Inf(1), 0.0, math.Inf(1)
	for _, pn := range panels {
		hi = math.Max(hi, 4*pn.Roof.Peak/pn.Roof.Bandwidth)
		for _, m := range pn.Marks {
			if m.Intensity > 0 && m.FLOPPerS > 0 {
				lo, hi = math.Min(lo, m.Intensity/2), math.Max(hi, m.Intensity*2)
				ylo = math.Min(ylo, m.FLOPPerS/tera/3)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, ylo = 0.1, pp(panels)/1e3
	}
	for c, pn := range panels {
		p := g.cells[0][c]
		r := pn.Roof
		ridge := r.Peak / r.Bandwidth
		pts, err := xys(r.Label, []float64{lo, ridge, hi}, []float64{r.Bandwidth * lo / tera, r.Peak / tera, r.Peak / tera}, true, true)
		if err != nil {
			return nil, err
		}
		l := line(pts, grey, 1.6, nil)
		p.Add(l, vline(r.Bandwidth*lo/tera, r.Peak/tera, ridge, grey, dotted))
		f.add(fmt.Sprintf("%s: %sB/s, %sFLOP/s, ridge %.0f FLOP/B", r.Label, siSpace(r.Bandwidth), siSpace(r.Peak), ridge), l)
		f.record(pn.Title+": "+r.Label, "ridge (FLOP/B) at peak", xName, ridge, yName, r.Peak/tera, "")
		if e := pn.Expected; e.Peak > 0 && e.Bandwidth > 0 {
			er := e.Peak / e.Bandwidth
			pts, err := xys(e.Label, []float64{lo, er, hi}, []float64{e.Bandwidth * lo / tera, e.Peak / tera, e.Peak / tera}, true, true)
			if err != nil {
				return nil, err
			}
			el := line(pts, grey, 1, dashed)
			p.Add(el)
			f.add(e.Label, el)
			f.record(pn.Title+": "+e.Label, "expected ridge (FLOP/B)", xName, er, yName, e.Peak/tera, "")
		}
		var marks plotter.XYs
		// Largest first, so that small marks stay visible on top.
		order := make([]int, len(pn.Marks))
		for i := range order {
			order[i] = i
		}
		sortBy(order, func(a, b int) bool { return pn.Marks[a].Share > pn.Marks[b].Share })
		labelled := 0
		for _, i := range order {
			m := pn.Marks[i]
			if !(m.Intensity > 0 && m.FLOPPerS > 0) {
				continue
			}
			one, err := xys(m.Label, []float64{m.Intensity}, []float64{m.FLOPPerS / tera}, true, true)
			if err != nil {
				return nil, err
			}
			col, ok := colourOf[m.Kind]
			if !ok {
				col = grey
			}
			rad := math.Max(opMinRadius, opRadius*math.Sqrt(math.Max(m.Share, 0)))
			p.Add(scatter(one, translucent(col), draw.CircleGlyph{}, rad), scatter(one, col, draw.RingGlyph{}, rad))
			used[m.Kind] = true
			marks = append(marks, one[0])
			f.record(pn.Title+": "+m.Label, "predicted", xName, m.Intensity, yName, m.FLOPPerS/tera, fmt.Sprintf("%.1f%%", 100*m.Share))
			// The largest take the labels: a legible chart names what
			// matters, the legend's colours the rest (and --data all).
			if m.Share >= MinOpLabelShare && labelled < MaxOpLabels {
				f.label(p, one[0].X, one[0].Y, fmt.Sprintf("%s %.0f%%", m.Label, 100*m.Share), southEast, vg.Points(7))
				labelled++
			} else {
				unlabelled[c]++
			}
		}
		f.mark(p, marks)
		logX(p)
		logY(p)
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min, p.Y.Max = math.Min(ylo, r.Bandwidth*lo/tera), 2*r.Peak/tera
		p.Title.Text = pn.Title
	}
	for _, k := range kinds {
		if used[k] {
			f.add(k, scatter(plotter.XYs{{}}, translucent(colourOf[k]), draw.CircleGlyph{}, 4))
		}
	}
	for c, pn := range panels {
		p := g.cells[0][c]
		x := xName
		if pn.Note != "" {
			x += "\n" + pn.Note
		}
		if n := unlabelled[c]; n > 0 {
			x += fmt.Sprintf("\n%d smaller operator%s unlabelled", n, map[bool]string{true: "s"}[n > 1])
		}
		p.X.Label.Text = x
		if c == 0 {
			p.Y.Label.Text = yName
		}
	}
	return f, nil
}

// pp is the smallest bandwidth roof at 1 FLOP/B, TFLOP/s: a floor for an
// empty chart.
func pp(panels []OpsPanel) float64 {
	v := math.Inf(1)
	for _, pn := range panels {
		v = math.Min(v, pn.Roof.Bandwidth/1e12)
	}
	return v
}

func translucent(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 115} // 45 % opaque
}

// sortBy sorts idx by less, stably (insertion: a few dozen marks).
func sortBy(idx []int, less func(a, b int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}
