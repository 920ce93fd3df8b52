package serve

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// FrontEndObservation is one published figure a front end's fit reads.
// Light: a TTFT at the lightest load a source published, less what the
// engine's steps give at that load (Seconds = Latency + Request + Token).
// Otherwise a saturation rate with every request sent at once, read as
// the front end's serial time a request (Seconds = Request + Token ×
// Output): the rate the front end caps.
type FrontEndObservation struct {
	Source  string
	Light   bool
	Output  float64 // tokens streamed a request (a saturation rate)
	Seconds float64
}

// FrontEndFit is a front end fitted on observations, and the figures the
// observations could not separate (left 0, said in Unidentified).
type FrontEndFit struct {
	FrontEnd
	Sources      []string
	Unidentified []string
}

// FitFrontEnd fits a front end's three figures to the observations by
// least squares, each source's light-load and saturation figures
// weighing one each (a source publishing three seeds counts once). A
// figure the observations do not identify is 0: Token without saturation
// rates at two output lengths, Request without any, Latency without a
// light-load figure. A figure the fit makes negative is 0 and the rest
// refitted.
func FitFrontEnd(obs []FrontEndObservation) (FrontEndFit, error) {
	var out FrontEndFit
	count := map[string]int{}
	outputs := map[float64]bool{}
	light := false
	for _, o := range obs {
		if !(o.Seconds >= -1 && o.Seconds <= 10) || math.IsNaN(o.Output) || o.Output < 0 {
			return out, fmt.Errorf("front-end observation of %s: %g s for %g tokens", o.Source, o.Seconds, o.Output)
		}
		count[fmt.Sprint(o.Source, o.Light)]++
		if o.Light {
			light = true
		} else {
			outputs[o.Output] = true
		}
		if !slices.Contains(out.Sources, o.Source) {
			out.Sources = append(out.Sources, o.Source)
		}
	}
	if len(obs) == 0 {
		return out, fmt.Errorf("no front-end observations")
	}
	// Columns: latency, request, token.
	free := []bool{light, len(outputs) > 0, len(outputs) > 1}
	for i, name := range []string{"latency", "request", "token"} {
		if !free[i] {
			out.Unidentified = append(out.Unidentified, name)
		}
	}
	for {
		var cols []int
		for i, f := range free {
			if f {
				cols = append(cols, i)
			}
		}
		theta := [3]float64{}
		if len(cols) > 0 {
			a := mat.NewDense(len(obs), len(cols), nil)
			b := mat.NewVecDense(len(obs), nil)
			for r, o := range obs {
				w := math.Sqrt(1 / float64(count[fmt.Sprint(o.Source, o.Light)]))
				row := [3]float64{0, 1, o.Output}
				if o.Light {
					row = [3]float64{1, 1, 1}
				}
				for j, c := range cols {
					a.Set(r, j, w*row[c])
				}
				b.SetVec(r, w*o.Seconds)
			}
			var x mat.VecDense
			if err := x.SolveVec(a, b); err != nil {
				return out, fmt.Errorf("front-end fit: %w", err)
			}
			for j, c := range cols {
				theta[c] = x.AtVec(j)
			}
		}
		neg := false
		for i := range theta {
			if free[i] && theta[i] < 0 {
				free[i], neg = false, true
			}
		}
		if !neg {
			out.FrontEnd = FrontEnd{Latency: theta[0], Request: theta[1], Token: theta[2]}
			return out, nil
		}
	}
}
