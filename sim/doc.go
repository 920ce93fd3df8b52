// Package sim turns the byte and FLOP account of package model and the peaks
// of package hardware into time: time to first token (TTFT), time per output
// token (TPOT) and inter-token latency (ITL), end-to-end latency, throughput
// and memory fit. It adds no byte or FLOP formula of its own.
//
// A prediction runs these steps:
//
//  1. Resolve the engine and the precision its kernels run at: the first of
//     the weight format's preferred precisions the engine has a peak for.
//  2. Prefill: the B prompts of P tokens on top of D cached tokens are
//     processed in passes of ⌊U/B⌋ tokens per sequence. A pass costs
//     max(FLOPs / (peak · η_compute), bytes / (bandwidth · η_bw)) plus the
//     engine's fixed overhead, where bytes are the weights streamed once per
//     pass, each sequence's KV cache read once and the new entries written,
//     and the activations. TTFT is the sum over passes.
//  3. Decode: step i = 1 … G−1 attends D+P+i keys per sequence; its bytes are
//     the weights streamed for B tokens (distinct experts for MoE) plus
//     every sequence's KV cache; its FLOPs are B × the per-token FLOPs at
//     that context. ITL_i = max(memory, compute) + overhead; TPOT is their
//     mean; E2E = TTFT + Σ ITL_i.
//  4. Both phases are summed in closed form: between sliding-window
//     boundaries the memory and compute terms are linear in the position,
//     so their maximum is summed piece by piece and a 128k-token
//     prediction costs the same as a 128-token one.
//  5. The same sums at 100 % of peak with no overhead give the ideal
//     figures: the physical limit no measurement can beat.
//  6. Memory fit: weights + KV for B × (D+P+G) tokens + peak activations +
//     the runtime overhead, against the device's usable memory.
//
// Operators (Setup.Operators): the same passes and steps, each class's time
// attributed to the operators of model.Cost.Operators — by their memory
// terms where memory bounds the class, by their compute terms where compute
// does — so a prefill's operators add up to TTFT, a mean step's to TPOT.
//
// The package never prints; warnings are returned as data.
package sim
