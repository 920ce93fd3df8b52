package sim

import (
	"fmt"

	"github.com/roofline/roofline/limits"
)

// Strategy is how an engine treats the history of a conversation between
// turns.
type Strategy string

// The strategies roofline models.
const (
	// KeepKV keeps the whole KV cache between turns (llama.cpp server slot,
	// Ollama): a turn prefills only the new user message on top of it.
	KeepKV Strategy = "keep-kv"
	// PrefixCache reuses only the cached system prompt (vLLM/SGLang
	// automatic prefix caching of a shared prefix when the history is not
	// kept): a turn re-prefills the history after the system prompt.
	PrefixCache Strategy = "prefix-cache"
	// Recompute re-prefills the whole conversation every turn (a stateless
	// API call without prefix caching).
	Recompute Strategy = "recompute"
)

// Strategies lists them in documentation order.
var Strategies = []Strategy{KeepKV, PrefixCache, Recompute}

// ParseStrategy reads a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	for _, st := range Strategies {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown strategy %q (want keep-kv, prefix-cache, recompute or all)", s)
}

// Conversation is a chat of Turns turns, each a user message of User tokens
// answered by Reply tokens, after a system prompt of System tokens.
type Conversation struct {
	Turns  int
	System int
	User   int
	Reply  int
	UBatch int // tokens per prefill pass; 0: the runtime's (Setup.Chunk)
}

// Validate rejects impossible conversations with a *FieldError naming the
// field.
func (c Conversation) Validate() error {
	const most = 1 << 26
	switch {
	case c.Turns < 1 || c.Turns > limits.ChatTurns:
		return &FieldError{"Turns", fmt.Sprintf("must be 1 … %d, got %d", limits.ChatTurns, c.Turns)}
	case c.System < 0 || c.System > most:
		return &FieldError{"System", fmt.Sprintf("must be 0 … %d tokens, got %d", most, c.System)}
	case c.User < 1 || c.User > most:
		return &FieldError{"User", fmt.Sprintf("must be 1 … %d tokens, got %d", most, c.User)}
	case c.Reply < 1 || c.Reply > most:
		return &FieldError{"Reply", fmt.Sprintf("must be 1 … %d tokens, got %d", most, c.Reply)}
	case c.UBatch < 0:
		return &FieldError{"UBatch", fmt.Sprintf("must not be negative (0: the runtime's default), got %d", c.UBatch)}
	}
	return nil
}

// Turn is one turn of a conversation.
type Turn struct {
	N       int // 1-based
	Prefill int // tokens prefilled this turn
	Depth   int // tokens cached when the prefill starts
	// DroppedTurns counts the oldest turns truncated so far to stay within
	// the context limit.
	DroppedTurns int
	// ShiftTime is the cost, included in TTFT, of shifting the kept cache
	// in place after a truncation (KeepKV only).
	ShiftTime float64
	TTFT      float64 // s
	TPOT      float64 // s, NaN when Reply == 1
	E2E       float64 // s, TTFT + the reply's decode steps
	// Cumulative is Σ E2E up to and including this turn: the time the
	// device spent answering.
	Cumulative float64
	Context    int     // tokens in the sequence at the end of the turn
	Memory     float64 // bytes needed at the end of the turn
}

// ChatResult is a conversation under one strategy.
type ChatResult struct {
	Strategy Strategy
	// Limit is the longest sequence the conversation may reach: the model's
	// maximum context or what fits in memory, whichever is smaller.
	Limit      int
	LimitCause string // "model" or "memory"
	// SystemTime is the one-off prefill of the system prompt at start-up
	// (KeepKV and PrefixCache cache it; Recompute pays it every turn).
	SystemTime float64
	Turns      []Turn
}

// ContextLimit is the longest sequence one conversation may reach on s:
// the model's maximum context or the longest that fits in memory at batch
// 1 with passes of ubatch tokens, whichever is smaller.
func (s *Setup) ContextLimit(ubatch int) (limit int, cause string) {
	l := s.PlanLimits(1, 1, 1, 1, ubatch, Targets{})
	limit, cause = s.Model.Spec.MaxContext, "model"
	if l.MaxContextFit >= 0 && l.MaxContextFit < limit {
		limit, cause = l.MaxContextFit, "memory"
	}
	return limit, cause
}

// Chat prices a conversation turn by turn. Before each turn the history is
// truncated, oldest whole turns first and never the system prompt, until
// history + user message + reply fits the context limit. Under KeepKV a
// truncation shifts the kept turns in place (llama.cpp's context shift),
// which rewrites their K half: one read and one write of it, priced at the
// expected bandwidth. Each turn is priced as Predict prices a request: turn
// t's TTFT is that of a prompt of Prefill tokens on top of Depth cached ones.
func (s *Setup) Chat(c Conversation, st Strategy) (*ChatResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if _, err := ParseStrategy(string(st)); err != nil {
		return nil, err
	}
	limit, cause := s.ContextLimit(c.UBatch)
	need := c.System + c.User + c.Reply
	if limit == 0 || (need > limit && cause == "memory") {
		return nil, &NotFitError{Model: s.Model.Spec.Name, Device: s.Device.Name, Conversation: c, Limit: limit,
			Need: s.MemoryNeed(need, 1, c.UBatch), Usable: s.Usable()}
	}
	if need > limit {
		return nil, fmt.Errorf("the system prompt and one turn (%d + %d + %d = %d tokens) exceed the context limit of %d tokens (%s): shorten them or choose another model",
			c.System, c.User, c.Reply, need, limit, LimitCauseText(cause))
	}
	res := &ChatResult{Strategy: st, Limit: limit, LimitCause: cause, Turns: make([]Turn, 0, c.Turns)}
	if c.System > 0 && st != Recompute {
		res.SystemTime = s.TTFT(c.System, 0, 1, c.UBatch)
	}
	turnLen := c.User + c.Reply
	kept, dropped := 0, 0 // turns of history in the cache, turns truncated
	bw := s.expected(0, false).bw
	for t := 1; t <= c.Turns; t++ {
		shift := 0.0
		before := dropped
		for c.System+(kept+1)*turnLen > limit {
			kept--
			dropped++
		}
		history := kept * turnLen
		if st == KeepKV && dropped > before {
			// K is half of each token's cache entry: read and write it.
			shift = (s.Model.KVBytes(c.System+history) - s.Model.KVBytes(c.System)) / bw
		}
		var prefill, depth int
		switch st {
		case KeepKV:
			prefill, depth = c.User, c.System+history
		case PrefixCache:
			prefill, depth = history+c.User, c.System
		case Recompute:
			prefill, depth = c.System+history+c.User, 0
		}
		r, err := s.Predict(Workload{Prompt: prefill, Output: c.Reply, Batch: 1, Depth: depth, UBatch: c.UBatch})
		if err != nil {
			return nil, err
		}
		turn := Turn{N: t, Prefill: prefill, Depth: depth, DroppedTurns: dropped, ShiftTime: shift,
			TTFT: r.TTFT + shift, TPOT: r.TPOT, E2E: r.E2E + shift, Context: depth + prefill + c.Reply, Memory: r.Memory.Total}
		turn.Cumulative = turn.E2E
		if t > 1 {
			turn.Cumulative += res.Turns[t-2].Cumulative
		}
		res.Turns = append(res.Turns, turn)
		kept++
	}
	return res, nil
}

// NotFitError is a conversation that does not fit in memory: not the
// weights, activations and runtime overhead alone (Limit 0), or not the
// system prompt and one turn in the context memory leaves.
type NotFitError struct {
	Model, Device string
	Conversation  Conversation
	// Limit is the longest context that fits; Need the bytes the first
	// turn needs, against Usable.
	Limit        int
	Need, Usable float64
}

func (e *NotFitError) Error() string {
	c := e.Conversation
	if e.Limit == 0 {
		return fmt.Sprintf("%s does not fit on %s: the weights, activations and runtime overhead alone exceed its usable memory", e.Model, e.Device)
	}
	return fmt.Sprintf("%s does not fit on %s with the system prompt and one turn (%d + %d + %d tokens): memory holds %d tokens", e.Model, e.Device,
		c.System, c.User, c.Reply, e.Limit)
}

// LimitCauseText says in words what bounds a ChatResult's Limit.
func LimitCauseText(cause string) string {
	if cause == "memory" {
		return "what fits in memory"
	}
	return "the model's maximum context"
}

// JoinTTFT is the time to first token of a message of `prompt` tokens on
// top of `depth` cached ones while `others` sequences, each attending
// otherCtx keys, keep decoding (continuous batching with chunked prefill,
// as llama.cpp's server and vLLM schedule): every pass carries a chunk of
// ubatch − others prompt tokens and one decode token of each other
// sequence, which adds their KV reads and FLOPs to the pass and their
// tokens to the weights it streams. With no others it is TTFT exactly.
func (s *Setup) JoinTTFT(prompt, depth, others, otherCtx, ubatch int) float64 {
	ubatch = s.Chunk(ubatch, prompt+others)
	if others <= 0 {
		return s.TTFT(prompt, depth, 1, ubatch)
	}
	if !s.Inputs.ContinuousBatching {
		// No message joins running steps: the others' replies finish
		// first, in the batches the runtime runs them in (Together: static
		// batches, or one at a time), one after another. The wait is at
		// least a step of each batch, priced at their context.
		n, full, last := s.Inputs.batches(others)
		wait := float64(n-1)*s.ITL(otherCtx, full) + s.ITL(otherCtx, last)
		return s.TTFT(prompt, depth, 1, ubatch) + wait
	}
	p := newPhases(s.Model, Workload{Prompt: prompt, Output: 1, Batch: 1, Depth: depth, UBatch: max(1, ubatch-others)}, s.Inputs.FlashAttention)
	p.withOthers(others, otherCtx)
	return s.ttft(&p)
}

// Concurrency is N independent conversations sharing the device by
// continuous batching, each holding Context tokens at the end of a reply.
type Concurrency struct {
	N int
	// TTFT is the worst case: all N users send a message of the planned
	// prompt at once, prefilled together on top of their histories.
	TTFT float64
	// JoinTTFT is the usual case: one user sends while the other N − 1
	// chats keep generating.
	JoinTTFT float64
	// TPOT is the inter-token latency every chat sees at the last step of
	// its reply, when all N decode together.
	TPOT       float64
	Throughput float64 // tokens/s over all chats at that step
	Memory     float64 // bytes for N caches of Context tokens
	Fits       bool
	Limit      Limit    // first constraint failed, LimitNone when all are met
	Misses     LimitSet // every constraint failed
}

// Concurrent prices 1 … maxN conversations of `context` tokens each, every
// new message `prompt` tokens and every reply `output` tokens, against the
// targets. It is plan's evaluation at batch N: one cost model.
func (s *Setup) Concurrent(maxN, context, prompt, output, ubatch int, t Targets) []Concurrency {
	out := make([]Concurrency, 0, maxN)
	for n := 1; n <= maxN; n++ {
		c := s.Evaluate(context, n, prompt, output, ubatch, t)
		join := s.JoinTTFT(prompt, c.Depth(prompt, output), n-1, max(context-1, 1), ubatch)
		out = append(out, Concurrency{N: n, TTFT: c.TTFT, JoinTTFT: join, TPOT: c.TPOT, Throughput: c.Throughput, Memory: c.Memory, Fits: c.Fits, Limit: c.Limit, Misses: c.Misses})
	}
	return out
}

// FirstFailure is the smallest N whose configuration fails a constraint,
// with the constraint; 0 when every N passes.
func FirstFailure(cs []Concurrency) (int, Limit) {
	for _, c := range cs {
		if c.Limit != LimitNone {
			return c.N, c.Limit
		}
	}
	return 0, LimitNone
}
