package main

// The hand-written parts of docs/calibration.md; TestCalibrationDoc adds the
// worked example and the per-device table from the code.

const calibrationDocHead = `# Calibration

Datasheet peaks are limits, not speeds. ` + "`roofline calibrate`" + ` fits what one
device engine achieves with one runtime to runs you measured, so that
predictions for models and contexts you have not measured carry an honest
error bar. This page is partly generated: ` + "`go test ./cmd/roofline -run TestCalibrationDoc -update`" + `
rewrites the example and the table below.

## The model being fitted

Every run is priced with the same byte and FLOP account as predictions
(docs/method.md). With x the bytes a decode step moves divided by the
datasheet bandwidth (weights streamed, plus the KV cache at the step's
context), and v the FLOPs of a prefill divided by the dense peak:

    decode step time   = t_decode  + x / η_bw[format]
    prefill test time  = n_passes · t_prefill + v / η_compute

Both are linear in the unknowns (t_decode, 1/η_bw) and (t_prefill, 1/η_compute).
They are solved by least squares weighted by relative error — each point's
equation is divided by its measured time, so a 1B and a 70B model count alike
— with gonum's QR factorization. Standard errors come from the residual
variance and (AᵀA)⁻¹; the covariance is kept in the profile so that
predictions from it carry a 90 % prediction interval (delta method over the
four parameters, plus the fit's relative scatter for a new run, scaled by
Student's t at the fit's degrees of freedom).

- **Degrees of freedom count the prior.** The fit starts from the runtime's
  class (the prior), so a parameter the class holds firmly costs the runs
  little: each phase's runs spend the sum of their leverages (the diagonal of
  the hat matrix, the prior's rows taking the rest), not one degree of freedom
  per parameter they inform. Eight prefill runs against six prefill
  parameters kept 2 degrees of freedom (a TTFT interval of ±47 % on the M2
  Ultra below); they now keep 6 (±19 %).
- **Never more certain than the class.** A phase with no degree of freedom
  left (no prefill run, or one) keeps the runtime class's interval, at 90 %,
  about the calibrated figure; predict says which ("the TTFT interval is the
  runtime class's"), JSON lists it in ` + "`class_intervals`" + `, and plan's
  verdicts weigh that phase with the class's spread. An MoE model's decode
  kept on the class's interval takes the class's widened one where its MoE
  decode runs are held out of scope (warning ` + "`moe-decode-unmodelled`" + `,
  docs/accuracy.md); a calibration that measured decode gives its own.
- **One efficiency per weight format** when the runs hold at least two more
  points than unknowns: dequantizing kernels (Q4_K on an Apple GPU) reach a
  smaller share of the bandwidth than f16 ones. The profile keeps each
  format's efficiency and a pooled one for other formats. With fewer points,
  one efficiency serves all formats (a note says so). Every figure calibrate
  prints is what the written profile predicts: the FITTED column, R², the
  scatter behind the intervals (whose degrees of freedom count the per-format
  shares too) and the held-out error (each fold refits the shares) use each
  format's own share. A GPU whose profile gives a measured read, under a
  class that fits a read share (llama.cpp CUDA: the RTX 3090 and 4090, the
  DGX Spark, the AGX Orin, the Thor), decodes at the fitted share of that
  read (docs/method.md §6), which a bandwidth share does not move: it gets
  one read share for every format, and a note says so.
- **Unambiguous points only.** Decode points whose compute term comes within
  half of the memory term (large batches) are left out of the bandwidth fit;
  prefill points enter the compute fit only when their compute term exceeds
  1.5 × their memory term at the fitted bandwidth efficiency. Which prefill
  runs qualify depends on the efficiency being fitted, so classification and
  fit are iterated until they agree.
- **Attention without flash attention** reads each sequence's KV cache once
  per query head (the GQA group). llama-bench records ` + "`flash_attn`" + `; runs without
  it are priced that way (` + "`--flash-attn`" + ` overrides).
- **No silent nonsense.** Fewer points than unknowns, or points that all move
  the same bytes per step, leave the overhead at the default rule and say so;
  an efficiency above 1 (faster than the datasheet allows), a negative one
  (more work, less time), or a profile that would not validate is refused with
  the reason. A negative fitted overhead is fixed at 0 and refitted, with a
  note.
- **Quality.** R² per phase, each point's residual, and the leave-one-out
  median absolute percentage error: each point predicted from a fit of the
  others — the honest estimate of how well the calibration predicts a run it
  has not seen. Past 20 runs the runs are held out in 20 folds (run i with
  runs i ± 20, i ± 40, …), so the error costs 20 refits however many runs
  there are and a calibration stays linear in its runs (1,000 runs about
  0.6 s, 8,000 about 8 s: ` + "`BenchmarkCalibrate`" + `); the output says which,
  and JSON gives ` + "`held_out_folds`" + `.

The fitted overheads are per decode step and per prefill pass for this
runtime; unlike the default rule they do not scale with the model's layers.

## Measuring runs that calibrate well

- Vary what changes the bytes per step: two or three model sizes (1B, 3B, 8B)
  and depths (` + "`llama-bench -d 0,4096`" + `), in the format you deploy.
- Include compute-bound prefills: ` + "`-p 512,2048`" + `.
- One runtime build, one power mode, one engine per calibration: the profile
  records them as what it is valid for.

    llama-bench -m 1b.gguf -m 3b.gguf -m 8b.gguf -p 512,2048 -n 128 -d 0,4096 -o jsonl > runs.jsonl
    roofline calibrate runs.jsonl --hardware jetson-orin-nano-super-8gb -o orin.toml
    roofline predict --model qwen2.5-7b --hardware orin.toml --weights q4_k_m

## Worked example on public data

LLaMA-3 8B and 70B in Q4_K_M and F16 on a 76-core M2 Ultra, llama.cpp
b3a995b4, tg512/tg4096 and pp512/pp4096 (XiongjieDai/GPU-Benchmarks-on-LLM-Inference,
as copied in ../shared/validation/public.csv):

`

const calibrationDocMiddle = `
## Leave-one-out decode error on the published runs

Every device and runtime build in ` + "`cmd/roofline/testdata/public/runs.csv`" + ` with at
least four llama.cpp decode tests, calibrated on its decode tests alone
(` + "`TestPublicLeaveOneOut`" + ` requires each to be under 8 %):

`

const calibrationDocTail = `
These are the figures to expect from a calibration on a handful of runs of one
runtime build. The same devices without calibration are in docs/accuracy.md.
`
