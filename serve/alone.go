package serve

import (
	"math"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// alone says whether the server runs one request at a time with nothing
// that couples one request to another (RKLLM, gpt-fast, any server at
// --max-seqs 1 whose step is whole passes, without a shared prefix to
// reuse): each request's service is then its own prefill and decode,
// priced in closed form, and the queue a single-server FIFO, so a run
// needs no step loop (runAlone).
func (sv *Server) alone(w Workload) bool {
	sch := &sv.Scheduler
	shared := sch.PrefixCaching && w.SharedPrefix >= sch.BlockSize
	// A split's stages are stepped: their closed forms are sums over
	// passes.
	return sch.MaxSeqs == 1 && sv.StepTokens%sv.PassTokens == 0 && !shared && !sv.pricer.Staged()
}

// aloneCosts caches a one-at-a-time server's closed forms: the prefill of
// each prompt length, and the running sum of decode steps by context, so
// a request costs a few map reads whatever its lengths.
type aloneCosts struct {
	pr      *sim.StepPricer
	ubatch  int
	batch   int // the rows priced together: 1 alone, a static batch's rows
	prefill map[int32]float64
	cum     map[int64]float64
}

// newAloneCosts is the closed forms of `batch` rows in lockstep.
func newAloneCosts(pr *sim.StepPricer, ubatch, batch int) *aloneCosts {
	return &aloneCosts{pr: pr, ubatch: ubatch, batch: batch, prefill: map[int32]float64{}, cum: map[int64]float64{}}
}

// prefillOf is a prompt's prefill alone.
func (c *aloneCosts) prefillOf(p int32) float64 {
	t, ok := c.prefill[p]
	if !ok {
		t = c.pr.PrefillBatch(int(p), c.batch, c.ubatch)
		c.prefill[p] = t
	}
	return t
}

// upTo is Σ of the decode steps attending 1 … x keys (0 for x < 1).
func (c *aloneCosts) upTo(x int64) float64 {
	if x < 1 {
		return 0
	}
	t, ok := c.cum[x]
	if !ok {
		t = c.pr.DecodeBatch(1, int(x), c.batch)
		c.cum[x] = t
	}
	return t
}

// decodes is the steps attending a … b keys.
func (c *aloneCosts) decodes(a, b int64) float64 {
	if b < a {
		return 0
	}
	return c.upTo(b) - c.upTo(a-1)
}

// itlSpread is the widest relative spread of step times counted at one
// mean in the inter-token histogram: half a bucket.
const itlSpread = (histBase - 1) / 2

// runAlone is run for a one-at-a-time server: requests in arrival order,
// each starting when it arrives or the one before it finishes, its first
// token after its prefill, its last after output − 1 decode steps. The
// records, histogram, integrals and series are those the step loop keeps.
func (e *engine) runAlone() {
	sv, sch := e.sv, &e.sch
	c := newAloneCosts(e.pr, sv.PassTokens, 1)
	free := math.Inf(-1) // when the server is next idle
	var ptrs alonePtrs
	last := math.Inf(-1)
	for !math.IsInf(e.src.peek(), 1) {
		at, p, o, user := e.src.pop()
		if math.IsNaN(e.first) {
			e.first, e.tPrev = at, at
		}
		e.sampleAlone(at-e.first, &ptrs)
		if e.users != nil {
			e.users = append(e.users, user)
		}
		start := math.Max(at, free)
		r := Record{Arrival: at, Start: start, Prompt: int32(p), Output: int32(o)}
		if !sch.Chunked && p > sv.StepTokens {
			// A prompt that may not be chunked and fits no step fails
			// at the head of the queue, taking no time.
			r.Failed, r.First, r.Finish = true, -1, start
		} else {
			pre := c.prefillOf(r.Prompt)
			dec := c.decodes(int64(p)+1, int64(p)+int64(o)-1)
			r.First, r.Finish, r.Generated = start+pre, start+pre+dec, r.Output
			e.areaRun += pre + dec
			e.steps += (p+sv.StepTokens-1)/sv.StepTokens + o - 1
			e.itlAlone(c, p, o)
			e.maxUsed = max(e.maxUsed, e.aloneHeld(int64(p), int64(o)))
			free = r.Finish
		}
		e.recs = append(e.recs, r)
		e.area += r.Finish - r.Arrival
		last = math.Max(last, r.Finish)
		if e.users != nil {
			e.src.done(user, r.Finish)
		}
	}
	if len(e.recs) > 0 {
		e.sampleAlone(last-e.first, &ptrs)
	}
}

// aloneHeld is the most pages a lone request of p prompt and o output
// tokens holds: its whole length reserved, or the larger of its prompt's
// last chunk (every group's blocks, those before the chunk's window
// skipped) and its last decode step.
func (e *engine) aloneHeld(p, o int64) int64 {
	if e.sch.OnFull == runtimes.Reserve {
		return e.pool.held(p+o, 0, 0)
	}
	step := int64(e.sv.StepTokens)
	last := (p - 1) / step * step // computed before the last chunk
	return max(e.pool.held(p, last, 0), e.pool.decoding(p+o-1, 0))
}

// itlAlone counts a request's output − 1 decode steps in the inter-token
// histogram: in runs whose steps differ by under half a bucket, each at
// its run's mean (a step's time grows with its context).
func (e *engine) itlAlone(c *aloneCosts, p, o int) {
	steps := o - 1
	if steps <= 0 {
		return
	}
	a, b := int64(p)+1, int64(p)+int64(steps)
	lo, hi := c.decodes(a, a), c.decodes(b, b)
	runs := 1
	if hi > lo*(1+itlSpread) {
		runs = min(steps, 64, int(math.Ceil((hi/lo-1)/itlSpread)))
	}
	for i := range runs {
		x := a + int64(i)*int64(steps)/int64(runs)
		y := a + int64(i+1)*int64(steps)/int64(runs) - 1
		if n := y - x + 1; n > 0 {
			e.itl.add(c.decodes(x, y)/float64(n), float64(n))
		}
	}
}

// heldAt is the tokens a request (or a static batch's row) started at
// start, first token at first and last at end holds at instant at: its
// prompt's share while prefilled, then the prompt and the steps of its
// output − 1 decoded so far, evenly spaced up to end.
func heldAt(at, start, first, end float64, prompt, output int) float64 {
	held := float64(prompt)
	if at >= first && output > 1 {
		held += math.Floor((at - first) / ((end - first) / float64(output-1)))
	} else if at < first {
		held *= (at - start) / (first - start)
	}
	return held
}

// alonePtrs are the first requests not yet arrived and not yet started
// at the series' last instant.
type alonePtrs struct{ arrived, started int }

// sampleAlone records the server's state at the series' instants up to
// t (s after the first arrival): known once every request arriving by t
// is, as the requests are taken in arrival order. Waiting are those
// arrived and not started; the one in service holds its prompt and the
// tokens generated so far (its prompt's share while it is prefilled).
func (e *engine) sampleAlone(t float64, p *alonePtrs) {
	recs := e.recs
	for e.ser.next <= t {
		T := e.ser.next
		at := e.first + T
		for p.arrived < len(recs) && recs[p.arrived].Arrival <= at {
			p.arrived++
		}
		for p.started < len(recs) && recs[p.started].Start <= at {
			p.started++
		}
		s := Sample{T: T, Waiting: max(p.arrived-p.started, 0)}
		if k := p.started - 1; k >= 0 && recs[k].Finish > at && !recs[k].Failed {
			r := &recs[k]
			s.Running = 1
			held := heldAt(at, r.Start, r.First, r.Finish, int(r.Prompt), int(r.Output))
			s.KVUse = float64(e.pool.decoding(int64(math.Ceil(held)), 0)) / float64(max(e.total, 1))
		}
		e.ser.record(s)
	}
}
