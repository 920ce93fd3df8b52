package serve

import (
	"math"

	"github.com/roofline/roofline/runtimes"
)

// arrival is one request taken from the source.
type arrival struct {
	at         float64
	prompt, o  int
	user       int32
	registered bool // counted in the series and the users already
}

// staticBatch is one batch of a static-batch server: its rows' records
// recs[from:to] (those that failed included), padded to pad prompt tokens
// and decoded for long − 1 steps.
type staticBatch struct {
	from, to          int
	rows, pad, long   int
	start, first, end float64
}

// runStatic is run for a static-batch server (runtimes.Static, TensorRT
// Edge-LLM's llm_inference): when the server is idle it takes up to
// MaxSeqs requests, those queued when it starts (the head's arrival if
// none waits), pads their prompts to the longest and prefills them as
// one batch, so every row's first token comes at once; then it decodes
// every row in lockstep until the longest output ends (a finished row
// keeps its place in the batch, as the runtime's decoding loop runs the
// whole batch while any row is unfinished), and only then takes the next
// batch. A row's last token is its Finish. Each batch is priced in closed
// form at its rows (sim.StepPricer.PrefillBatch, DecodeBatch: Predict at
// that batch).
func (e *engine) runStatic() {
	sv, sch := e.sv, &e.sch
	costs := make([]*aloneCosts, sch.MaxSeqs+1)
	costOf := func(rows int) *aloneCosts {
		if costs[rows] == nil {
			costs[rows] = newAloneCosts(e.pr, rows*sv.PassTokens, rows)
		}
		return costs[rows]
	}
	free := math.Inf(-1)
	var batches []staticBatch
	var ptrs staticPtrs
	last := math.Inf(-1)
	var carry *arrival
	take := func() *arrival {
		if carry != nil {
			a := carry
			carry = nil
			return a
		}
		at, p, o, user := e.src.pop()
		return &arrival{at: at, prompt: p, o: o, user: user}
	}
	next := func() float64 {
		if carry != nil {
			return carry.at
		}
		return e.src.peek()
	}
	register := func(a *arrival) {
		if a.registered {
			return
		}
		a.registered = true
		if math.IsNaN(e.first) {
			e.first, e.tPrev = a.at, a.at
		}
		e.sampleStatic(a.at-e.first, batches, &ptrs)
		if e.users != nil {
			e.users = append(e.users, a.user)
		}
	}
	for !math.IsInf(next(), 1) {
		head := take()
		register(head)
		start := math.Max(head.at, free)
		b := staticBatch{from: len(e.recs), start: start}
		var rows []*arrival
		for a := head; a != nil; {
			register(a)
			if !sch.Chunked && a.prompt > sv.StepTokens || e.pool.held(int64(a.prompt+a.o), 0, 0) > e.total {
				// A prompt no pass takes, or a request whose cache
				// the pool cannot hold alone, fails as it is taken,
				// taking no time.
				e.recs = append(e.recs, Record{Arrival: a.at, Start: start, First: -1, Finish: start, Prompt: int32(a.prompt), Output: int32(a.o), Failed: true})
			} else {
				pad, long := max(b.pad, a.prompt), max(b.long, a.o)
				if len(rows) > 0 && int64(len(rows)+1)*e.pool.held(int64(pad+long), 0, 0) > e.total {
					// The padded batch's cache would not fit: the
					// request heads the next batch.
					carry = a
					break
				}
				b.pad, b.long = pad, long
				rows = append(rows, a)
				e.recs = append(e.recs, Record{Arrival: a.at, Start: start, Prompt: int32(a.prompt), Output: int32(a.o)})
			}
			a = nil
			if len(rows) < sch.MaxSeqs && next() <= start {
				a = take()
			}
		}
		b.to, b.rows = len(e.recs), len(rows)
		b.first, b.end = start, start
		if b.rows > 0 {
			c := costOf(b.rows)
			pad := int64(b.pad)
			b.first = start + c.prefillOf(int32(b.pad))
			b.end = b.first + c.decodes(pad+1, pad+int64(b.long)-1)
			for i := b.from; i < b.to; i++ {
				r := &e.recs[i]
				if r.Failed {
					continue
				}
				r.First = b.first
				r.Finish = b.first + c.decodes(pad+1, pad+int64(r.Output)-1)
				r.Generated = r.Output
				e.itlAlone(c, b.pad, int(r.Output))
			}
			e.areaRun += float64(b.rows) * (b.end - start)
			e.steps += (b.pad*b.rows+c.ubatch-1)/c.ubatch + b.long - 1
			e.maxUsed = max(e.maxUsed, int64(b.rows)*e.pool.held(pad+int64(b.long), 0, 0))
			free = b.end
		}
		batches = append(batches, b)
		for i := b.from; i < b.to; i++ {
			r := &e.recs[i]
			e.area += r.Finish - r.Arrival
			last = math.Max(last, r.Finish)
		}
		if e.users != nil {
			for i := b.from; i < b.to; i++ {
				e.src.done(e.users[i], e.recs[i].Finish)
			}
		}
	}
	if len(e.recs) > 0 {
		e.sampleStatic(math.Max(last, free)-e.first, batches, &ptrs)
	}
}

// staticPtrs are the first request not yet arrived and the batch in
// service or next, at the series' last instant.
type staticPtrs struct{ arrived, batch int }

// sampleStatic records the server's state at the series' instants up to
// t (s after the first arrival): known once every request arriving by t
// is taken. Waiting are those arrived and not in a started batch; the
// batch in service runs all its rows, each holding the padded prompt
// (its share while prefilled) and the steps decoded so far.
func (e *engine) sampleStatic(t float64, batches []staticBatch, p *staticPtrs) {
	recs := e.recs
	for e.ser.next <= t {
		T := e.ser.next
		at := e.first + T
		for p.arrived < len(recs) && recs[p.arrived].Arrival <= at {
			p.arrived++
		}
		for p.batch < len(batches) && batches[p.batch].end <= at && batches[p.batch].start <= at {
			p.batch++
		}
		started := 0
		var s Sample
		if p.batch < len(batches) && batches[p.batch].start <= at {
			b := &batches[p.batch]
			started = b.to
			s.Running = b.rows
			held := heldAt(at, b.start, b.first, b.end, b.pad, b.long)
			s.KVUse = float64(int64(b.rows)*e.pool.decoding(int64(math.Ceil(held)), 0)) / float64(max(e.total, 1))
		} else if p.batch > 0 {
			started = batches[p.batch-1].to
		}
		s.T, s.Waiting = T, max(p.arrived-started, 0)
		e.ser.record(s)
	}
}

// static says whether the server runs static batches.
func (sv *Server) static() bool { return sv.Scheduler.Policy == runtimes.Static }
