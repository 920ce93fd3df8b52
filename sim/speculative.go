package sim

import (
	"fmt"
	"math"
)

// Verify is the time of one target pass over `tokens` query tokens per
// sequence for `batch` sequences, the first attending ctx keys: the weights
// are streamed once for all batch·tokens tokens, each sequence's KV cache
// is read once (fused attention), and every position gets logits. With one
// token it is exactly ITL(ctx, batch).
func (s *Setup) Verify(ctx, tokens, batch int) float64 {
	if tokens == 1 {
		return s.ITL(ctx, batch)
	}
	p := newPhases(s.Model, Workload{Prompt: ctx - 1, Output: 2, Batch: batch, UBatch: 1}, s.Inputs.FlashAttention)
	p.step = s.Model.Matmuls(batch*tokens, batch*tokens)
	B := float64(batch)
	last := ctx + tokens - 1
	r := s.decodeRates(batch * tokens)
	u := matmulCost(&p.step, r)
	u = attention(u, B*p.kvRead(last), B*s.Model.AttentionDecodeFLOPsSum(ctx, last), r)
	return u.time()
}

// Speculation is speculative decoding with a draft model: each round the
// draft proposes K tokens one decode step at a time, the target verifies
// them in one pass of K+1 tokens, and each proposal is accepted with
// probability Acceptance, independently (the model of Leviathan et al.,
// 2023, "Fast Inference from Transformers via Speculative Decoding").
type Speculation struct {
	K          int
	Acceptance float64 // a, in [0, 1)
}

// Validate rejects impossible settings with a *FieldError naming the
// field (K, Acceptance).
func (sp Speculation) Validate() error {
	if sp.K < 0 || sp.K > 64 {
		return &FieldError{"K", fmt.Sprintf("must be 0 … 64 tokens, got %d", sp.K)}
	}
	if !(sp.Acceptance >= 0 && sp.Acceptance < 1) {
		return &FieldError{"Acceptance", fmt.Sprintf("must be in [0, 1), got %g", sp.Acceptance)}
	}
	return nil
}

// TokensPerRound is the expected number of tokens one round yields:
// (1 − a^(K+1)) / (1 − a), from 1 at a = 0 towards K+1 as a → 1.
func (sp Speculation) TokensPerRound() float64 {
	return tokensPerRound(sp.K, sp.Acceptance)
}

func tokensPerRound(k int, a float64) float64 {
	if a == 0 {
		return 1
	}
	return (1 - math.Pow(a, float64(k+1))) / (1 - a)
}

// SpeculativeResult prices speculative decoding at one context.
type SpeculativeResult struct {
	TokensPerRound float64 // expected tokens per round
	DraftTime      float64 // K draft decode steps, s
	VerifyTime     float64 // one target pass of K+1 tokens, s
	TPOT           float64 // (DraftTime + VerifyTime) / TokensPerRound, s
	PlainTPOT      float64 // the target's own decode step, s
	Speedup        float64 // PlainTPOT / TPOT
	// BreakEven is the acceptance rate below which speculation is slower
	// than plain decoding: 0 when it always pays, 1 when it never does.
	BreakEven float64
	// ExtraMemory is the draft's weights and KV cache, bytes.
	ExtraMemory float64
	// Context and Batch are what the round was priced at.
	Context, Batch int
	// Fits says whether the target, its cache and the draft fit in the
	// usable memory together (set by SpeculateOn).
	Fits     bool
	Warnings []Warning
}

// SpeculateOn prices speculative decoding over workload w, the one rule
// predict and chat follow: a round at the context of w's middle decode step
// (Workload.MidContext) for its batch, and whether the target with its
// cache at the end of w and the draft fit in usable memory together.
func (s *Setup) SpeculateOn(draft *Setup, sp Speculation, w Workload) (SpeculativeResult, error) {
	if err := w.Validate(); err != nil {
		return SpeculativeResult{}, err
	}
	r, err := s.Speculate(draft, sp, w.MidContext(), w.Batch)
	if err != nil {
		return r, err
	}
	r.ExtraMemory = draftMemory(draft, w.Context()+sp.K, w.Batch)
	r.Fits = s.Memory(w.Context(), w.Batch, w.UBatch).Total+r.ExtraMemory <= s.Usable()
	if dv, tv := draft.Model.Spec.Vocab, s.Model.Spec.Vocab; dv != tv {
		r.Warnings = append(r.Warnings, Warning{Code: "draft-vocab",
			Message: fmt.Sprintf("the draft's vocabulary (%d) differs from the target's (%d): speculative decoding needs the same tokenizer", dv, tv)})
	}
	return r, nil
}

// Speculate prices one round of speculative decoding for `batch`
// sequences whose next token attends ctx keys, drafted by draft (a Setup of
// the draft model on the same device). The draft's catch-up on the token
// the target adds each round is folded into its next round's first step.
func (s *Setup) Speculate(draft *Setup, sp Speculation, ctx, batch int) (SpeculativeResult, error) {
	if err := sp.Validate(); err != nil {
		return SpeculativeResult{}, err
	}
	if draft.Model.ParamsActive >= s.Model.ParamsActive {
		return SpeculativeResult{}, fmt.Errorf("draft model %s (%.3g active parameters) is not smaller than the target %s (%.3g): it cannot speed it up",
			draft.Model.Spec.Name, draft.Model.ParamsActive, s.Model.Spec.Name, s.Model.ParamsActive)
	}
	r := SpeculativeResult{TokensPerRound: sp.TokensPerRound(), PlainTPOT: s.ITL(ctx, batch), Context: ctx, Batch: batch}
	r.DraftTime = draft.Decode(ctx, sp.K, batch).Time
	r.VerifyTime = s.Verify(ctx, sp.K+1, batch)
	r.TPOT = (r.DraftTime + r.VerifyTime) / r.TokensPerRound
	r.Speedup = r.PlainTPOT / r.TPOT
	r.ExtraMemory = draftMemory(draft, ctx+sp.K, batch)
	// Speculation pays when tokensPerRound(a) > cost / plain; the left side
	// rises from 1 at a = 0 to K+1 as a → 1.
	ratio := (r.DraftTime + r.VerifyTime) / r.PlainTPOT
	switch {
	case ratio <= 1:
		r.BreakEven = 0
	case ratio >= float64(sp.K+1):
		r.BreakEven = 1
	default:
		lo, hi := 0.0, 1.0
		for i := 0; i < 60; i++ {
			mid := (lo + hi) / 2
			if tokensPerRound(sp.K, mid) < ratio {
				lo = mid
			} else {
				hi = mid
			}
		}
		r.BreakEven = (lo + hi) / 2
	}
	return r, nil
}

// draftMemory is what a draft adds to memory: its weights and the KV cache
// of batch sequences of ctx tokens.
func draftMemory(draft *Setup, ctx, batch int) float64 {
	return draft.Model.WeightBytes + float64(batch)*draft.Model.KVBytes(ctx)
}
