package plots

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// recorder is a vg.Canvas that draws nothing. Layout uses it to measure a
// figure at a trial size; with keep set it records every string and
// stroke in page coordinates, so tests can check what a reader would see
// (text that overlaps, series hidden under others).
type recorder struct {
	w, h    vg.Length
	keep    bool
	stack   []penState
	texts   []drawnText
	strokes []drawnStroke
}

// affine maps (x, y) to (a·x + c·y + e, b·x + d·y + f).
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.c*y + m.e), Y: vg.Length(m.b*x + m.d*y + m.f)}
}

// then is m followed, in local coordinates, by n: m × n.
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

type penState struct {
	m      affine
	color  color.Color
	width  vg.Length
	dashes []vg.Length
}

// drawnText is one FillString: the face, the text and where its baseline
// starts, with the transform that maps its local frame to the page.
type drawnText struct {
	face  font.Face
	text  string
	at    vg.Point
	m     affine
	color color.Color
}

// drawnStroke is one stroked path, flattened to points on the page.
type drawnStroke struct {
	color  color.Color
	width  vg.Length
	dashes []vg.Length
	pts    []vg.Point
}

func newRecorder(w, h vg.Length, keep bool) *recorder {
	return &recorder{w: w, h: h, keep: keep, stack: []penState{{m: affine{a: 1, d: 1}, color: color.Black, width: 1}}}
}

// nullCanvas is a draw.Canvas of w × h that draws nothing.
func nullCanvas(w, h vg.Length) draw.Canvas { return draw.New(newRecorder(w, h, false)) }

func (r *recorder) top() *penState { return &r.stack[len(r.stack)-1] }

func (r *recorder) Size() (vg.Length, vg.Length) { return r.w, r.h }
func (r *recorder) SetLineWidth(w vg.Length)     { r.top().width = w }
func (r *recorder) SetLineDash(d []vg.Length, _ vg.Length) {
	r.top().dashes = append([]vg.Length(nil), d...)
}
func (r *recorder) SetColor(c color.Color) { r.top().color = c }

func (r *recorder) Rotate(a float64) {
	s, c := math.Sincos(a)
	r.top().m = r.top().m.then(affine{a: c, b: s, c: -s, d: c})
}

func (r *recorder) Translate(p vg.Point) {
	r.top().m = r.top().m.then(affine{a: 1, d: 1, e: float64(p.X), f: float64(p.Y)})
}

func (r *recorder) Scale(x, y float64) { r.top().m = r.top().m.then(affine{a: x, d: y}) }
func (r *recorder) Push()              { r.stack = append(r.stack, *r.top()) }
func (r *recorder) Pop()               { r.stack = r.stack[:len(r.stack)-1] }
func (r *recorder) Fill(vg.Path)       {}

func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}

func (r *recorder) Stroke(p vg.Path) {
	if !r.keep || r.top().width <= 0 {
		return
	}
	st := r.top()
	s := drawnStroke{color: st.color, width: st.width, dashes: st.dashes}
	for _, c := range p {
		switch c.Type {
		case vg.MoveComp, vg.LineComp, vg.CurveComp:
			s.pts = append(s.pts, st.m.apply(c.Pos))
		case vg.ArcComp:
			for i := 0; i <= 8; i++ {
				a := c.Start + c.Angle*float64(i)/8
				s.pts = append(s.pts, st.m.apply(vg.Point{X: c.Pos.X + c.Radius*vg.Length(math.Cos(a)), Y: c.Pos.Y + c.Radius*vg.Length(math.Sin(a))}))
			}
		}
	}
	r.strokes = append(r.strokes, s)
}

func (r *recorder) FillString(f font.Face, at vg.Point, text string) {
	if r.keep {
		r.texts = append(r.texts, drawnText{face: f, text: text, at: at, m: r.top().m, color: r.top().color})
	}
}
