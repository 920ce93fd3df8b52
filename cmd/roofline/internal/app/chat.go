package app

import (
	"errors"

	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/sim"
)

// ChatRequest is a conversation on one setup, with the concurrency
// targets, the power figures and an optional draft.
type ChatRequest struct {
	Setup        Selection
	Conversation sim.Conversation
	Strategies   []sim.Strategy // in the order shown
	Targets      sim.Targets    // TTFT and TPOT for the concurrent chats
	MaxChats     int            // concurrent chats shown, 1 … MaxChats
	Power        Power
	Draft        *Draft
}

// Chat is chat's answer.
type Chat struct {
	Inputs       sim.Inputs
	Conversation sim.Conversation
	// RuntimeWhy says why the runtime was chosen; Choices are notes on
	// choices the user may not expect (another engine than the device's
	// default).
	RuntimeWhy string
	Choices    []string
	// Strategies are the conversation under each strategy asked for; the
	// first is the one cold start, energy and the notes speak of.
	Strategies []*sim.ChatResult
	// DroppedFrom is the first turn that drops old turns, 0 when none.
	DroppedFrom int
	Cold        ChatCold
	// Energy is nil when no draw is known, and NoEnergy then says why.
	Energy     *ChatEnergy
	NoEnergy   string
	Concurrent ChatConcurrency
	// Speculative prices the draft over the last turn, with the memory of
	// its end.
	Speculative *Speculative
	// NotFit is set, and nothing else is priced, when the conversation
	// does not fit in memory.
	NotFit *sim.NotFitError
	// PredictOffloads is set with NotFit when predict would run the model
	// on the device anyway, its other layers in the host's memory
	// (llama.cpp's --fit): chat prices the device alone.
	PredictOffloads bool
}

// offloadFits reports whether predict, asked the same, runs the model
// offloaded: a device whose memory is not the host's, a runtime that
// offloads, and llama.cpp --fit's placement holding in both pools at
// predict's default workload. A model the host cannot hold either gets
// no pointer to predict, whose answer would be DOES NOT FIT too.
func (env *Env) offloadFits(res *resolve.Resolved, sel Selection) bool {
	if res.Setup.Device.Unified {
		return false
	}
	w := sim.DefaultWorkload
	split, _, err := env.split(res, sel, Spread{}, w, nil)
	if err != nil || split == nil {
		return false
	}
	r, err := split.Predict(w)
	return err == nil && r.Memory.Fits
}

// ChatCold is the first reply after start-up: from the device's storage
// and from every named medium.
type ChatCold struct {
	sim.ColdStart
	System float64 // the system prompt's prefill, s (0 when not cached apart)
	First  float64 // the first turn's TTFT, s: the warm time to the first word
	Media  []sim.ColdStart
}

// ChatConcurrency is N conversations at the conversation's final context
// sharing the device.
type ChatConcurrency struct {
	Context int
	Targets sim.Targets
	// MaxMeeting is the most chats meeting every target, and FirstFail
	// what the next one fails (sim.LimitNone when all searched pass).
	MaxMeeting  int
	FirstFail   sim.Limit
	MaxInMemory int
	// Batching says the runtime batches chats continuously; without it
	// StaticBatch chats generate together as a static batch (0: one at a
	// time) and the others queue (MaxInMemory is then at most that:
	// waiting chats hold no cache).
	Batching    bool
	StaticBatch int
	Rows        []sim.Concurrency
}

// Chat prices a conversation.
func (env *Env) Chat(req ChatRequest) (*Chat, error) {
	if err := req.Conversation.Validate(); err != nil {
		return nil, err
	}
	if req.Draft != nil {
		if err := req.Draft.Speculation.Validate(); err != nil {
			return nil, err
		}
	}
	res, err := env.Resolve(req.Setup)
	if err != nil {
		return nil, err
	}
	s, conv := res.Setup, req.Conversation
	out := &Chat{Inputs: s.Inputs, Conversation: conv, RuntimeWhy: res.Choice.Why, Choices: res.Notes}
	for _, st := range req.Strategies {
		r, err := s.Chat(conv, st)
		if nf := (*sim.NotFitError)(nil); errors.As(err, &nf) {
			out.NotFit = nf // the answer: it does not fit
			out.PredictOffloads = env.offloadFits(res, req.Setup)
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out.Strategies = append(out.Strategies, r)
	}
	first := out.Strategies[0]
	last := first.Turns[len(first.Turns)-1]
	for _, t := range first.Turns {
		if t.DroppedTurns > 0 {
			out.DroppedFrom = t.N
			break
		}
	}
	// Cold start: load, then the system prompt (cached strategies) and the
	// first turn's prefill.
	t1 := first.Turns[0]
	out.Cold = ChatCold{ColdStart: s.ColdStart(first.SystemTime + t1.TTFT), System: first.SystemTime, First: t1.TTFT,
		Media: s.ColdStarts(first.SystemTime + t1.TTFT)}
	if out.Energy, out.NoEnergy, err = env.chatEnergy(s, conv, first.Strategy, req.Power); err != nil {
		return nil, err
	}
	out.Concurrent = concurrency(s, conv, last.Context, req.Targets, req.MaxChats)
	if req.Draft != nil {
		// Over the last turn: the cache is largest there.
		w := sim.Workload{Prompt: last.Prefill, Output: conv.Reply, Batch: 1, Depth: last.Depth, UBatch: conv.UBatch}
		if out.Speculative, err = env.speculate(s, req.Setup, *req.Draft, w); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// concurrency prices 1 … maxN chats of ctx tokens for the table, and
// counts the chats the device serves by sim.MaxConcurrent: the rule plan's
// batch limit follows too.
func concurrency(s *sim.Setup, conv sim.Conversation, ctx int, tg sim.Targets, maxN int) ChatConcurrency {
	l := s.MaxConcurrent(ctx, conv.User, conv.Reply, conv.UBatch, tg)
	return ChatConcurrency{Context: ctx, Targets: tg, MaxMeeting: l.Meeting, FirstFail: l.Fails, MaxInMemory: l.Fit,
		Batching: s.Inputs.ContinuousBatching, StaticBatch: s.Inputs.StaticBatch, Rows: s.Concurrent(maxN, ctx, conv.User, conv.Reply, conv.UBatch, tg)}
}
