package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/roofline/roofline/sim"
)

func newSetup(t *testing.T, modelName, weights, device, engine string) *sim.Setup {
	t.Helper()
	m, d := setup(t, modelName, weights, "f16", device)
	s, err := setupOn(m, d, engine, sim.DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestChatStrategies checks each strategy against a plain prediction of
// the request it amounts to (issue 10's hand rule).
func TestChatStrategies(t *testing.T) {
	s := newSetup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	const S, U, R, turns = 400, 60, 120, 8
	conv := sim.Conversation{Turns: turns, System: S, User: U, Reply: R, UBatch: 512}
	for _, st := range sim.Strategies {
		res, err := s.Chat(conv, st)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Turns) != turns {
			t.Fatalf("%s: %d turns", st, len(res.Turns))
		}
		cum := 0.0
		for _, tr := range res.Turns {
			h := (tr.N - 1) * (U + R) // history after the system prompt
			var w sim.Workload
			switch st {
			case sim.KeepKV: // U new tokens on S + (t−1)(U+R) cached
				w = sim.Workload{Prompt: U, Depth: S + h}
			case sim.PrefixCache: // the history and U on the cached system prompt
				w = sim.Workload{Prompt: h + U, Depth: S}
			case sim.Recompute: // everything from scratch
				w = sim.Workload{Prompt: S + h + U, Depth: 0}
			}
			w.Output, w.Batch, w.UBatch = R, 1, 512
			p, err := s.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			cum += p.E2E
			if tr.TTFT != p.TTFT || tr.TPOT != p.TPOT || tr.E2E != p.E2E || tr.Context != S+h+U+R || !near(tr.Cumulative, cum, 1e-12) {
				t.Errorf("%s turn %d: TTFT %v TPOT %v E2E %v ctx %d; predict %v %v %v ctx %d", st, tr.N, tr.TTFT, tr.TPOT, tr.E2E, tr.Context, p.TTFT, p.TPOT, p.E2E, S+h+U+R)
			}
		}
		// The system prompt is prefilled once at start-up unless recomputed.
		if want := s.TTFT(S, 0, 1, 512); (st == sim.Recompute) != (res.SystemTime == 0) || (st != sim.Recompute && res.SystemTime != want) {
			t.Errorf("%s: system prompt %v s, want %v", st, res.SystemTime, want)
		}
	}
	// Keeping the cache makes the tenth turn about as fast as the first;
	// recomputing does not.
	keep, _ := s.Chat(conv, sim.KeepKV)
	re, _ := s.Chat(conv, sim.Recompute)
	if keep.Turns[turns-1].TTFT > 1.2*keep.Turns[0].TTFT || re.Turns[turns-1].TTFT < 2*re.Turns[0].TTFT {
		t.Errorf("last/first TTFT: keep-kv %v/%v, recompute %v/%v", keep.Turns[turns-1].TTFT, keep.Turns[0].TTFT, re.Turns[turns-1].TTFT, re.Turns[0].TTFT)
	}
}

// TestChatTruncation runs TinyLlama (2048-token context) past its limit.
func TestChatTruncation(t *testing.T) {
	s := newSetup(t, "tinyllama-1.1b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	conv := sim.Conversation{Turns: 6, System: 500, User: 200, Reply: 300, UBatch: 512}
	res, err := s.Chat(conv, sim.KeepKV)
	if err != nil {
		t.Fatal(err)
	}
	if res.Limit != 2048 || res.LimitCause != "model" {
		t.Fatalf("limit %d (%s); want the model's 2048", res.Limit, res.LimitCause)
	}
	// 500 + k·500 ≤ 2048 holds for k ≤ 3 turns: turns 1–3 fit, turn 4
	// drops turn 1, turn 5 drops turn 2, …; the depth stays 500 + 2·500.
	wantDropped := []int{0, 0, 0, 1, 2, 3}
	wantDepth := []int{500, 1000, 1500, 1500, 1500, 1500}
	m := s.Model
	bw := s.Device.Bandwidth * s.Inputs.Efficiency.Bandwidth
	for i, tr := range res.Turns {
		if tr.DroppedTurns != wantDropped[i] || tr.Depth != wantDepth[i] || tr.Context > 2048 {
			t.Errorf("turn %d: dropped %d depth %d ctx %d; want %d, %d, ≤ 2048", tr.N, tr.DroppedTurns, tr.Depth, tr.Context, wantDropped[i], wantDepth[i])
		}
		// The shift rewrites K of the 1000 kept history tokens: TinyLlama
		// caches 22 layers × 2 × 4 KV heads × 64 × 2 B = 22,528 B per token,
		// half of it K, read and written: 22,528 × 1000 B at η_bw · 102 GB/s.
		want := 0.0
		if i >= 3 {
			want = 22528 * 1000 / bw
		}
		if !near(tr.ShiftTime, want, 1e-9) && !(want == 0 && tr.ShiftTime == 0) {
			t.Errorf("turn %d: shift %v s, want %v s", tr.N, tr.ShiftTime, want)
		}
	}
	if m.KVBytesPerToken() != 22528 {
		t.Errorf("TinyLlama KV per token %v B, hand 22,528", m.KVBytesPerToken())
	}
	// One turn that cannot fit at all.
	_, err = s.Chat(sim.Conversation{Turns: 1, System: 1500, User: 400, Reply: 400, UBatch: 512}, sim.KeepKV)
	if err == nil || !strings.Contains(err.Error(), "exceed the context limit of 2048") {
		t.Errorf("oversized turn: %v", err)
	}
	for _, c := range []sim.Conversation{{Turns: 0, User: 1, Reply: 1, UBatch: 1}, {Turns: 1, System: -1, User: 1, Reply: 1, UBatch: 1}, {Turns: 1, User: 0, Reply: 1, UBatch: 1}} {
		if _, err := s.Chat(c, sim.KeepKV); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if _, err := s.Chat(conv, "lru"); err == nil {
		t.Error("unknown strategy accepted")
	}
}

func TestSpeculative(t *testing.T) {
	target := newSetup(t, "llama-3.1-8b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	draft := newSetup(t, "llama-3.2-1b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	const ctx = 1000

	// a = 0 and k = 0 is plain decoding.
	r, err := target.Speculate(draft, sim.Speculation{K: 0, Acceptance: 0}, ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.TokensPerRound != 1 || r.DraftTime != 0 || r.TPOT != target.ITL(ctx, 1) || r.Speedup != 1 {
		t.Errorf("k=0 a=0: %+v; want plain decoding (TPOT %v)", r, target.ITL(ctx, 1))
	}
	// Closed form (1 − a^(k+1)) / (1 − a).
	for _, c := range []struct {
		k    int
		a    float64
		want float64
	}{
		{4, 0.8, 3.3616}, // (1 − 0.32768) / 0.2
		{2, 0.5, 1.75},   // (1 − 0.125) / 0.5
		{3, 0, 1},
		{5, 0.9, 4.68559}, // (1 − 0.531441) / 0.1
	} {
		sp := sim.Speculation{K: c.k, Acceptance: c.a}
		if got := sp.TokensPerRound(); !near(got, c.want, 1e-9) {
			t.Errorf("k=%d a=%v: %v tokens per round, want %v", c.k, c.a, got, c.want)
		}
		r, err := target.Speculate(draft, sp, ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := (draft.Decode(ctx, c.k, 1).Time + target.Verify(ctx, c.k+1, 1)) / c.want; !near(r.TPOT, want, 1e-12) {
			t.Errorf("k=%d a=%v: TPOT %v, want %v", c.k, c.a, r.TPOT, want)
		}
		// At the break-even acceptance the speed-up is 1.
		if r.BreakEven > 0 && r.BreakEven < 1 {
			at, _ := target.Speculate(draft, sim.Speculation{K: c.k, Acceptance: r.BreakEven}, ctx, 1)
			if !near(at.Speedup, 1, 1e-9) {
				t.Errorf("k=%d: speed-up %v at the break-even acceptance %v", c.k, at.Speedup, r.BreakEven)
			}
		}
	}
	// A memory-bound target verifies 5 tokens for about the price of one.
	if v1, v5 := target.Verify(ctx, 1, 1), target.Verify(ctx, 5, 1); v5 < v1 || v5 > 1.05*v1 {
		t.Errorf("verify 5 tokens %v s against 1 token %v s", v5, v1)
	}
	if _, err := draft.Speculate(target, sim.Speculation{K: 4, Acceptance: 0.7}, ctx, 1); err == nil || !strings.Contains(err.Error(), "not smaller") {
		t.Errorf("a draft larger than the target: %v", err)
	}
	for _, sp := range []sim.Speculation{{K: 4, Acceptance: 1}, {K: 4, Acceptance: -0.1}, {K: 4, Acceptance: math.NaN()}, {K: -1, Acceptance: 0.5}} {
		if _, err := target.Speculate(draft, sp, ctx, 1); err == nil {
			t.Errorf("%+v accepted", sp)
		}
	}
}

func TestEnergy(t *testing.T) {
	r := &sim.Result{TPOT: 0.03, E2E: 2, Inputs: sim.Inputs{ContinuousBatching: true, Workload: sim.Workload{Batch: 1}}}
	e, err := sim.EnergyOf(r, sim.Draw{Run: 25, Idle: 5, BatteryWh: 50})
	if err != nil {
		t.Fatal(err)
	}
	// 25 W × 0.03 s = 0.75 J per token; 3600 / 0.75 = 4800 tokens per Wh;
	// 25 W × 2 s = 50 J per answer. At the default 10 % duty cycle the mean
	// draw is 0.1 × 25 + 0.9 × 5 = 7 W: 50 Wh last 50 / 7 = 7.142857 h, in
	// which the device answers 10 % of the time: 7.142857 × 3600 × 0.1 / 2
	// s = 1285.714 answers.
	if !near(e.JoulesPerToken, 0.75, 1e-12) || !near(e.TokensPerWh, 4800, 1e-12) || !near(e.JoulesPerAnswer, 50, 1e-12) ||
		!near(e.AveragePower, 7, 1e-12) || !near(e.HoursOfUse, 50.0/7, 1e-12) || !near(e.AnswersPerCharge, 1285.7142857142858, 1e-12) || e.DutyCycle != 0.1 {
		t.Errorf("%+v", e)
	}
	// Answering back to back (duty 1) the idle draw does not count: 50 Wh
	// at 25 W last 2 h, 3600 answers of 2 s.
	if e1, _ := sim.EnergyOf(r, sim.Draw{Run: 25, Idle: 5, DutyCycle: 1, BatteryWh: 50}); !near(e1.HoursOfUse, 2, 1e-12) || !near(e1.AnswersPerCharge, 3600, 1e-12) {
		t.Errorf("duty 1: %+v", e1)
	}
	// A batch shares the draw: per sequence, half; twice the answers.
	r.Inputs.Workload.Batch = 2
	if e2, _ := sim.EnergyOf(r, sim.Draw{Run: 25, Idle: 5, BatteryWh: 50}); !near(e2.JoulesPerToken, 0.375, 1e-12) || !near(e2.AnswersPerCharge, 2*1285.7142857142858, 1e-12) {
		t.Errorf("batch 2: %+v", e2)
	}
	if e0, _ := sim.EnergyOf(r, sim.Draw{Run: 25}); e0.HoursOfUse != 0 || e0.AnswersPerCharge != 0 {
		t.Errorf("no battery: %+v", e0)
	}
	for _, d := range []sim.Draw{{Run: 0}, {Run: -5}, {Run: math.NaN()}, {Run: math.Inf(1)}, {Run: 25, BatteryWh: -1}, {Run: 25, Idle: 30},
		{Run: 25, Idle: -1}, {Run: 25, DutyCycle: 1.5}, {Run: 25, DutyCycle: math.NaN()}} {
		if _, err := sim.EnergyOf(r, d); err == nil {
			t.Errorf("%+v accepted", d)
		}
	}
}

func TestConcurrent(t *testing.T) {
	s := newSetup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	tg := sim.Targets{TTFT: 1, TPOT: 0.2}
	cs := s.Concurrent(64, 8192, 100, 200, 512, tg)
	prev := 0.0
	for _, c := range cs {
		e := s.Evaluate(8192, c.N, 100, 200, 512, tg)
		if c.TTFT != e.TTFT || c.TPOT != e.TPOT || c.Limit != e.Limit || c.TPOT < prev {
			t.Errorf("N=%d: %+v, plan's evaluation %+v", c.N, c, e)
		}
		prev = c.TPOT
	}
	n, l := sim.FirstFailure(cs)
	if n < 2 || l != sim.LimitMemory {
		// 8192 tokens × 114,688 B = 896 MiB per chat: memory runs out first.
		t.Errorf("first failure at N=%d (%v); want memory after a few chats", n, l)
	}
	if l := s.PlanLimits(1, 8192, 100, 200, 512, tg); l.MaxBatchFit != n-1 {
		t.Errorf("memory allows %d chats, first failure at %d", l.MaxBatchFit, n)
	}
}

func TestJoinTTFT(t *testing.T) {
	s := newSetup(t, "llama-3.2-3b", "q4_k_m", "jetson-orin-nano-super-8gb", "gpu")
	m := s.Model
	if s.JoinTTFT(50, 2000, 0, 2200, 512) != s.TTFT(50, 2000, 1, 512) {
		t.Error("with no other chats JoinTTFT must be TTFT")
	}
	// One pass (50 + 3 tokens ≤ 512): the 50 prompt tokens on 2000 cached
	// and one decode token of each of 3 chats attending 2199 keys, their
	// logits included; assembled here from the model's account.
	// Each class (products, attention) is bounded by its own roofline.
	const P, D, O, C = 50, 2000, 3, 2199
	denseB := m.StreamedBytes(P+O, true) + m.ActivationBytes(P+O)
	denseF := float64(P+O)*m.LinearFLOPsPerToken() + (1+O)*m.HeadFLOPs()
	attnB := m.KVBytes(D+P) + O*m.KVBytes(C)
	attnF := m.AttentionPrefillFLOPs(D, P) + O*m.AttentionDecodeFLOPs(C)
	bw := s.Device.Bandwidth * s.Inputs.Efficiency.Bandwidth
	pk := s.Inputs.Peak * s.Inputs.Efficiency.ComputeMax // legacy: flat 0.40, attention too
	want := math.Max(denseB/bw, denseF/pk) + math.Max(attnB/bw, attnF/pk) + s.Inputs.PrefillOverhead
	if got := s.JoinTTFT(P, D, O, C, 512); !near(got, want, 1e-12) {
		t.Errorf("JoinTTFT %v s, hand %v s", got, want)
	}
	// A single arrival is quicker than everyone at once, slower than alone.
	for _, c := range s.Concurrent(8, 2200, 50, 150, 512, sim.Targets{}) {
		if c.N > 1 && !(c.JoinTTFT < c.TTFT && c.JoinTTFT > s.TTFT(50, 2000, 1, 512)) {
			t.Errorf("N=%d: join %v, all at once %v, alone %v", c.N, c.JoinTTFT, c.TTFT, s.TTFT(50, 2000, 1, 512))
		}
	}
}
