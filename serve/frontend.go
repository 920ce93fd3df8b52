package serve

import (
	"fmt"
	"math"
	"strconv"
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
	// Batch, when above 1, is the most requests the front end takes in
	// together: those waiting when it turns to intake, up to Batch, pass
	// its serial work in turn and reach the engine together when the
	// last is through, as vLLM's API server tokenizes the prompts waiting
	// for it in one call, up to 32 (AsyncMicrobatchTokenizer), and its
	// event loop runs each ready request's next stage in turn. 0 or 1:
	// one at a time, each reaching the engine as its own work ends.
	Batch int
}

// On says whether the front end adds anything.
func (f FrontEnd) On() bool { return f.Latency != 0 || f.Request != 0 || f.Token != 0 }

// maxFrontEnd bounds each of a front end's figures: a second a request or
// a token is far beyond any server.
const maxFrontEnd = 1.0

// maxFrontEndBatch bounds a front end's batch: vLLM's tokenizer takes 32.
const maxFrontEndBatch = 4096

// Validate checks each figure is a time of 0 … 1 s and the batch 0 …
// 4096 requests.
func (f FrontEnd) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"FrontEnd.Latency", f.Latency}, {"FrontEnd.Request", f.Request}, {"FrontEnd.Token", f.Token}} {
		if !(c.v >= 0 && c.v <= maxFrontEnd) {
			return &WorkloadError{c.name, fmt.Sprintf("must be a time of 0 … %g s, got %g", maxFrontEnd, c.v)}
		}
	}
	if f.Batch < 0 || f.Batch > maxFrontEndBatch {
		return &WorkloadError{"FrontEnd.Batch", fmt.Sprintf("must be 0 … %d requests, got %d", maxFrontEndBatch, f.Batch)}
	}
	return nil
}

// ParseFrontEnd reads a front end as --front-end and a study's
// front_end give it: "runtime" (or empty) for the runtime's own (nil),
// "off" for none, or LATENCY,REQUEST,TOKEN, three durations such as
// 20ms,5ms,50us, and optionally ,BATCH: the most requests taken in
// together (1 … 4096; 1, one at a time, without it).
func ParseFrontEnd(s string) (*FrontEnd, error) {
	switch t := strings.ToLower(strings.TrimSpace(s)); t {
	case "", "runtime":
		return nil, nil
	case "off", "none":
		return &FrontEnd{}, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 && len(parts) != 4 {
		return nil, fmt.Errorf("%q: want runtime, off, or LATENCY,REQUEST,TOKEN[,BATCH] (three durations such as 20ms,5ms,50us, then the most requests taken in together)", s)
	}
	batch := 0
	if len(parts) == 4 {
		b, err := strconv.Atoi(strings.TrimSpace(parts[3]))
		if err != nil || b < 1 || b > maxFrontEndBatch {
			return nil, fmt.Errorf("%q: BATCH must be a whole number of requests, 1 … %d", s, maxFrontEndBatch)
		}
		batch, parts = b, parts[:3]
	}
	var v [3]float64
	for i, p := range parts {
		x, err := units.ParseWait(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		v[i] = x
	}
	f := FrontEnd{Latency: v[0], Request: v[1], Token: v[2], Batch: batch}
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

// batchWait is how long vLLM's tokenizer waits, after the first prompt
// of a batch, for more to join it (AsyncMicrobatchTokenizer's
// batch_wait_timeout_s, 2 ms).
const batchWait = 0.002

// frontTo takes the arrived requests whose front-end work starts by time
// T through the front end's serial part, in arrival order: each then
// reaches the engine Latency after its work ends. A front end that takes
// requests in batches takes those that arrived by batchWait after the
// first's turn, up to Batch, and waits until then for them (unless the
// batch is full or no arrival is due); they reach the engine together,
// when the last one's work ends.
func (e *engine) frontTo(T float64) {
	f := &e.sv.FrontEnd
	for e.pend.len() > 0 {
		id := e.pend.front()
		start := math.Max(e.feBusy, e.recs[id].Arrival)
		if start > T {
			return
		}
		n := 1
		if f.Batch > 1 {
			until := start + batchWait
			if until > T && e.pend.len() < f.Batch && e.src.peek() <= until {
				return // more may join the batch
			}
			n = e.batchBy(until)
		}
		end := start
		for i := range n {
			end = math.Max(end, e.recs[e.pend.at(i)].Arrival) + f.Request
		}
		e.feWork += float64(n) * f.Request
		e.feBusy = end
		for range n {
			id := e.pend.popFront()
			e.reach[id] = end + f.Latency
			e.ready.pushBack(id)
		}
	}
}

// batchBy is how many requests the front end takes in together when they
// arrived by until: up to Batch, one at least.
func (e *engine) batchBy(until float64) int {
	n := 1
	for n < e.sv.FrontEnd.Batch && n < e.pend.len() && e.recs[e.pend.at(n)].Arrival <= until {
		n++
	}
	return n
}

// nextReach is when the next request reaches the engine through the
// front end with nothing else for it to do (+Inf when none will). For a
// front end taking requests in batches it may be earlier: the next
// arrival, or the end of a batch's wait, when frontTo decides the batch.
func (e *engine) nextReach() float64 {
	f := &e.sv.FrontEnd
	if e.ready.len() > 0 {
		return e.reach[e.ready.front()]
	}
	if e.pend.len() == 0 {
		at := e.src.peek()
		if f.Batch > 1 || math.IsInf(at, 1) {
			return at
		}
		return math.Max(e.feBusy, at) + f.Request + f.Latency
	}
	start := math.Max(e.feBusy, e.recs[e.pend.front()].Arrival)
	n := 1
	if f.Batch > 1 {
		until := start + batchWait
		if e.pend.len() < f.Batch && e.src.peek() <= until {
			return until
		}
		n = e.batchBy(until)
	}
	end := start
	for i := range n {
		end = math.Max(end, e.recs[e.pend.at(i)].Arrival) + f.Request
	}
	return end + f.Latency
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
		// The requests being taken in finish w later.
		for i := e.ready.len() - 1; i >= 0; i-- {
			id := e.ready.at(i)
			if e.reach[id]-e.sv.FrontEnd.Latency <= end {
				break
			}
			e.reach[id] += w
		}
		e.feBusy += w
	} else {
		e.feBusy = e.egBusy
	}
	return e.egBusy
}
