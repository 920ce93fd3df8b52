package sim

import "github.com/roofline/roofline/limits"

// Limit is a constraint a configuration can fail; a small integer so that
// millions of configurations hold no pointers for the collector to scan.
type Limit uint8

// The constraints, in the order a configuration is checked.
const (
	LimitNone Limit = iota
	LimitMemory
	LimitTTFT
	LimitTPOT
	LimitThroughput
)

func (l Limit) String() string {
	return [...]string{"", "memory", "ttft", "tpot", "throughput"}[l]
}

// LimitSet is every constraint a configuration fails, a bit per Limit.
type LimitSet uint8

// Has says whether the set holds l.
func (s LimitSet) Has(l Limit) bool { return s&(1<<l) != 0 }

// Names are the set's constraints in the order they are checked.
func (s LimitSet) Names() []string {
	var out []string
	for l := LimitMemory; l <= LimitThroughput; l++ {
		if s.Has(l) {
			out = append(out, l.String())
		}
	}
	return out
}

// Targets are what a planned configuration must meet; zero means no target.
type Targets struct {
	TTFT          float64 // s, for the prompt on top of the history
	TPOT          float64 // s, the inter-token latency at the end of the context
	MinThroughput float64 // tokens/s over the batch at the end of the context
	Headroom      float64 // share of usable memory kept free, in [0, 1)
	// Confidence is how sure a "meets" must be, in (0, 1); zero means
	// DefaultConfidence.
	Confidence float64
}

// Validate checks each target given against its physical range
// (limits.Latency, limits.Rate); 0 is no target.
func (t Targets) Validate() error {
	for _, f := range []struct {
		field string
		v     float64
		r     limits.Range
	}{{"TTFT", t.TTFT, limits.Latency}, {"TPOT", t.TPOT, limits.Latency}, {"MinThroughput", t.MinThroughput, limits.Rate}} {
		if f.v != 0 {
			if err := f.r.Check(f.v); err != nil {
				return &FieldError{f.field, err.Error()}
			}
		}
	}
	return nil
}

// ConfidenceLevel is how sure a "meets" must be: t.Confidence, or the
// default.
func (t Targets) ConfidenceLevel() float64 { return t.confidence() }

// confidence is t.Confidence, or the default.
func (t Targets) confidence() float64 {
	if t.Confidence > 0 && t.Confidence < 1 {
		return t.Confidence
	}
	return DefaultConfidence
}

// Config is one planned configuration of a Setup: a request of the planned
// prompt and output whose history makes the sequence Context tokens long
// at the end. It is kept small: a full-catalog plan holds millions.
type Config struct {
	Context int // tokens per sequence at the end: history + prompt + output
	Batch   int

	TTFT float64 // s, for the prompt on top of the history
	TPOT float64 // s, ITL of the last step (the largest KV cache)
	// Throughput is the aggregate decode rate at the last step, tokens/s:
	// the batch's under continuous batching, one sequence's when requests
	// queue.
	Throughput float64
	Memory     float64 // bytes needed
	// Limit is the first constraint that fails ("" when feasible) and
	// Excess how far it misses: needed / allowed (> 1). The one-byte
	// fields come last: a Config takes 64 bytes, not 72.
	Excess float64
	// offload is, for a configuration the runtime offloads (the model
	// does not fit the device alone and llama.cpp's automatic fitting
	// keeps the rest in host memory), one more than the layers on the
	// GPU as llama.cpp counts them; 0 when not offloaded. hostExperts
	// counts the layers whose routed experts stay in host memory (at most
	// 255 told). Read them with Offload.
	offload     uint16
	hostExperts uint8
	Limit       Limit
	// Misses is every constraint that fails, Limit the first of them.
	Misses   LimitSet
	Fits     bool
	Feasible bool
	// Verdict weighs the latency targets against the prediction's
	// interval: meets, uncertain or fails at the targets' confidence.
	Verdict Verdict
}

// Offloaded reports whether the configuration is offloaded to the host.
func (c Config) Offloaded() bool { return c.offload > 0 }

// Offload is an offloaded configuration's placement: the layers on the
// GPU as llama.cpp counts them (the output layer one of them) and the
// layers whose routed experts stay in host memory; ok is false when the
// configuration is not offloaded.
func (c Config) Offload() (gpuLayers, hostExperts int, ok bool) {
	return int(c.offload) - 1, int(c.hostExperts), c.offload > 0
}

// Depth is the history before a prompt of `prompt` tokens and `output`
// generated ones.
func (c Config) Depth(prompt, output int) int { return max(0, c.Context-prompt-output) }

// Usable is the memory the runtime lets the model use, less the headroom.
func (t Targets) Usable(s *Setup) float64 { return s.Usable() * (1 - t.Headroom) }

// Limits are the inverse answers for one Setup at one batch.
type Limits struct {
	Batch int
	// MaxContextFit is the longest context that fits in memory; -1 when any
	// context fits (every layer windowed).
	MaxContextFit int
	// ContextBound is what bounds MaxContextFit: BoundByMemory, or
	// BoundByModel when memory would hold more than the model's maximum
	// context (as Memory.ContextBound).
	ContextBound string
	// MaxContextTPOT is the longest context whose last step meets the TPOT
	// target, within MaxContextFit (0 when none does, -1 without a target).
	MaxContextTPOT int
	// MaxPromptTTFT is the longest prompt (no history) whose prefill meets
	// the TTFT target, within MaxContextFit (0 when none, -1 without a
	// target).
	MaxPromptTTFT int
	// MaxBatchFit is the most sequences of BatchContext tokens each that
	// fit in memory (1 for a runtime that does not batch: the others
	// wait); 0 when not even one fits.
	MaxBatchFit  int
	BatchContext int
}

// MaxPlanTokens bounds the searches for the largest context or prompt.
const MaxPlanTokens = limits.SearchTokens

// Evaluate checks one configuration against the targets.
func (s *Setup) Evaluate(ctx, batch, prompt, output, ubatch int, t Targets) Config {
	var one [1]Config
	return s.Evaluator(prompt, output, ubatch, t).Contexts([]int{ctx}, batch, one[:0])[0]
}

// EvaluateContexts checks the configurations of one batch size at each
// context, appending to out.
func (s *Setup) EvaluateContexts(contexts []int, batch, prompt, output, ubatch int, t Targets, out []Config) []Config {
	return s.Evaluator(prompt, output, ubatch, t).Contexts(contexts, batch, out)
}

// Evaluator checks configurations of one setup for one request (prompt,
// output, prefill passes) against targets. What no batch or context
// changes — the usable memory, the spreads' bounds at the targets'
// confidence — is resolved once here, so that a plan over millions of
// configurations prices only what each one changes.
type Evaluator struct {
	s                      *Setup
	t                      Targets
	prompt, output, ubatch int
	usable                 float64
	// The prediction's fast- and slow-end factors (Spread.Bounds) for
	// prefill and decode.
	pLo, pHi, dLo, dHi float64
}

// Evaluator resolves an evaluator of s for the request and targets.
func (s *Setup) Evaluator(prompt, output, ubatch int, t Targets) *Evaluator {
	e := &Evaluator{s: s, t: t, prompt: prompt, output: output, ubatch: ubatch, usable: t.Usable(s)}
	conf := t.confidence()
	e.pLo, e.pHi = s.Spread(true).Bounds(conf)
	e.dLo, e.dHi = s.Spread(false).Bounds(conf)
	return e
}

// Contexts checks the configurations of one batch size at each context,
// appending to out. The batch's passes and steps are priced once: the
// matrix products and the memory that does not grow with the context.
func (e *Evaluator) Contexts(contexts []int, batch int, out []Config) []Config {
	s, t, prompt, output := e.s, e.t, e.prompt, e.output
	usable, pLo, pHi, dLo, dHi := e.usable, e.pLo, e.pHi, e.dLo, e.dHi
	seqs := s.resident(batch)
	ubatch := s.Chunk(e.ubatch, seqs*prompt)
	// The prefill of the prompt and a decode step of the batch: Output 2
	// prices the step's matrix products beside the prefill's.
	p := s.phasesFor(Workload{Prompt: prompt, Output: 2, Batch: seqs, UBatch: ubatch})
	prefill, decode := p.prefillAt(&s.rates.prefill), p.decodeAt(s.decodeRates(seqs))
	fixed := s.fixed(batch, ubatch)
	n, _, last := s.Inputs.batches(batch)
	lastPrefill := &prefill
	var lp phases
	if last != seqs {
		// A smaller last static batch: its own prefill (Predict's rule).
		lp = s.phasesFor(Workload{Prompt: prompt, Output: 2, Batch: last, UBatch: ubatch})
		lpp := lp.prefillAt(&s.rates.prefill)
		lastPrefill = &lpp
	}
	for _, ctx := range contexts {
		c := Config{Context: ctx, Batch: batch}
		if ctx*seqs < ubatch {
			// A cache smaller than the micro-batch caps the pass (passUBatch).
			c.Memory = s.need(ctx, batch, ubatch).Total
		} else {
			c.Memory = fixed.totalWith(s.kvHeld(ctx, batch, ubatch))
		}
		c.Fits = c.Memory <= usable && s.BeyondBuild(ctx) == nil
		p.setDepth(c.Depth(prompt, output))
		lp.setDepth(c.Depth(prompt, output))
		c.TTFT = prefill.sum().time
		// The last step generates the context's final token: it attends the
		// ctx − 1 tokens before it, as Predict's itl_last.
		c.TPOT = decode.time(max(ctx-1, 1))
		c.Throughput = float64(seqs) / c.TPOT
		if n > 1 {
			// The runtime runs the batch in turns (static batches, or one
			// sequence at a time): the last request waits for the batches
			// before its own, each a prefill and output − 1 steps.
			c.TTFT, _ = queuedTimes(n, c.TTFT+float64(output-1)*c.TPOT, lastPrefill.sum().time, 0)
		}
		judge(&c, t, c.Memory/usable, seqs, pLo, pHi, dLo, dHi)
		out = append(out, c)
	}
	return out
}

// PlanLimits computes the inverse answers directly: the memory bound by
// inverting the KV cache, the latency bounds by bisection over the
// monotone TTFT(prompt) and ITL(context), the batch by bisection.
func (s *Setup) PlanLimits(batch, minContext, prompt, output, ubatch int, t Targets) Limits {
	l := Limits{Batch: batch, MaxContextTPOT: -1, MaxPromptTTFT: -1}
	usable := t.Usable(s)
	ubatch = s.Chunk(ubatch, MaxTokens) // a whole-prompt runtime's pass: all of it
	l.MaxContextFit = s.maxContext(usable, batch, ubatch)
	if l.MaxContextFit > MaxPlanTokens {
		l.MaxContextFit = MaxPlanTokens
	}
	l.MaxContextFit, l.ContextBound = s.modelBound(l.MaxContextFit)
	upper := l.MaxContextFit
	if upper < 0 {
		upper = MaxPlanTokens
	}
	seqs := s.resident(batch)
	if t.TPOT > 0 {
		// A decode step of the batch, priced once for the search (as ITL).
		p := stepPhases(s.Model, seqs, s.Inputs.FlashAttention)
		decode := p.decodeAt(s.decodeRates(seqs))
		l.MaxContextTPOT = largest(upper, func(c int) bool { return decode.time(max(c-1, 1)) <= t.TPOT })
	}
	if t.TTFT > 0 {
		// A prompt longer than what fits is moot.
		// A prefill of the batch, priced once for the search but for its
		// last pass (as TTFT, with no history).
		p := s.phasesFor(Workload{Prompt: 1, Output: 1, Batch: seqs, UBatch: ubatch})
		prefill := p.prefillAt(&s.rates.prefill)
		l.MaxPromptTTFT = largest(upper, func(n int) bool {
			prefill.setPrompt(n)
			return prefill.sum().time <= t.TTFT
		})
	}
	l.BatchContext = max(minContext, prompt+output)
	l.MaxBatchFit = s.maxFit(l.BatchContext, ubatch, usable)
	return l
}

// maxFit is the most sequences of ctx tokens whose caches fit in usable
// bytes: at most those the runtime runs at once (Together: a static
// batch's rows, 1 for a runtime that runs one sequence at a time, however
// many wait).
func (s *Setup) maxFit(ctx, ubatch int, usable float64) int {
	ubatch = s.Chunk(ubatch, MaxTokens)
	hi := s.Together(MaxPlanTokens)
	return largest(hi, func(b int) bool { return s.MemoryNeed(ctx, b, ubatch) <= usable })
}

// MaxQueued bounds the concurrency search of a runtime that does not
// batch, whose waiting requests take no memory.
const MaxQueued = 4096

// ConcurrencyLimit is how many sequences of one context a setup serves at
// once: the one rule behind plan's batch limit and chat's concurrent
// chats, so that both give the same number for the same question.
type ConcurrencyLimit struct {
	// Context is the tokens each sequence holds at the end of its reply:
	// the count is computed there.
	Context int
	// Fit is the most sequences whose caches fit in memory (1 for a
	// runtime that does not batch); 0 when not even one fits.
	Fit int
	// Meeting is the most sequences that fit and meet the targets'
	// ceilings at once: TTFT with every sequence sending its prompt
	// together, TPOT at the last step, memory. Fails is what one more
	// fails (LimitNone when the search's bound is reached). A throughput
	// floor is not a ceiling: more sequences only raise throughput.
	Meeting int
	Fails   Limit
}

// MaxConcurrent counts the sequences of ctx tokens (history + a prompt of
// `prompt` tokens + `output` generated) the setup serves within the
// targets. Every constraint grows with the count, so it bisects.
func (s *Setup) MaxConcurrent(ctx, prompt, output, ubatch int, t Targets) ConcurrencyLimit {
	t.MinThroughput = 0
	c := ConcurrencyLimit{Context: ctx, Fit: s.maxFit(ctx, ubatch, t.Usable(s))}
	hi := c.Fit
	queues := s.Together(MaxQueued) < MaxQueued
	if queues {
		hi = MaxQueued // the others wait: time bounds them, not memory
	}
	c.Meeting = largest(hi, func(n int) bool { return s.Evaluate(ctx, n, prompt, output, ubatch, t).Limit == LimitNone })
	if !queues || c.Meeting < hi {
		c.Fails = s.Evaluate(ctx, c.Meeting+1, prompt, output, ubatch, t).Limit
	}
	return c
}

// Largest is the largest n in [1, hi] with ok(n), given that ok holds
// for every n below one that holds; 0 when ok(1) fails: the bisection
// every inverse search of sim uses, for searches over its evaluations.
func Largest(hi int, ok func(int) bool) int { return largest(hi, ok) }

// largest is the largest n in [1, hi] with ok(n), given that ok holds for
// every n below one that holds; 0 when ok(1) fails.
func largest(hi int, ok func(int) bool) int {
	if hi < 1 || !ok(1) {
		return 0
	}
	if ok(hi) {
		return hi
	}
	lo := 1 // ok(lo), !ok(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
