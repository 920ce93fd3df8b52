package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Directions a label may sit in from its point, counter-clockwise.
const (
	east = iota
	northEast
	north
	northWest
	west
	southWest
	south
	southEast
)

// labelLayer annotates a panel's points. It places its labels when the
// panel is drawn and its scales are known: each label takes the first
// spot, nearest its preferred side, that stays inside the data area and
// clear of every other label and marker; a label pushed away from its
// point is tied to it by a thin leader line.
type labelLayer struct {
	items []labelItem
	marks plotter.XYs // markers to keep clear of, in data coordinates
	added bool
}

type labelItem struct {
	x, y  float64
	text  string
	side  int
	size  vg.Length
	color color.Color
}

// label annotates (x, y) of panel p with text, preferably on side.
func (f *Figure) label(p *plot.Plot, x, y float64, text string, side int, size vg.Length) {
	if text == "" {
		return
	}
	l := f.layerOf(p)
	l.items = append(l.items, labelItem{x: x, y: y, text: text, side: side, size: size, color: color.Black})
}

// mark records markers that labels must not cover.
func (f *Figure) mark(p *plot.Plot, pts plotter.XYs) {
	l := f.layerOf(p)
	l.marks = append(l.marks, pts...)
}

func (f *Figure) layerOf(p *plot.Plot) *labelLayer {
	l, ok := f.layers[p]
	if !ok {
		l = &labelLayer{}
		f.layers[p] = l
	}
	return l
}

// markRadius is the half-size of the box a marker keeps clear.
const markRadius = vg.Length(3.5)

func (l *labelLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	at := func(x, y float64) vg.Point { return vg.Point{X: trX(x), Y: trY(y)} }
	var taken []vg.Rectangle
	box := func(pt vg.Point) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: pt.X - markRadius, Y: pt.Y - markRadius}, Max: vg.Point{X: pt.X + markRadius, Y: pt.Y + markRadius}}
	}
	own := map[vg.Point]bool{}
	for _, it := range l.items {
		own[at(it.x, it.y)] = true
	}
	for _, m := range l.marks {
		if pt := at(m.X, m.Y); !own[pt] {
			taken = append(taken, box(pt))
		}
	}
	points := make([]vg.Rectangle, len(l.items))
	for i, it := range l.items {
		points[i] = box(at(it.x, it.y))
	}
	for i, it := range l.items {
		pt := at(it.x, it.y)
		st := draw.TextStyle{Color: it.color, Font: font.From(plot.DefaultFont, it.size), Handler: plot.DefaultTextHandler}
		ext := st.Rectangle(it.text)
		w, h := ext.Max.X-ext.Min.X, ext.Max.Y-ext.Min.Y
		// The box of this item's own point stays clear of the others'
		// labels but not of its own.
		others := append(append(append([]vg.Rectangle(nil), taken...), points[:i]...), points[i+1:]...)
		best, bestCost, bestD := vg.Rectangle{}, math.Inf(1), vg.Length(0)
		for di, d := range []vg.Length{markRadius + 1, 10, 18, 28} {
			for k := 0; k < 8; k++ {
				// Try the preferred side, then alternate around it.
				dir := (it.side + (k+1)/2*(1-2*(k%2)) + 16) % 8
				a := float64(dir) * math.Pi / 4
				cos, sin := math.Cos(a), math.Sin(a)
				ax, ay := pt.X+d*vg.Length(cos), pt.Y+d*vg.Length(sin)
				r := vg.Rectangle{Min: vg.Point{X: ax - w*vg.Length((1-cos)/2), Y: ay - h*vg.Length((1-sin)/2)}}
				r.Max = vg.Point{X: r.Min.X + w, Y: r.Min.Y + h}
				cost := overlapArea(r, others) + 100*outside(r, c.Rectangle) + float64(di)*0.01 + float64(k)*0.001
				if cost < bestCost {
					best, bestCost, bestD = r, cost, d
				}
			}
			if bestCost < 1 {
				break
			}
		}
		taken = append(taken, best)
		if bestD > markRadius+1 {
			// A leader from the point's edge to the label's nearest edge.
			q := vg.Point{X: clamp(pt.X, best.Min.X, best.Max.X), Y: clamp(pt.Y, best.Min.Y, best.Max.Y)}
			dx, dy := q.X-pt.X, q.Y-pt.Y
			if n := vg.Length(math.Hypot(float64(dx), float64(dy))); n > markRadius {
				from := vg.Point{X: pt.X + dx/n*markRadius, Y: pt.Y + dy/n*markRadius}
				c.StrokeLine2(draw.LineStyle{Color: grey, Width: vg.Points(0.5)}, from.X, from.Y, q.X, q.Y)
			}
		}
		c.FillText(st, vg.Point{X: best.Min.X - ext.Min.X, Y: best.Min.Y - ext.Min.Y}, it.text)
	}
}

func clamp(v, lo, hi vg.Length) vg.Length { return max(lo, min(hi, v)) }

// overlapArea is the area r shares with the rectangles, in square points.
func overlapArea(r vg.Rectangle, rs []vg.Rectangle) float64 {
	a := 0.0
	for _, o := range rs {
		w := min(r.Max.X, o.Max.X) - max(r.Min.X, o.Min.X)
		h := min(r.Max.Y, o.Max.Y) - max(r.Min.Y, o.Min.Y)
		if w > 0 && h > 0 {
			a += float64(w * h)
		}
	}
	return a
}

// outside is how far r reaches out of the area, in points.
func outside(r, area vg.Rectangle) float64 {
	return float64(max(0, area.Min.X-r.Min.X) + max(0, r.Max.X-area.Max.X) + max(0, area.Min.Y-r.Min.Y) + max(0, r.Max.Y-area.Max.Y))
}
