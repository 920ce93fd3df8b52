package serve

import (
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/units"
)

// FrontEnd is a serving runtime's front end: the process that takes a
// request over HTTP, tokenizes it and hands it to the engine, and turns
// the engine's tokens back into a stream (vLLM's API server, apart from
// its engine core since the V1 process architecture). It is one serial
// server in front of the engine: every request's arrival costs it Request
// seconds of work, every streamed token Token seconds, taken in turn, a
// step's tokens before any request not yet started (its output handler
// is ready as soon as a step's outputs arrive); a request then reaches
// the engine Latency later (hops between processes that hold no serial
// server). At a light load it adds Latency + Request + Token to a
// request's TTFT and E2E and nothing to its TPOT; under load its queue
// delays requests and tokens, and its work caps the request rate at
// 1 / (Request + Token × output). The zero FrontEnd is none: the
// engine's steps alone, as predict prices them.
type FrontEnd struct {
	Latency, Request, Token float64 // s
}

// On says whether the front end adds anything.
func (f FrontEnd) On() bool { return f != FrontEnd{} }

// maxFrontEnd bounds each of a front end's figures: a second a request or
// a token is far beyond any server.
const maxFrontEnd = 1.0

// Validate checks each figure is a time of 0 … 1 s.
func (f FrontEnd) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"FrontEnd.Latency", f.Latency}, {"FrontEnd.Request", f.Request}, {"FrontEnd.Token", f.Token}} {
		if !(c.v >= 0 && c.v <= maxFrontEnd) {
			return &WorkloadError{c.name, fmt.Sprintf("must be a time of 0 … %g s, got %g", maxFrontEnd, c.v)}
		}
	}
	return nil
}

// ParseFrontEnd reads a front end as --front-end and a study's
// front_end give it: "runtime" (or empty) for the runtime's own (nil),
// "off" for none, or LATENCY,REQUEST,TOKEN, three durations such as
// 20ms,5ms,50us.
func ParseFrontEnd(s string) (*FrontEnd, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "", "runtime":
		return nil, nil
	case "off", "none":
		return &FrontEnd{}, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%q: want runtime, off, or LATENCY,REQUEST,TOKEN (three durations such as 20ms,5ms,50us)", s)
	}
	var v [3]float64
	for i, p := range parts {
		x, err := units.ParseWait(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		v[i] = x
	}
	f := FrontEnd{Latency: v[0], Request: v[1], Token: v[2]}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%q: each part must be 0 … 1 s", s)
	}
	return &f, nil
}

// Light is what the front end adds to a lone request's TTFT and E2E.
func (f FrontEnd) Light() float64 { return f.Latency + f.Request + f.Token }

// Ceiling is the most requests a second the front end passes, of output
// tokens each (+Inf without serial work).
func (f FrontEnd) Ceiling(output float64) float64 {
	w := f.Request + f.Token*output
	if w <= 0 {
		return math.Inf(1)
	}
	return 1 / w
}

// frontTo takes the arrived requests whose front-end work starts by time
// T through the front end's serial part, in arrival order: each then
// reaches the engine Latency after its work ends.
func (e *engine) frontTo(T float64) {
	f := &e.sv.FrontEnd
	for e.pend.len() > 0 {
		id := e.pend.front()
		start := math.Max(e.feBusy, e.recs[id].Arrival)
		if start > T {
			return
		}
		e.pend.popFront()
		e.feBusy = start + f.Request
		e.feWork += f.Request
		e.reach[id] = e.feBusy + f.Latency
		e.ready.pushBack(id)
	}
}

// nextReach is when the next request reaches the engine through the
// front end with nothing else for it to do (+Inf when none will).
func (e *engine) nextReach() float64 {
	f := &e.sv.FrontEnd
	if e.ready.len() > 0 {
		return e.reach[e.ready.front()]
	}
	at := e.src.peek()
	if e.pend.len() > 0 {
		at = e.recs[e.pend.front()].Arrival
	}
	if math.IsInf(at, 1) {
		return at
	}
	return math.Max(e.feBusy, at) + f.Request + f.Latency
}

// stream passes a step's tokens, emitted at end, through the front end:
// the time they reach their clients. Tokens go first: they wait only for
// the tokens before them, and the request whose work is in progress
// finishes that much later (an event loop runs a ready output handler
// between the small pieces a request's handling awaits in).
func (e *engine) stream(end float64, tokens int) float64 {
	if !e.feOn || tokens == 0 {
		return end
	}
	w := e.sv.FrontEnd.Token * float64(tokens)
	e.feWork += w
	e.egBusy = math.Max(e.egBusy, end) + w
	if e.feBusy > end {
		// The request being taken in finishes w later.
		if n := e.ready.len(); n > 0 {
			if id := e.ready.back(); e.reach[id]-e.sv.FrontEnd.Latency > end {
				e.reach[id] += w
			}
		}
		e.feBusy += w
	} else {
		e.feBusy = e.egBusy
	}
	return e.egBusy
}
