package app

import (
	"math"

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
	// Energy is nil when no power is known (NoPower says so).
	Energy     *ChatEnergy
	NoPower    bool
	Concurrent ChatConcurrency
	// Speculative prices the draft over the last turn, with the memory of
	// its end.
	Speculative *Speculative
}

// ChatCold is the first reply after start-up: from the device's storage
// and from every named medium.
type ChatCold struct {
	sim.ColdStart
	System float64 // the system prompt's prefill, s (0 when not cached apart)
	First  float64 // the first turn's TTFT, s: the warm time to the first word
	Media  []sim.ColdStart
}

// ChatEnergy is the conversation's mean turn priced at the device's power
// and at each other power mode of it.
type ChatEnergy struct {
	Given     bool // the user gave the draw (no other modes then)
	Engine    string
	BatteryWh float64
	Modes     []EnergyMode
}

// EnergyMode is one power mode's energy for the mean turn.
type EnergyMode struct {
	Hardware, PowerMode string
	TPOT                float64 // mean over the turns, s (NaN: one-token replies)
	sim.Energy
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
	if out.Energy, err = env.chatEnergy(s, conv, first.Strategy, req.Power); err != nil {
		return nil, err
	}
	out.NoPower = out.Energy == nil
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
		Rows: s.Concurrent(maxN, ctx, conv.User, conv.Reply, conv.UBatch, tg)}
}

// chatEnergy prices the conversation's mean turn at the device's power and
// at every power mode of the same device that has a rated power; nil when
// no power is known.
func (env *Env) chatEnergy(s *sim.Setup, conv sim.Conversation, st sim.Strategy, p Power) (*ChatEnergy, error) {
	watts, given := p.Watts, p.Watts > 0
	if !given {
		run, _, _, _, err := s.Device.PowerDraw(s.Engine.Name)
		if err != nil {
			return nil, nil
		}
		watts = run
	}
	out := &ChatEnergy{Given: given, Engine: s.Engine.Name, BatteryWh: p.BatteryWh}
	modes := []*sim.Setup{s}
	if !given {
		modes = append(modes, env.powerModes(s)...)
	}
	for _, m := range modes {
		res, err := m.Chat(conv, st)
		if err != nil {
			continue // a mode too small for the conversation
		}
		var tpot, e2e float64
		n := 0
		for _, t := range res.Turns {
			if !math.IsNaN(t.TPOT) {
				tpot += t.TPOT
				n++
			}
			e2e += t.E2E
		}
		tpot = tpot / float64(max(n, 1))
		if n == 0 {
			tpot = math.NaN()
		}
		e2e /= float64(len(res.Turns))
		w := watts
		if m != s {
			w = m.Engine.Power
		}
		e, err := sim.EnergyFor(w, tpot, e2e, 1, p.BatteryWh)
		if err != nil {
			return nil, err
		}
		out.Modes = append(out.Modes, EnergyMode{Hardware: m.Device.Name, PowerMode: m.Device.PowerMode, TPOT: tpot, Energy: e})
	}
	return out, nil
}

// powerModes are the other power modes of s's device (the base profile
// and its variants) on the same engine, with a rated power: the same
// model, runtime and options on each.
func (env *Env) powerModes(s *sim.Setup) []*sim.Setup {
	base := s.Device.VariantOf
	if base == "" {
		base = s.Device.Name
	}
	var out []*sim.Setup
	for _, d := range env.Catalog.Devices() {
		// Memory variants share the power mode; only other modes add a row.
		if d.Name == s.Device.Name || (d.Name != base && d.VariantOf != base) || d.PowerMode == "" || d.PowerMode == s.Device.PowerMode {
			continue
		}
		e, err := d.Engine(s.Engine.Name)
		if err != nil || e.Power <= 0 {
			continue
		}
		dd := *d
		dd.StorageBandwidth = s.Device.StorageBandwidth
		o := sim.DefaultOptions
		o.RuntimeOverhead, o.NoFlashAttention = s.Inputs.Overhead, !s.Inputs.FlashAttention
		if m, err := sim.NewSetup(s.Model, &dd, e, s.Runtime, o); err == nil {
			out = append(out, m)
		}
	}
	return out
}
