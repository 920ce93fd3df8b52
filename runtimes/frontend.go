package runtimes

import "fmt"

// FrontEnd is a serving runtime's front end as its profile states it
// ([front_end], fitted on published serving runs): the process that takes
// requests over HTTP, tokenizes them and streams the engine's tokens back
// (vLLM's API server). Latency is a request's time on its way to the
// engine that holds no serial server; Request and Token are the serial
// work a request and a streamed token cost it. Each figure's Low and High
// are its spread over the fits that held one source out. The zero
// FrontEnd (Stated false) is none: a runtime without published serving
// runs gets no front end.
type FrontEnd struct {
	Stated                  bool
	Latency, Request, Token FrontEndFigure
	// Basis says what the fit rests on (the sources, how many).
	Basis string
}

// FrontEndFigure is one front-end figure, s: the fit on every source and
// the lowest and highest of the fits that held one source out (and it).
type FrontEndFigure struct {
	Value, Low, High float64
}

// maxFrontEnd bounds a front-end figure: a second of work a request or a
// token is far beyond any server.
const maxFrontEnd = 1.0

// Validate checks every figure is a time of 0 … 1 s within its range.
func (f *FrontEnd) Validate() error {
	if !f.Stated {
		return nil
	}
	for _, c := range []struct {
		name string
		v    FrontEndFigure
	}{{"latency", f.Latency}, {"request", f.Request}, {"token", f.Token}} {
		v := c.v
		if !(v.Low >= 0 && v.Low <= v.Value && v.Value <= v.High && v.High <= maxFrontEnd) {
			return fmt.Errorf("front_end %s: want 0 <= low <= value <= high <= %g s, got %g in [%g, %g]", c.name, maxFrontEnd, v.Value, v.Low, v.High)
		}
	}
	return nil
}
