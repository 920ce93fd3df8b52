package render

import (
	"fmt"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// ChatJSON is chat's answer in the JSON vocabulary.
type ChatJSON struct {
	Model      string             `json:"model"`
	Hardware   string             `json:"hardware"`
	Engine     string             `json:"engine"`
	Runtime    string             `json:"runtime"`
	RuntimeWhy string             `json:"runtime_why"`
	Weights    string             `json:"weights"`
	KV         string             `json:"kv"`
	EtaBW      float64            `json:"bandwidth_efficiency"`
	EtaC       float64            `json:"compute_efficiency"`
	Turns      int                `json:"turns"`
	System     int                `json:"system_tokens"`
	User       int                `json:"user_tokens"`
	Reply      int                `json:"reply_tokens"`
	Limit      int                `json:"context_limit"`
	LimitCause string             `json:"context_limit_cause"`
	Strategies []chatStrategyJSON `json:"strategies"`
	Cold       ColdJSON           `json:"cold_start"`
	Energy     *EnergyJSON        `json:"energy"`
	// EnergyUnavailable says why Energy is null.
	EnergyUnavailable string         `json:"energy_unavailable,omitempty"`
	Concurrent        ConcurrentJSON `json:"concurrent"`
	Spec              *SpecJSON      `json:"speculative,omitempty"`
	Notes             []string       `json:"notes"`
	// Fits is false when the conversation does not fit in memory; then
	// DoesNotFit says so and nothing else is priced.
	Fits       bool        `json:"fits"`
	DoesNotFit *notFitJSON `json:"does_not_fit,omitempty"`
}

type notFitJSON struct {
	Message      string  `json:"message"`
	Context      int     `json:"context"`
	MemoryBytes  float64 `json:"memory_bytes"`
	UsableBytes  float64 `json:"usable_bytes"`
	ContextLimit int     `json:"context_limit"`
}

// NotFitText says first, for predict and chat, that a model does not fit:
// what it needs at a context against what is usable.
func NotFitText(model, device string, need, usable float64, ctx int) string {
	return fmt.Sprintf("DOES NOT FIT: %s needs %s on %s at %d tokens, %s usable (%.2f×)", model, Bytes(need), device, ctx, Bytes(usable), need/usable)
}

// chatNotFit is the answer of a conversation that does not fit.
func chatNotFit(c *app.Chat) (j ChatJSON, doc *Doc) {
	in, conv, nf := c.Inputs, c.Conversation, c.NotFit
	ctx := conv.System + conv.User + conv.Reply
	j = ChatJSON{Model: in.Model, Hardware: in.Device, Engine: in.Engine, Runtime: in.Runtime, RuntimeWhy: c.RuntimeWhy, Weights: in.Weights, KV: in.KV,
		EtaBW: in.Efficiency.Bandwidth, EtaC: in.Efficiency.ComputeMax, Turns: conv.Turns, System: conv.System, User: conv.User, Reply: conv.Reply,
		Limit: nf.Limit, LimitCause: "memory", Notes: append([]string{}, c.Choices...),
		DoesNotFit: &notFitJSON{nf.Error(), ctx, nf.Need, nf.Usable, nf.Limit}}
	doc = &Doc{}
	doc.Line("%s", NotFitText(in.Model, in.Device, nf.Need, nf.Usable, ctx))
	doc.Line("%s", nf.Error())
	doc.Line("%s (%s engine, %s, weights %s, KV %s): choose a smaller format or model, or another device", in.Model, in.Engine, in.Runtime, in.Weights, in.KV)
	if c.PredictOffloads {
		l := fmt.Sprintf("chat prices %s alone; roofline predict places the model between its memory and its host's, as llama.cpp's --fit does", in.Device)
		doc.Line("%s", l)
		j.Notes = append(j.Notes, l)
	}
	return j, doc
}

type chatTurnJSON struct {
	Turn         int      `json:"turn"`
	Prefill      int      `json:"prefill_tokens"`
	Depth        int      `json:"depth"`
	DroppedTurns int      `json:"dropped_turns"`
	ShiftS       float64  `json:"shift_s"`
	TTFT         float64  `json:"ttft_s"`
	TPOT         *float64 `json:"tpot_s"`
	E2E          float64  `json:"e2e_s"`
	CumulativeS  float64  `json:"cumulative_s"`
	Context      int      `json:"context"`
	MemoryBytes  float64  `json:"memory_bytes"`
}

type chatStrategyJSON struct {
	Strategy string         `json:"strategy"`
	SystemS  float64        `json:"system_prompt_s"`
	TotalS   float64        `json:"total_s"`
	Turns    []chatTurnJSON `json:"turns"`
}

type coldMediumJSON struct {
	Medium           string  `json:"medium"`
	StorageBytesPerS float64 `json:"storage_bandwidth_bytes_per_s"`
	LoadS            float64 `json:"load_s"`
	ColdTTFTS        float64 `json:"cold_ttft_s"`
}

// ColdJSON is a chat's cold start.
type ColdJSON struct {
	// Media prices the same start from every named storage medium.
	Media            []coldMediumJSON `json:"media"`
	StorageBytesPerS float64          `json:"storage_bandwidth_bytes_per_s"`
	WeightsBytes     float64          `json:"weights_bytes"`
	LoadS            float64          `json:"load_s"`
	SystemS          float64          `json:"system_prompt_s"`
	FirstTTFTS       float64          `json:"first_ttft_s"`
	ColdTTFTS        float64          `json:"cold_ttft_s"`
	WarmTTFTS        float64          `json:"warm_ttft_s"`
}

type energyModeJSON struct {
	Hardware  string   `json:"hardware"`
	PowerMode string   `json:"power_mode"`
	TPOT      *float64 `json:"tpot_s"`
	energyFiguresJSON
}

// EnergyJSON is a chat's energy per power mode.
type EnergyJSON struct {
	Basis     string           `json:"basis"`
	DutyCycle float64          `json:"duty_cycle"`
	BatteryWh float64          `json:"battery_wh,omitempty"`
	Modes     []energyModeJSON `json:"modes"`
}

type concurrentRowJSON struct {
	N           int     `json:"chats"`
	TTFT        float64 `json:"ttft_all_at_once_s"`
	JoinTTFT    float64 `json:"ttft_one_arrives_s"`
	TPOT        float64 `json:"tpot_s"`
	Throughput  float64 `json:"throughput_tokens_per_s"`
	MemoryBytes float64 `json:"memory_bytes"`
	Fits        bool    `json:"fits"`
	Fails       string  `json:"fails,omitempty"`
	// Failing lists every target the row misses (Fails is the first).
	Failing []string `json:"failing,omitempty"`
}

// failingText is a row's misses for people: "ttft, tpot". The FAILS
// column showed only the first, so a TPOT miss hid behind a TTFT miss.
func failingText(r sim.Concurrency) string { return strings.Join(r.Misses.Names(), ", ") }

// nextFails is what the first chat beyond MaxMeeting misses, all of it
// where the table priced that row.
func nextFails(cc app.ChatConcurrency) string {
	for _, r := range cc.Rows {
		if r.N == cc.MaxMeeting+1 {
			if s := failingText(r); s != "" {
				return s
			}
		}
	}
	return cc.FirstFail.String()
}

// ConcurrentJSON is concurrent chats sharing a device.
type ConcurrentJSON struct {
	Context     int                 `json:"context_per_chat"`
	TTFTTarget  float64             `json:"ttft_target_s"`
	TPOTTarget  float64             `json:"tpot_target_s"`
	MaxMeeting  int                 `json:"max_chats_meeting_targets"`
	FirstFail   string              `json:"first_failing_constraint"`
	MaxInMemory int                 `json:"max_chats_in_memory"`
	Batching    bool                `json:"continuous_batching"`
	StaticBatch int                 `json:"static_batch,omitempty"`
	Rows        []concurrentRowJSON `json:"rows"`
}

// chatNotes are what the user should know: turns dropped, the draft's
// warnings.
func chatNotes(c *app.Chat) []string {
	notes := append([]string{}, c.Choices...)
	first := c.Strategies[0]
	last := first.Turns[len(first.Turns)-1]
	if c.DroppedFrom > 0 {
		notes = append(notes, fmt.Sprintf("from turn %d the conversation exceeds the context limit of %d tokens (%s): the oldest turns are dropped, %d by the last turn",
			c.DroppedFrom, first.Limit, sim.LimitCauseText(first.LimitCause), last.DroppedTurns))
	}
	if sp := c.Speculative; sp != nil {
		for _, w := range sp.Warnings {
			notes = append(notes, w.Message)
		}
	}
	return notes
}

// NewChatJSON is a chat in the JSON vocabulary.
func NewChatJSON(c *app.Chat) ChatJSON {
	if c.NotFit != nil {
		j, _ := chatNotFit(c)
		return j
	}
	in, conv := c.Inputs, c.Conversation
	last := c.Strategies[len(c.Strategies)-1]
	j := ChatJSON{Model: in.Model, Hardware: in.Device, Engine: in.Engine, Runtime: in.Runtime, RuntimeWhy: c.RuntimeWhy, Weights: in.Weights, KV: in.KV,
		EtaBW: in.Efficiency.Bandwidth, EtaC: in.Efficiency.ComputeMax,
		Turns: conv.Turns, System: conv.System, User: conv.User, Reply: conv.Reply, Limit: last.Limit, LimitCause: last.LimitCause,
		Notes: chatNotes(c), Spec: newSpecJSON(c.Speculative), Fits: true}
	for _, r := range c.Strategies {
		js := chatStrategyJSON{Strategy: string(r.Strategy), SystemS: r.SystemTime, TotalS: r.Turns[len(r.Turns)-1].Cumulative,
			Turns: make([]chatTurnJSON, 0, len(r.Turns))}
		for _, t := range r.Turns {
			js.Turns = append(js.Turns, chatTurnJSON{t.N, t.Prefill, t.Depth, t.DroppedTurns, t.ShiftTime, t.TTFT, num(t.TPOT), t.E2E, t.Cumulative, t.Context, t.Memory})
		}
		j.Strategies = append(j.Strategies, js)
	}
	cs := c.Cold
	j.Cold = ColdJSON{StorageBytesPerS: cs.StorageBandwidth, WeightsBytes: cs.Bytes, LoadS: cs.Load, SystemS: cs.System,
		FirstTTFTS: cs.First, ColdTTFTS: cs.TTFT, WarmTTFTS: cs.First}
	for _, m := range cs.Media {
		j.Cold.Media = append(j.Cold.Media, coldMediumJSON{m.Medium, m.StorageBandwidth, m.Load, m.TTFT})
	}
	if e := c.Energy; e != nil {
		j.Energy = &EnergyJSON{Basis: EnergyBasis(e.EnergyBasis), DutyCycle: e.DutyCycle, BatteryWh: e.BatteryWh}
		for _, m := range e.Modes {
			j.Energy.Modes = append(j.Energy.Modes, energyModeJSON{m.Hardware, OrDash(m.PowerMode), num(m.TPOT), newEnergyFiguresJSON(m.Energy)})
		}
	}
	j.EnergyUnavailable = c.NoEnergy
	cc := c.Concurrent
	j.Concurrent = ConcurrentJSON{Context: cc.Context, TTFTTarget: cc.Targets.TTFT, TPOTTarget: cc.Targets.TPOT, MaxMeeting: cc.MaxMeeting,
		FirstFail: cc.FirstFail.String(), MaxInMemory: cc.MaxInMemory, Batching: cc.Batching, StaticBatch: cc.StaticBatch}
	for _, r := range cc.Rows {
		j.Concurrent.Rows = append(j.Concurrent.Rows, concurrentRowJSON{r.N, r.TTFT, r.JoinTTFT, r.TPOT, r.Throughput, r.Memory, r.Fits, r.Limit.String(), r.Misses.Names()})
	}
	return j
}

// Chat is `roofline chat`.
func Chat(c *app.Chat) Answer {
	return answer{doc: func() *Doc { return chatDoc(c) }, data: func() any { return NewChatJSON(c) }}
}

func chatDoc(c *app.Chat) *Doc {
	if c.NotFit != nil {
		_, doc := chatNotFit(c)
		return doc
	}
	in, conv := c.Inputs, c.Conversation
	first := c.Strategies[0]
	doc := &Doc{}
	title := fmt.Sprintf("%s on %s (%s engine, %s, weights %s, KV %s; η_bw %.2f, η_max %.2f)", in.Model, in.Device, in.Engine, in.Runtime, in.Weights, in.KV,
		in.Efficiency.Bandwidth, in.Efficiency.ComputeMax)
	doc.Raw(title+"\n", "## "+title+"\n\n")
	doc.Line("runtime: %s: %s", in.Runtime, c.RuntimeWhy)
	if in.ThreadsNote != "" {
		doc.Line("threads: %s", in.ThreadsNote)
	}
	last := c.Strategies[len(c.Strategies)-1]
	doc.Line("conversation: %d turns; system prompt %d, user %d, reply %d tokens; context limit %d tokens (%s)",
		conv.Turns, conv.System, conv.User, conv.Reply, last.Limit, sim.LimitCauseText(last.LimitCause))

	doc.Section("per turn", true)
	var t *Table
	if len(c.Strategies) == 1 {
		t = NewTable("TURN", "PREFILL", "DEPTH", "TTFT", "TPOT", "E2E", "Σ E2E", "CONTEXT", "MEMORY", "NOTE").Right(0, 1, 2, 3, 4, 5, 6, 7, 8)
		for _, tr := range first.Turns {
			note := ""
			if tr.DroppedTurns > 0 {
				note = fmt.Sprintf("%d oldest turn%s dropped", tr.DroppedTurns, Plural(tr.DroppedTurns))
				if tr.ShiftTime > 0 {
					note += ", shift " + Duration(tr.ShiftTime)
				}
			}
			t.Add(fmt.Sprint(tr.N), fmt.Sprint(tr.Prefill), fmt.Sprint(tr.Depth), Duration(tr.TTFT), Duration(tr.TPOT), Duration(tr.E2E), Duration(tr.Cumulative),
				fmt.Sprint(tr.Context), Bytes(tr.Memory), note)
		}
		doc.Line("strategy %s", first.Strategy)
	} else {
		// Memory differs by strategy only through the prefill's activations.
		heads := []string{"TURN", "CONTEXT", "MEMORY " + string(first.Strategy), "TPOT"}
		for _, st := range c.Strategies {
			heads = append(heads, "TTFT "+string(st.Strategy))
		}
		for _, st := range c.Strategies {
			heads = append(heads, "Σ E2E "+string(st.Strategy))
		}
		t = NewTable(heads...)
		for i := range t.Cols {
			t.Cols[i].Right = true
		}
		for i, tr := range first.Turns {
			row := []string{fmt.Sprint(tr.N), fmt.Sprint(tr.Context), Bytes(tr.Memory), Duration(tr.TPOT)}
			for _, st := range c.Strategies {
				row = append(row, Duration(st.Turns[i].TTFT))
			}
			for _, st := range c.Strategies {
				row = append(row, Duration(st.Turns[i].Cumulative))
			}
			t.Add(row...)
		}
	}
	doc.Table(t)
	for _, st := range c.Strategies {
		if st.SystemTime > 0 {
			doc.Line("%s: the system prompt is prefilled once at start-up (%s) and cached", st.Strategy, Duration(st.SystemTime))
		}
	}

	doc.Section("cold start", true)
	cs := c.Cold
	doc.Line("load %s of weights at %s: %s; then the system prompt %s and the first turn's prefill %s",
		Bytes(cs.Bytes), Bandwidth(cs.StorageBandwidth), Duration(cs.Load), Duration(cs.System), Duration(cs.First))
	doc.Line("time to the first word after start-up: %s (%s), warm: %s", Duration(cs.TTFT), first.Strategy, Duration(cs.First))
	doc.Line("the same start from other storage (bus limits: real media read slower; give a measured rate with --storage):")
	mt := NewTable("STORAGE", "READ", "LOAD", "FIRST WORD").Right(1, 2, 3)
	for _, m := range cs.Media {
		mt.Add(m.Medium, Bandwidth(m.StorageBandwidth), Duration(m.Load), Duration(m.TTFT))
	}
	doc.Table(mt)

	doc.Section("energy", true)
	if e := c.Energy; e != nil {
		doc.Line("%s; mean over the turns (%s); the average draw at %s (--duty-cycle)", EnergyBasis(e.EnergyBasis), first.Strategy, dutyText(e.DutyCycle))
		et := NewTable("HARDWARE", "POWER MODE", "POWER", "IDLE", "TPOT", "J/TOKEN", "J/ANSWER", "TOKENS/WH", "AVERAGE DRAW").Right(2, 3, 4, 5, 6, 7, 8)
		if e.BatteryWh > 0 {
			et.Cols = append(et.Cols, Col{Head: fmt.Sprintf("ANSWERS PER %s WH CHARGE", units.Sig(e.BatteryWh, 6)), Right: true}, Col{Head: "HOURS OF USE", Right: true})
		}
		for _, m := range e.Modes {
			idle := Dash
			if m.Idle > 0 {
				idle = units.Sig(m.Idle, 3) + " W"
			}
			row := []string{m.Hardware, OrDash(m.PowerMode), units.Sig(m.Run, 6) + " W", idle, Duration(m.TPOT), units.Sig(m.JoulesPerToken, 3), units.Sig(m.JoulesPerAnswer, 3),
				Fixed(m.TokensPerWh, 0), units.Sig(m.AveragePower, 3) + " W"}
			if e.BatteryWh > 0 {
				row = append(row, Fixed(m.AnswersPerCharge, 0), hoursText(m.HoursOfUse))
			}
			et.Add(row...)
		}
		doc.Table(et)
	} else {
		doc.Line("%s", c.NoEnergy)
	}

	doc.Section("concurrent chats", true)
	cc := c.Concurrent
	answered := "answered one at a time"
	if cc.StaticBatch > 1 {
		answered = fmt.Sprintf("answered in static batches of up to %d", cc.StaticBatch)
	}
	switch {
	case cc.Batching:
		doc.Line("continuous batching, each chat holding %d tokens at the end of a reply; a %d-token message arrives while the others generate, or every chat sends one at once (the targets are judged on the latter)", cc.Context, conv.User)
	case cc.StaticBatch > 1:
		doc.Line("the runtime runs static batches: up to %d chats are answered together, prefilled at once and decoded in lockstep until the longest reply ends, and the others queue for the next batch, each chat holding %d tokens at the end of a reply; a %d-token message arrives while the others' batches run, or every chat sends one at once (the targets are judged on the latter)", cc.StaticBatch, cc.Context, conv.User)
	default:
		doc.Line("the runtime does not batch: one chat is answered at a time and the others queue, each chat holding %d tokens at the end of a reply; a %d-token message arrives while the others wait, or every chat sends one at once (the targets are judged on the latter)", cc.Context, conv.User)
	}
	ct := NewTable("CHATS", "TTFT ONE ARRIVES", "TTFT ALL AT ONCE", "TPOT", "TOKENS/S ALL", "MEMORY", "FAILS").Right(0, 1, 2, 3, 4, 5)
	for _, r := range cc.Rows {
		ct.Add(fmt.Sprint(r.N), Duration(r.JoinTTFT), Duration(r.TTFT), Duration(r.TPOT), units.Sig(r.Throughput, 4), Bytes(r.Memory), failingText(r))
	}
	doc.Table(ct)
	targets := fmt.Sprintf("TTFT %s, TPOT %s", Duration(cc.Targets.TTFT), Duration(cc.Targets.TPOT))
	switch {
	case cc.MaxMeeting == 0:
		doc.Line("not even one chat meets the targets (%s): it fails %s", targets, nextFails(cc))
	case !cc.Batching && cc.FirstFail != sim.LimitNone:
		doc.Line("up to %d chats meet the targets (%s), %s; chat %d fails %s", cc.MaxMeeting, targets, answered, cc.MaxMeeting+1, nextFails(cc))
	case !cc.Batching:
		doc.Line("every count up to %d meets the targets (%s), %s", cc.MaxMeeting, targets, answered)
	case cc.FirstFail != sim.LimitNone:
		doc.Line("up to %d chats meet the targets (%s); chat %d fails %s; memory holds %d", cc.MaxMeeting, targets, cc.MaxMeeting+1, nextFails(cc), cc.MaxInMemory)
	default:
		doc.Line("every count up to %d meets the targets (%s); memory holds %d", cc.MaxMeeting, targets, cc.MaxInMemory)
	}

	if sp := c.Speculative; sp != nil {
		doc.Section("speculative decoding", true)
		doc.Line("draft %s (%s) proposes %d tokens per round, each accepted with probability %.2f; at context %d (the middle of the last reply)",
			sp.Draft, sp.DraftWeights, sp.K, sp.Acceptance, sp.Context)
		doc.Table(speculativeTable(sp))
		if !sp.Fits {
			doc.Line("the target, its cache at the last turn and the draft DO NOT FIT in usable memory together")
		}
	}
	if notes := chatNotes(c); len(notes) > 0 {
		s := "\n"
		for i, n := range notes {
			s += fmt.Sprintf("note %d: %s\n", i+1, n)
		}
		doc.Both(s)
	}
	return doc
}

// speculativeTable explains one round of speculative decoding.
func speculativeTable(sp *app.Speculative) *Table {
	t := NewTable("", "VALUE", "HOW").Right(1)
	t.Add("tokens per round", Fixed(sp.TokensPerRound, 3), "(1 − a^(k+1)) / (1 − a)")
	t.Add("draft steps", Duration(sp.DraftTime), fmt.Sprintf("%d decode steps of the draft", sp.K))
	t.Add("verification", Duration(sp.VerifyTime), fmt.Sprintf("one target pass of %d tokens", sp.K+1))
	t.Add("TPOT", Duration(sp.TPOT), "(draft + verification) / tokens per round")
	t.Add("plain TPOT", Duration(sp.PlainTPOT), "one target decode step")
	t.Add("speed-up", Factor(sp.Speedup), "")
	be := Fixed(sp.BreakEven, 2)
	switch sp.BreakEven {
	case 0:
		be = "0 (always pays)"
	case 1:
		be = "never pays at this k"
	}
	t.Add("pays off above acceptance", be, "where tokens per round = cost / plain step")
	t.Add("extra memory", Bytes(sp.ExtraMemory), "draft weights and KV cache")
	return t
}
