package serve

import (
	"math"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// Targets are what goodput and the max-rate search hold requests to; a
// zero target always meets.
type Targets struct {
	TTFT, TPOT float64 // s
}

// meets says whether a completed request meets both targets.
func (t Targets) meets(r *Record) bool {
	if t.TTFT > 0 && r.TTFT() > t.TTFT {
		return false
	}
	if tp := r.TPOT(); t.TPOT > 0 && !math.IsNaN(tp) && tp > t.TPOT {
		return false
	}
	return true
}

// live is a request holding a place on the server: prefilling (kvp tokens
// to process, done of them computed) or decoding (its context at step k
// is base + k). Slots are reused; gen invalidates events of a slot's
// earlier occupant.
type live struct {
	id         int32
	kvp, done  int32
	shared     int32 // blocks of the shared prefix it references
	blocks     int32 // blocks held, while prefilling (or reserved)
	base       int64
	gen        uint32
	prev, next int32
	decoding   bool
	past       uint8 // the windows whose blocks its steps free (pool.past)
	user       int32
}

// event is a change in the decoding set at the start of step key: a
// request finishing (its last token came at the end of step key − 1) or
// crossing a sliding window.
type event struct {
	key  int64
	slot int32
	gen  uint32
	kind uint8 // evFinish, evCross, evPast
	win  uint8
}

const (
	evFinish uint8 = iota
	evCross
	evPast
)

type chunk struct {
	slot  int32
	depth int
	n     int
}

// keptPages are a preempted request's pages left in vLLM's free queue
// with their prefix-cache hashes (kv_cache_manager.py free: a request's
// blocks join the queue's tail, its last block first; block_pool.py
// get_new_blocks takes pages from the queue's head, evicting their
// hashes): ahead pages were free before them, at is allocs then, held
// the pages it left and cached the full blocks of its computed tokens.
// whole is true on a pool of several groups (sliding layers freeing their
// blocks), whose groups' pages join the queue group by group: a hit there
// needs the full groups' prefix and the sliding groups' last window, and
// which of them goes first is not modelled, so one page taken from them
// is taken to lose the hit.
type keptPages struct {
	at, ahead, held, cached int64
	whole                   bool
}

// engine is one run of a server over a workload.
type engine struct {
	sv  *Server
	sch runtimes.Scheduler
	pr  *sim.StepPricer
	bs  int64
	src *source
	tg  Targets

	recs    []Record
	users   []int32 // a closed loop's user of each request
	waiting deque
	slots   []live
	free    []int32
	head    int32
	tail    int32
	running int
	// prefilling are the slots processing prompts, in admission order.
	prefilling []int32
	chunks     []chunk
	completed  []int32

	nDec    int
	windows []int
	sums    []float64 // Σ min(ctx, w) of the decoding requests at step k
	below   []int     // decoding requests with ctx < w
	cross   []int32   // decoding requests by base mod block size
	events  []event
	// pool prices a request's blocks, pages each block of every group
	// takes; pastBy counts by base mod block size the decoding requests
	// whose steps free blocks of each sliding window (pool.past).
	pool   *pool
	pages  int64
	pastBy [][]int32

	used, total int64 // blocks
	// allocs counts the pages taken from the free pool so far, and kept
	// the pages each preempted request left cached there (keepsPreempted:
	// vLLM's prefix cache).
	allocs         int64
	kept           map[int32]keptPages
	keepsPreempted bool
	prefixOn       bool
	prefixReady    bool
	sharedBlocks   int64
	sharedTokens   int
	sharedHeld     bool
	decodeHeld     bool // this step's decode blocks are allocated

	k         int64
	t         float64
	tPrev     float64
	inSystem  int
	area      float64
	areaRun   float64
	first     float64
	itl       *histogram
	preempted int
	lastTok   map[int32]float64
	ser       *series
	maxUsed   int64 // the most KV blocks held at once
	steps     int
	// The front end (FrontEnd; feOn when it adds anything): requests
	// arrived and not yet through it (pend), through it and on their way
	// to the engine (ready, each reaching it at reach[id]), the time its
	// work taken so far ends, and that work's sum.
	feOn         bool
	pend, ready  deque
	reach        []float64
	feBusy       float64
	egBusy       float64 // when the tokens taken so far are through
	feWork       float64
	lag, prevLag float64 // a step's tokens' delivery after its end, this step's and the last
	// A pipeline's (sim.StepPricer.Overlap): stageFree is when each stage is
	// free within a step whose passes overlap on them (llama.cpp's
	// ubatches), own a pass's stage times; budget is a step's tokens,
	// one budget per micro-batch in flight (vLLM's virtual engines each
	// schedule their own), a request's chunk at most one.
	stageFree, own []float64
	budget         int
	// flow is when each stage is free of a lone request's prompt chunks
	// in flight, after the step's start (vLLM's virtual engines: a
	// request's next chunk is scheduled while the last is in flight;
	// flowChunk), zero when none is.
	flow []float64
	// check, when set (tests), runs after every step.
	check func(*engine)
}

// Run simulates the workload on the server and answers with every
// request's latencies, their percentiles and the server's state over time.
func (sv *Server) Run(w Workload, tg Targets) (*Result, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	src, err := newSource(w, sv.Context)
	if err != nil {
		return nil, err
	}
	e := sv.newEngine(src, tg)
	switch {
	case sv.static():
		e.runStatic()
	case sv.alone(w) && !e.feOn:
		e.runAlone()
	default:
		e.run()
	}
	return e.result(), nil
}

func (sv *Server) newEngine(src *source, tg Targets) *engine {
	sch := sv.Scheduler
	e := &engine{sv: sv, sch: sch, pr: sv.pricer, bs: int64(sch.BlockSize), src: src, tg: tg,
		recs: make([]Record, 0, src.n), head: -1, tail: -1, total: int64(sv.Blocks),
		windows: sv.pricer.Windows(), cross: make([]int32, sch.BlockSize), itl: newHistogram(),
		lastTok: map[int32]float64{}, first: math.NaN()}
	e.sums = make([]float64, len(e.windows))
	e.pool = &sv.pool
	e.pages = e.pool.groups()
	for range e.pool.wins {
		e.pastBy = append(e.pastBy, make([]int32, sch.BlockSize))
	}
	if sv.FrontEnd.On() {
		e.feOn = true
		e.reach = make([]float64, src.n)
		e.feBusy, e.egBusy = math.Inf(-1), math.Inf(-1)
	}
	e.below = make([]int, len(e.windows))
	e.budget = sv.StepTokens
	if n := e.pr.Stages(); n > 0 {
		e.own = make([]float64, n)
		switch e.pr.Overlap() {
		case sim.UBatchOverlap:
			e.stageFree = make([]float64, n)
		case sim.VirtualEngines:
			e.budget = sv.StepTokens * e.pr.MicroBatches(sch.MaxSeqs)
			e.flow = make([]float64, n)
		}
	}
	e.slots = make([]live, 0, min(sch.MaxSeqs, src.n))
	if src.w.Arrival == Closed {
		e.users = make([]int32, 0, src.n)
	}
	e.keepsPreempted = sch.PrefixCaching && sch.OnFull == runtimes.Recompute
	if S := src.w.SharedPrefix; sch.PrefixCaching && S >= sch.BlockSize {
		e.prefixOn = true
		e.sharedBlocks = int64(S / sch.BlockSize)
		e.sharedTokens = int(e.sharedBlocks) * sch.BlockSize
	}
	// A first guess of the series' spacing: 256 points over the arrivals.
	span := 1.0
	if w := src.w; w.Rate > 0 && w.Arrival != Trace {
		span = float64(src.n) / w.Rate
	}
	e.ser = newSeries(span/256, 256)
	return e
}

func (e *engine) run() {
	for {
		if e.running == 0 && e.waiting.len() == 0 {
			next := e.src.peek()
			if e.feOn {
				next = e.nextReach()
			}
			if math.IsInf(next, 1) {
				break
			}
			if !math.IsNaN(e.first) {
				e.ser.record(Sample{T: e.t - e.first, Preemptions: e.preempted, KVUse: float64(e.used) / float64(max(e.total, 1))})
			}
			e.t = math.Max(e.t, next)
			e.ingest(e.t, e.t)
			if e.waiting.len() == 0 {
				// A batch the front end took in on the way is not through
				// yet: look again for when it is.
				continue
			}
		}
		e.step()
	}
}

// ingest takes the arrivals up to time upTo into the queue, accounting
// the requests in the system at each; those that reach the engine (through
// the front end, which works up to upTo) after by wait outside the queue.
func (e *engine) ingest(upTo, by float64) {
	if !e.feOn {
		upTo = by
	}
	for e.src.peek() <= upTo {
		at, p, o, user := e.src.pop()
		if math.IsNaN(e.first) {
			e.first, e.tPrev = at, at
		}
		if at < e.tPrev && !e.feOn {
			// Taken in after the clock passed its arrival (async
			// scheduling): its time in the system so far.
			e.area += e.tPrev - at
		}
		e.areaTo(at)
		e.inSystem++
		id := int32(len(e.recs))
		e.recs = append(e.recs, Record{Arrival: at, Start: -1, First: -1, Finish: -1, Prompt: int32(p), Output: int32(o)})
		if e.users != nil {
			e.users = append(e.users, user)
		}
		if e.feOn {
			e.pend.pushBack(id)
		} else {
			e.waiting.pushBack(id)
		}
	}
	if e.feOn {
		e.frontTo(upTo)
		for e.ready.len() > 0 && e.reach[e.ready.front()] <= by {
			e.waiting.pushBack(e.ready.popFront())
		}
	}
}

// areaTo integrates the requests in the system up to time t (Little's law).
func (e *engine) areaTo(t float64) {
	if e.feOn {
		return // a request's tokens leave out of step order: depart sums its stay
	}
	if t > e.tPrev {
		e.area += float64(e.inSystem) * (t - e.tPrev)
		e.tPrev = t
	}
}

func (e *engine) residue(x int64) int {
	r := x % e.bs
	if r < 0 {
		r += e.bs
	}
	return int(r)
}

// stepPages is the pages the decoding requests take at step k: a block
// for every group of those whose context enters a new block, less a
// block of each sliding group of those whose window leaves one.
func (e *engine) stepPages(k int64) int64 {
	need := e.pages * int64(e.cross[e.residue(1-k)])
	for j, w := range e.pool.wins {
		need -= e.pool.slid[j] * int64(e.pastBy[j][e.residue(w-k)])
	}
	return need
}

// step schedules and runs one step at time e.t.
func (e *engine) step() {
	sch, k, t := &e.sch, e.k, e.t
	preempted := false
	e.decodeHeld = false
	if e.nDec > 0 && sch.OnFull != runtimes.Reserve {
		need := e.stepPages(k)
		for need > e.total-e.used && e.tail >= 0 {
			need -= e.evict(e.tail)
			preempted = true
		}
		e.used += need
		e.allocs += max(need, 0)
		e.decodeHeld = true
	}
	budget := e.budget - e.nDec
	chunks := e.chunks[:0]
	for i := 0; i < len(e.prefilling) && budget > 0; i++ {
		s := e.prefilling[i]
		l := &e.slots[s]
		n := min(int(l.kvp-l.done), budget, e.sv.StepTokens)
		if sch.OnFull != runtimes.Reserve {
			need := e.pool.held(int64(l.done)+int64(n), int64(l.done), l.shared) - int64(l.blocks)
			for need > e.total-e.used && e.tail != s {
				if e.slots[e.tail].decoding {
					budget++ // a preempted decode gives its token back
				}
				e.evict(e.tail)
				preempted = true
			}
			if need > e.total-e.used {
				e.evict(s) // nothing newer to preempt: it waits again
				preempted = true
				break
			}
			e.used += need
			e.allocs += max(need, 0)
			l.blocks += int32(need)
		}
		chunks = append(chunks, chunk{s, int(l.done), n})
		budget -= n
	}
	if !preempted {
		chunks = e.admit(chunks, budget)
	}
	e.chunks = chunks
	// The step's blocks are all held now: a prompt's last chunk holds
	// every group's, which promptDone shrinks to its decoding context.
	e.maxUsed = max(e.maxUsed, e.used)
	if e.nDec == 0 && len(chunks) == 0 {
		if !preempted {
			e.unblock()
		}
		return
	}
	dur := e.price(chunks)
	e.finishStep(chunks, t+dur, dur)
}

// admit takes waiting requests while a place, the step's budget and the
// KV cache allow (vLLM: only in a step that preempted nothing).
func (e *engine) admit(chunks []chunk, budget int) []chunk {
	sch := &e.sch
	for e.waiting.len() > 0 && e.running < sch.MaxSeqs && budget > 0 {
		id := e.waiting.front()
		r := &e.recs[id]
		kvp := int(r.Prompt) + int(r.Generated)
		cached, shared := 0, int32(0)
		if e.prefixOn {
			shared = int32(e.sharedBlocks)
			if e.prefixReady {
				cached = min(e.sharedTokens, kvp-1)
			}
		}
		var hit int64 // pages of its own it finds cached
		if e.keepsPreempted && len(e.kept) > 0 {
			if k, ok := e.kept[id]; ok && (!e.prefixOn || e.prefixReady) {
				if b := k.survivors(e.allocs); b > 0 {
					cached = min(cached+int(b)*int(e.bs), kvp-1)
					hit = e.pool.held(int64(cached), int64(cached), shared)
				}
			}
		}
		n := min(kvp-cached, budget, e.sv.StepTokens)
		if !sch.Chunked && n < kvp-cached {
			break
		}
		var need int64
		if sch.OnFull == runtimes.Reserve {
			need = e.pool.held(int64(r.Prompt)+int64(r.Output), 0, shared)
		} else {
			need = e.pool.held(int64(cached+n), int64(cached), shared)
		}
		extra := int64(0)
		if e.prefixOn && !e.sharedHeld {
			extra = e.sharedBlocks * e.pages
		}
		if need+extra > e.total-e.used {
			break
		}
		e.waiting.popFront()
		if e.kept != nil {
			delete(e.kept, id)
		}
		e.used += need + extra
		e.allocs += need + extra - hit // its cached pages leave the queue's middle
		e.sharedHeld = e.sharedHeld || e.prefixOn
		s := e.newSlot()
		l := &e.slots[s]
		*l = live{id: id, kvp: int32(kvp), done: int32(cached), shared: shared, blocks: int32(need), gen: l.gen, prev: e.tail, next: -1}
		if e.users != nil {
			l.user = e.users[id]
		}
		if e.tail >= 0 {
			e.slots[e.tail].next = s
		} else {
			e.head = s
		}
		e.tail = s
		e.running++
		e.prefilling = append(e.prefilling, s)
		if r.Start < 0 {
			r.Start = e.t
		}
		chunks = append(chunks, chunk{s, cached, n})
		budget -= n
	}
	return chunks
}

func (e *engine) newSlot() int32 {
	if n := len(e.free); n > 0 {
		s := e.free[n-1]
		e.free = e.free[:n-1]
		return s
	}
	e.slots = append(e.slots, live{})
	return int32(len(e.slots) - 1)
}

// unblock handles a step in which nothing can run: the head of the queue
// cannot be admitted even with the server idle (a prompt longer than a
// step that may not be chunked, or no room in the cache), so it fails.
func (e *engine) unblock() {
	if e.running > 0 {
		e.fail(e.tail)
		return
	}
	id := e.waiting.popFront()
	r := &e.recs[id]
	r.Failed, r.Finish = true, e.t
	e.depart(id, e.t)
}

// price is the step's time: its passes, each priced by sim.StepPricer.
func (e *engine) price(chunks []chunk) float64 {
	pr := e.pr
	var dec sim.Attention
	if e.nDec > 0 {
		dec = pr.Decodes(e.sums)
	}
	if e.own != nil && pr.Overlap() == sim.VirtualEngines {
		if e.nDec == 0 && len(chunks) == 1 {
			return e.flowChunk(chunks[0])
		}
		return e.afterFlow(e.round(chunks, dec))
	}
	if len(chunks) == 0 {
		if p := e.sv.PassTokens; e.stageFree != nil && e.nDec > p {
			// llama.cpp's ubatches of a decode step through the stages,
			// as Split.Predict prices them: m alike, the batch's share.
			m := (e.nDec + p - 1) / p
			rows := (e.nDec + m - 1) / m
			pr.PipelineStage(e.own, rows, rows, false, dec.Scale(1/float64(m)))
			clear(e.stageFree)
			end := 0.0
			for range m {
				end = sim.Through(e.stageFree, e.own)
			}
			return end
		}
		return pr.Pass(e.nDec, e.nDec, false, dec)
	}
	tokens := e.nDec
	for _, c := range chunks {
		tokens += c.n
	}
	pass := e.sv.PassTokens
	if tokens <= pass {
		a, logits := dec, e.nDec
		for _, c := range chunks {
			a.Add(pr.Chunk(c.depth, c.n))
			if l := &e.slots[c.slot]; int(l.done)+c.n == int(l.kvp) {
				logits++
			}
		}
		return pr.Pass(tokens, logits, true, a)
	}
	// A step larger than a pass (llama.cpp -b over -ub): the decodes
	// first, then the prompt tokens in order, pass by pass.
	total := 0.0
	room, rows, logits, prompt := pass-e.nDec, e.nDec, e.nDec, false
	a := dec
	clear(e.stageFree)
	flush := func() {
		switch {
		case rows > 0 && e.stageFree != nil:
			// Through the pipeline's stages, each pass after the last.
			pr.PipelineStage(e.own, rows, logits, prompt, a)
			total = sim.Through(e.stageFree, e.own)
		case rows > 0:
			total += pr.Pass(rows, logits, prompt, a)
		}
		a, rows, logits, prompt, room = sim.Attention{}, 0, 0, false, pass
	}
	if room <= 0 {
		flush()
	}
	for _, c := range chunks {
		l := &e.slots[c.slot]
		for off := 0; off < c.n; {
			m := min(c.n-off, room)
			a.Add(pr.Chunk(c.depth+off, m))
			rows += m
			room -= m
			prompt = true
			off += m
			if off == c.n && int(l.done)+c.n == int(l.kvp) {
				logits++
			}
			if room == 0 {
				flush()
			}
		}
	}
	flush()
	return total
}

// round is a step of a pipeline whose requests step in micro-batches in
// flight (vLLM's virtual engines, sim.Round): every request of the step
// once, in as many micro-batches as stages (at most one a request), each
// stage taking a mean micro-batch's share of the step for each, the
// micro-batch holding the largest prompt chunk no faster than that
// chunk's trip.
func (e *engine) round(chunks []chunk, dec sim.Attention) float64 {
	pr := e.pr
	a, logits, tokens := dec, e.nDec, e.nDec
	longest, big := 0.0, -1
	for i, c := range chunks {
		tokens += c.n
		a.Add(pr.Chunk(c.depth, c.n))
		if int(e.slots[c.slot].done)+c.n == int(e.slots[c.slot].kvp) {
			logits++
		}
		if big < 0 || c.n > chunks[big].n {
			big = i
		}
	}
	m := pr.MicroBatches(e.nDec + len(chunks))
	if big >= 0 && m > 1 {
		c := chunks[big]
		longest = pr.Pass(c.n, 1, true, pr.Chunk(c.depth, c.n))
	}
	k := float64(m)
	pr.PipelineStage(e.own, (tokens+m-1)/m, (logits+m-1)/m, len(chunks) > 0, a.Scale(1/k))
	return sim.Round(e.own, m, longest)
}

// flowChunk is a step of one prompt chunk and nothing else on a pipeline
// of virtual engines: the chunk follows the one before it through the
// stages (sim.Through from e.flow), and the step ends, for the scheduler,
// when the chunk leaves the first stage and the next may enter it
// (flowStep). vLLM's V1 scheduler advances a request's computed tokens
// as it schedules a chunk, so the next step schedules the prompt's next
// chunk, and its engine core schedules that step while the last is in
// flight (step_with_batch_queue, max_concurrent_batches = PP): a lone
// prompt's chunks fill the pipeline once, as Split.Predict's pipelined
// prefill prices them. The chunk that ends the prompt ends its step when
// it leaves the last stage, with its token.
func (e *engine) flowChunk(c chunk) float64 {
	pr := e.pr
	logits := 0
	last := int(e.slots[c.slot].done)+c.n == int(e.slots[c.slot].kvp)
	if last {
		logits = 1
	}
	pr.PipelineStage(e.own, c.n, logits, true, pr.Chunk(c.depth, c.n))
	return flowStep(e.flow, e.own, last)
}

// flowStep sends a pass whose stages take own into a pipeline whose
// stage i is free from ready[i] after the step's start (sim.Through),
// and is the step's time: until the pass leaves the first stage, ready
// moved on to the next step's start, or, when it is the last, until it
// leaves the last stage, ready cleared (nothing left in flight).
func flowStep(ready, own []float64, last bool) float64 {
	end := sim.Through(ready, own)
	if last {
		clear(ready)
		return end
	}
	dur := ready[0]
	for i := range ready {
		ready[i] -= dur
	}
	return dur
}

// afterFlow is a virtual engines' step of time round (Round) that
// follows a lone prompt's chunks still in flight: no shorter than its
// mean micro-batch's way through the stages as they free (sim.Through
// from e.flow), which is round's own trip when none is in flight. The
// pipeline is then empty.
func (e *engine) afterFlow(round float64) float64 {
	if e.flow[len(e.flow)-1] <= 0 { // stages free in order: the last latest
		return round
	}
	end := math.Max(round, sim.Through(e.flow, e.own))
	clear(e.flow)
	return end
}

// finishStep moves the clock to end: the decodes emit their tokens, the
// chunks advance, finished prompts emit theirs, and the decoding set
// moves to the next step.
func (e *engine) finishStep(chunks []chunk, end, dur float64) {
	e.steps++
	e.areaRun += float64(e.running) * dur
	done := e.completed[:0]
	for _, c := range chunks {
		l := &e.slots[c.slot]
		l.done += int32(c.n)
		if e.prefixOn && !e.prefixReady && int(l.done) >= e.sharedTokens {
			e.prefixReady = true
		}
		if l.done == l.kvp {
			done = append(done, c.slot)
		}
	}
	// The next step was scheduled when this one started, under async
	// scheduling: what reached the server since waits for the one after.
	by := end
	if e.sch.Async {
		by = end - dur
	}
	e.ingest(end, by)
	// The step's tokens reach their clients through the front end: its
	// decodes' and the finished prompts' first.
	nDec := e.nDec
	deliv := e.stream(end, nDec+len(done))
	e.lag = deliv - end
	e.itl.add(dur+e.lag-e.prevLag, float64(nDec))
	e.prevLag = e.lag
	e.areaTo(end)
	e.t = end
	e.k++
	e.decodeHeld = false
	// The decoding set at the new step: every context one longer.
	for j, w := range e.windows {
		if w == 0 {
			e.sums[j] += float64(e.nDec)
		} else {
			e.sums[j] += float64(e.below[j])
		}
	}
	e.popEvents()
	for _, s := range done {
		e.promptDone(s, deliv)
	}
	e.completed = done
	e.ingest(end, by)
	e.maxUsed = max(e.maxUsed, e.used)
	used := float64(e.used) / float64(max(e.total, 1))
	e.ser.record(Sample{T: end - e.first, Waiting: e.waiting.len(), Running: e.running, KVUse: used, Preemptions: e.preempted})
	if e.check != nil {
		e.check(e)
	}
}

// popEvents applies the events due at step e.k.
func (e *engine) popEvents() {
	for len(e.events) > 0 && e.events[0].key <= e.k {
		ev := e.popEvent()
		l := &e.slots[ev.slot]
		if l.gen != ev.gen || !l.decoding {
			continue
		}
		switch ev.kind {
		case evCross:
			e.below[ev.win]--
		case evPast:
			l.past |= 1 << ev.win
			e.pastBy[ev.win][e.residue(l.base)]++
		case evFinish:
			r := &e.recs[l.id]
			r.Generated, r.Finish = r.Output, e.t+e.lag
			e.removeDecoder(ev.slot)
			e.release(ev.slot)
			e.depart(l.id, r.Finish)
		}
	}
}

// promptDone is a slot whose prompt (or recomputation) completed at end:
// it emits a token, then decodes from the next step or finishes.
func (e *engine) promptDone(s int32, end float64) {
	l := &e.slots[s]
	r := &e.recs[l.id]
	e.prefilling = remove(e.prefilling, s)
	g := l.kvp - r.Prompt + 1 // tokens generated with this one
	if r.First < 0 {
		r.First = end
	} else if last, ok := e.lastTok[l.id]; ok {
		e.itl.add(end-last, 1)
		delete(e.lastTok, l.id)
	}
	r.Generated = g
	if g >= r.Output {
		r.Finish = end
		e.used -= int64(l.blocks)
		e.release(s)
		e.depart(l.id, end)
		return
	}
	// Its first decode step attends kvp + 1 keys.
	l.decoding = true
	l.base = int64(l.kvp) + 1 - e.k
	e.addDecoder(s)
}

// addDecoder puts slot s into the decoding sums at step e.k.
func (e *engine) addDecoder(s int32) {
	l := &e.slots[s]
	ctx := l.base + e.k
	for j, w := range e.windows {
		if w == 0 {
			e.sums[j] += float64(ctx)
			continue
		}
		e.sums[j] += float64(min(ctx, int64(w)))
		if ctx < int64(w) {
			e.below[j]++
			e.pushEvent(event{key: int64(w) - l.base, slot: s, gen: l.gen, kind: evCross, win: uint8(j)})
		}
	}
	if e.sch.OnFull != runtimes.Reserve {
		// Its blocks now follow its context.
		e.used -= int64(l.blocks)
		e.used += e.pool.decoding(ctx-1, l.shared)
		l.blocks = 0
		l.past = 0
		for j := range e.pool.wins {
			if from := e.pool.past(j, l.shared); ctx >= from {
				l.past |= 1 << j
				e.pastBy[j][e.residue(l.base)]++
			} else {
				e.pushEvent(event{key: from - l.base, slot: s, gen: l.gen, kind: evPast, win: uint8(j)})
			}
		}
	}
	e.cross[e.residue(l.base)]++
	e.nDec++
	r := &e.recs[l.id]
	e.pushEvent(event{key: int64(r.Prompt) + int64(r.Output) - l.base, slot: s, gen: l.gen, kind: evFinish})
}

// removeDecoder takes slot s out of the decoding sums at step e.k and
// frees the blocks its context holds (with this step's, once allocated).
func (e *engine) removeDecoder(s int32) {
	l := &e.slots[s]
	ctx := l.base + e.k
	for j, w := range e.windows {
		if w == 0 {
			e.sums[j] -= float64(ctx)
			continue
		}
		e.sums[j] -= float64(min(ctx, int64(w)))
		if ctx < int64(w) {
			e.below[j]--
		}
	}
	res := e.residue(l.base)
	e.cross[res]--
	e.nDec--
	l.decoding = false
	if e.sch.OnFull == runtimes.Reserve {
		e.used -= int64(l.blocks)
		return
	}
	for j := range e.pool.wins {
		if l.past&(1<<j) != 0 {
			e.pastBy[j][res]--
		}
	}
	l.past = 0
	held := ctx - 1
	if e.decodeHeld {
		held = ctx // this step's blocks are allocated, its skipped ones freed
	}
	e.used -= e.pool.decoding(held, l.shared)
}

// stepDelta is the pages decoding slot s's step takes (negative: frees).
func (e *engine) stepDelta(s int32) int64 {
	l := &e.slots[s]
	ctx := l.base + e.k
	return e.pool.decoding(ctx, l.shared) - e.pool.decoding(ctx-1, l.shared)
}

// release frees slot s's place on the server.
func (e *engine) release(s int32) {
	l := &e.slots[s]
	if l.prev >= 0 {
		e.slots[l.prev].next = l.next
	} else {
		e.head = l.next
	}
	if l.next >= 0 {
		e.slots[l.next].prev = l.prev
	} else {
		e.tail = l.prev
	}
	l.gen++
	l.decoding = false
	e.running--
	e.free = append(e.free, s)
}

// depart is request id leaving the system at t.
func (e *engine) depart(id int32, t float64) {
	if e.feOn {
		e.area += t - e.recs[id].Arrival
	}
	e.areaTo(t)
	e.inSystem--
	if e.users != nil {
		e.src.done(e.users[id], t)
	}
}

// evict makes room in the KV cache by slot s, the newest running request:
// preempted to be recomputed, or failed. It answers the pages s's decode
// took this step (stepDelta; 0 for a prefill).
func (e *engine) evict(s int32) (delta int64) {
	if e.sch.OnFull == runtimes.Fail {
		return e.fail(s)
	}
	l := &e.slots[s]
	r := &e.recs[l.id]
	k := keptPages{at: e.allocs, ahead: e.total - e.used, whole: e.pool.frees()}
	if l.decoding {
		ctx := l.base + e.k
		delta = e.stepDelta(s)
		r.Generated = int32(ctx) - r.Prompt
		e.lastTok[l.id] = e.t
		used := e.used
		e.removeDecoder(s)
		k.held, k.cached = used-e.used, (ctx-1)/e.bs-int64(l.shared)
	} else {
		e.used -= int64(l.blocks)
		e.prefilling = remove(e.prefilling, s)
		k.held, k.cached = int64(l.blocks), int64(l.done)/e.bs-int64(l.shared)
	}
	if e.keepsPreempted && k.cached > 0 {
		if e.kept == nil {
			e.kept = map[int32]keptPages{}
		}
		e.kept[l.id] = k
	}
	r.Preemptions++
	e.preempted++
	id := l.id
	e.release(s)
	e.waiting.pushFront(id)
	return delta
}

// survivors is how many of the kept pages still hold their hashes once
// allocs pages have been taken from the free pool: the queue's head is
// taken first, so past its `ahead` pages every page taken evicts one of
// these, the request's last first; the full blocks of its prefix left
// are what vLLM's get_computed_blocks finds.
func (k keptPages) survivors(allocs int64) int64 {
	evicted := min(max(allocs-k.at-k.ahead, 0), k.held)
	if k.whole && evicted > 0 {
		return 0
	}
	return max(min(k.cached, k.held-evicted), 0)
}

// fail ends slot s's request with an error (the cache has no room).
func (e *engine) fail(s int32) (delta int64) {
	l := &e.slots[s]
	r := &e.recs[l.id]
	if l.decoding {
		ctx := l.base + e.k
		delta = e.stepDelta(s)
		r.Generated = int32(ctx) - r.Prompt
		e.removeDecoder(s)
	} else {
		e.used -= int64(l.blocks)
		e.prefilling = remove(e.prefilling, s)
	}
	r.Failed, r.Finish = true, e.t
	id := l.id
	e.release(s)
	e.depart(id, e.t)
	return delta
}

func remove(xs []int32, x int32) []int32 {
	for i, v := range xs {
		if v == x {
			return append(xs[:i], xs[i+1:]...)
		}
	}
	return xs
}

// pushEvent and popEvent keep e.events a min-heap by key.
func (e *engine) pushEvent(ev event) {
	e.events = append(e.events, ev)
	h := e.events
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].key <= h[i].key {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *engine) popEvent() event {
	h := e.events
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h[l].key < h[m].key {
			m = l
		}
		if r < n && h[r].key < h[m].key {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	e.events = h
	return top
}

// deque is a ring buffer of request ids.
type deque struct {
	buf        []int32
	head, size int
}

func (d *deque) len() int { return d.size }

func (d *deque) grow() {
	if d.size < len(d.buf) {
		return
	}
	n := make([]int32, max(16, 2*len(d.buf)))
	for i := range d.size {
		n[i] = d.buf[(d.head+i)%len(d.buf)]
	}
	d.buf, d.head = n, 0
}

func (d *deque) pushBack(x int32) {
	d.grow()
	d.buf[(d.head+d.size)%len(d.buf)] = x
	d.size++
}

func (d *deque) pushFront(x int32) {
	d.grow()
	d.head = (d.head - 1 + len(d.buf)) % len(d.buf)
	d.buf[d.head] = x
	d.size++
}

func (d *deque) front() int32 { return d.buf[d.head] }

// at is the i-th element from the front.
func (d *deque) at(i int) int32 { return d.buf[(d.head+i)%len(d.buf)] }

func (d *deque) popFront() int32 {
	x := d.buf[d.head]
	d.head = (d.head + 1) % len(d.buf)
	d.size--
	return x
}

// result summarises the run.
func (e *engine) result() *Result {
	res := &Result{Requests: len(e.recs), Clamped: e.src.clamped, Preemptions: e.preempted, Steps: e.steps, MaxKVUse: float64(e.maxUsed) / float64(max(e.total, 1)), Records: e.recs, Series: e.ser.points}
	n := len(e.recs)
	ttft, tpot, e2e, queue := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	last, tokens, meeting := math.Inf(-1), 0.0, 0
	for i := range e.recs {
		r := &e.recs[i]
		last = math.Max(last, r.Finish)
		if r.Failed {
			res.Failed++
			continue
		}
		res.Completed++
		tokens += float64(r.Output)
		ttft = append(ttft, r.TTFT())
		tpot = append(tpot, r.TPOT())
		e2e = append(e2e, r.E2E())
		queue = append(queue, r.Queue())
		if e.tg.meets(r) {
			meeting++
		}
	}
	res.TTFT, res.TPOT, res.E2E, res.Queue = statsOf(ttft), statsOf(tpot), statsOf(e2e), statsOf(queue)
	res.ITL = e.itl.stats()
	res.FrontEnd = e.sv.FrontEnd
	if n > 0 {
		res.Duration = last - e.first
		if span := e.recs[n-1].Arrival - e.first; span > 0 {
			res.OfferedRate = float64(n-1) / span
		}
	}
	if res.Duration > 0 {
		res.Throughput = tokens / res.Duration
		res.RequestRate = float64(res.Completed) / res.Duration
		res.Goodput = float64(meeting) / res.Duration
		res.MeanInSystem = e.area / res.Duration
		res.MeanRunning = e.areaRun / res.Duration
		res.FrontEndUse = e.feWork / res.Duration
	}
	if res.Completed > 0 {
		res.MeetingShare = float64(meeting) / float64(res.Completed)
	}
	return res
}
