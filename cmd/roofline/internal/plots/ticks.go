package plots

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
)

// MinTickLabels is the least number of labelled ticks on a numeric axis:
// two labels (0 and 250) do not let a reader interpolate.
const MinTickLabels = 4

func logX(p *plot.Plot) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
}

func logY(p *plot.Plot) {
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
}

func log2X(p *plot.Plot) {
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, pow2Ticks{}
}

// linTicks label a linear axis at 1, 2, 2.5 or 5 × 10^k: the widest step
// that still gives MinTickLabels labels, with a minor tick between.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var step float64
	for e := math.Ceil(math.Log10(hi - lo)); ; e-- {
		for _, m := range []float64{5, 2.5, 2, 1} {
			step = m * math.Pow(10, e)
			if math.Floor(hi/step+1e-9)-math.Ceil(lo/step-1e-9)+1 >= MinTickLabels {
				return stepTicks(lo, hi, step)
			}
		}
		if e < -20 {
			return plot.DefaultTicks{}.Ticks(lo, hi)
		}
	}
}

func stepTicks(lo, hi, step float64) []plot.Tick {
	var ticks []plot.Tick
	minor := step / 2
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi*(1+1e-12)+minor*1e-9; i++ {
		v := i * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if math.Mod(i, 2) == 0 {
			t.Label = trim(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logTicks labels a log axis at powers of ten, adding 2 and 5 × 10^k, then
// every mantissa, until MinTickLabels are labelled; a range too narrow
// for that gets linear steps.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	for _, labelled := range [][]float64{{1}, {1, 5}, {1, 2, 5}, {1, 2, 3, 5}, {1, 2, 3, 5, 7}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		ticks := logLadder(lo, hi, labelled)
		if labels(ticks) >= MinTickLabels {
			return ticks
		}
	}
	return linTicks{}.Ticks(lo, hi)
}

func labels(ticks []plot.Tick) int {
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// logLadder is a tick at every mantissa 1 … 9 of each decade in [lo, hi],
// labelled where the mantissa is in ms.
func logLadder(lo, hi float64, ms []float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * d
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			for _, l := range ms {
				if l == m {
					t.Label = si(v)
				}
			}
			ticks = append(ticks, t)
		}
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

// pow2Ticks labels powers of two on a log axis (contexts, batches,
// prompts), at most about eight; a range of fewer than MinTickLabels
// powers also labels whole numbers between them.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	n := 0
	for v := math.Pow(2, math.Ceil(math.Log2(lo))); v <= hi*(1+1e-9); v *= 2 {
		n++
	}
	if n < MinTickLabels {
		return intTicks{}.Ticks(lo, hi)
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

// intTicks labels a linear axis of counts (turns, chats): multiples of 1,
// 2 or 5 × 10^k, at most about eight, and the first count.
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

// blankTicks keeps a marker's ticks (and so the grid) without labels: the
// inner panels of small multiples share the outer panels' axes.
type blankTicks struct{ plot.Ticker }

func (b blankTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := b.Ticker.Ticks(lo, hi)
	for i := range ticks {
		ticks[i].Label = ""
	}
	return ticks
}
