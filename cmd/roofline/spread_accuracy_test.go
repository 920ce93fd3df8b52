package main

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/accuracy"
	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/sim"
)

// publicSpreadRuns are the published runs of models spread over several
// devices or memories (runs CSV with spread columns): never fitted on.
const publicSpreadRuns = "testdata/public/multi.csv"

// The targets (issue 26) for runs over several devices, held as
// guards: decode and prefill MdAPE, and the share of runs inside the 80 %
// interval.
const (
	maxSpreadDecodeMdAPE  = 0.15
	maxSpreadPrefillMdAPE = 0.25
	minSpreadCoverage     = 0.75
	maxSpreadCoverage     = 0.90
)

// spreadResult is every scored spread run priced, with its kind.
type spreadResult struct {
	checks []*app.SpreadCheck
	kinds  []string
	runs   []measured.Run // every row, excluded ones too
	err    error
}

var (
	spreadOnce sync.Once
	spreadRes  spreadResult
)

// spreadChecks prices every scored row of publicSpreadRuns as roofline
// predict does, once.
func spreadChecks(t *testing.T) spreadResult {
	t.Helper()
	spreadOnce.Do(func() {
		b, err := os.ReadFile(publicSpreadRuns)
		if err != nil {
			spreadRes.err = err
			return
		}
		res, err := measured.Read(publicSpreadRuns, b)
		if err != nil {
			spreadRes.err = err
			return
		}
		if len(res.Bad) > 0 {
			spreadRes.err = fmt.Errorf("bad rows: %v", res.Bad)
			return
		}
		env, err := app.NewEnv()
		if err != nil {
			spreadRes.err = err
			return
		}
		spreadRes.runs = res.Runs
		for _, r := range res.Runs {
			if !r.Spread.Any() {
				spreadRes.err = fmt.Errorf("%s (%s): no spread columns: a run on one device belongs in runs.csv", r.Source(), r.Cited())
				return
			}
			if r.Exclude != "" {
				continue
			}
			c, err := env.CheckSpreadRun(r)
			if err != nil {
				spreadRes.err = fmt.Errorf("%s (%s): %w", r.Source(), r.Cited(), err)
				return
			}
			spreadRes.checks = append(spreadRes.checks, c)
			spreadRes.kinds = append(spreadRes.kinds, spreadKind(c))
		}
	})
	if spreadRes.err != nil {
		t.Fatal(spreadRes.err)
	}
	return spreadRes
}

// spreadKind names how a check's model was spread, for the tables.
func spreadKind(c *app.SpreadCheck) string {
	sp := c.Prediction.Split
	if sp == nil {
		return "one device"
	}
	rt := c.Prediction.Inputs.Runtime
	switch {
	case sp.Kind == sim.Offload:
		return rt + ": layers or experts in host memory"
	case sp.Kind == sim.Network && sp.TP > 1:
		return rt + ": tensor parallel over boards"
	case sp.Kind == sim.Network:
		return rt + ": layers over boards (RPC)"
	case sp.TP > 1:
		return rt + ": tensor parallel over GPUs"
	}
	return rt + ": layers split over GPUs"
}

// spreadStat summarises the checks that keep passes.
func spreadStat(res spreadResult, keep func(i int) bool) accuracy.Stat {
	var r []float64
	var cov []bool
	for i, c := range res.checks {
		if keep(i) {
			// measured time / predicted time, as accuracy.Summarize takes.
			r = append(r, c.Predicted/c.Measured)
			cov = append(cov, c.Covered())
		}
	}
	return accuracy.Summarize(r, cov)
}

func spreadPhase(res spreadResult, ph measured.Test) func(int) bool {
	return func(i int) bool { return res.checks[i].Run.Test == ph }
}

// TestSpreadAccuracy prices the published runs over several devices and
// memories (testdata/public/multi.csv: llama.cpp's layer split over 2–8
// GPUs, tensor parallel in TensorRT-LLM and gpt-fast) with the classes
// fitted on runs.csv alone, and holds the targets: decode MdAPE ≤
// 15 %, prefill ≤ 25 %, 75–90 % of runs inside the 80 % interval.
// docs/accuracy.md's "Beyond one device" is written from the same figures
// by TestPublicAccuracy.
func TestSpreadAccuracy(t *testing.T) {
	if raceDetector {
		t.Skip("single-threaded arithmetic, checked without -race")
	}
	res := spreadChecks(t)
	if len(res.checks) < 150 {
		t.Fatalf("%d scored runs over several devices, want the 150 or more of %s", len(res.checks), publicSpreadRuns)
	}
	dec, pre := spreadStat(res, spreadPhase(res, measured.Decode)), spreadStat(res, spreadPhase(res, measured.Prefill))
	all := spreadStat(res, func(int) bool { return true })
	if dec.MdAPE > maxSpreadDecodeMdAPE {
		t.Errorf("spread runs: decode MdAPE %.1f%%, target %.0f%%", 100*dec.MdAPE, 100*maxSpreadDecodeMdAPE)
	}
	if pre.MdAPE > maxSpreadPrefillMdAPE {
		t.Errorf("spread runs: prefill MdAPE %.1f%%, target %.0f%%", 100*pre.MdAPE, 100*maxSpreadPrefillMdAPE)
	}
	if all.Coverage < minSpreadCoverage || all.Coverage > maxSpreadCoverage {
		t.Errorf("spread runs: %.1f%% inside the 80 %% interval, want %.0f–%.0f %%", 100*all.Coverage, 100*minSpreadCoverage, 100*maxSpreadCoverage)
	}
	// Every scored run is priced as a split (not one device as it is),
	// and none beats its ideal bound.
	for _, c := range res.checks {
		p := c.Prediction
		if p.Split == nil {
			t.Errorf("%s: priced on one device", c.Run.Cited())
			continue
		}
		bound := p.TTFTBound
		if c.Run.Test == measured.Decode {
			bound = p.TPOTBound * float64(c.Run.Gen)
		}
		if rate := float64(c.Run.Tokens()) / bound; c.Measured > rate*1.02 {
			t.Errorf("%s: %.4g t/s beats the ideal bound %.4g", c.Run.Cited(), c.Measured, rate)
		}
	}
}

// spreadSection is docs/accuracy.md's "Beyond one device": the spread
// runs' figures by kind of split, by source and the largest misses.
func spreadSection(t *testing.T) string {
	res := spreadChecks(t)
	var b strings.Builder
	b.WriteString("## Beyond one device\n\n")
	b.WriteString("Published runs of models spread over several GPUs, boards or a GPU and its host " +
		"(`cmd/roofline/testdata/public/multi.csv`, sources in SOURCES.md there), each priced as `roofline predict` " +
		"prices the same request with the same spread flags (`--devices`, `--tp`, `--pp`, `--gpu-layers`, …). " +
		"The efficiencies are the built-in classes, fitted on runs.csv alone: no run of this file is fitted on. " +
		"The same sources' runs on one device are in runs.csv, so the device's own level carries over; " +
		"the error beside it is the split's (the link, the stages, the collectives) plus the device's own miss on those runs.\n\n")
	dec, pre := spreadStat(res, spreadPhase(res, measured.Decode)), spreadStat(res, spreadPhase(res, measured.Prefill))
	all := spreadStat(res, func(int) bool { return true })
	b.WriteString("| phase | tests | MdAPE | P90 | measured/predicted | in 80 % interval |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| decode | %s |\n| prefill | %s |\n| **all** | %s |\n\n", spreadCells(dec), spreadCells(pre), spreadCells(all))
	met := dec.MdAPE <= maxSpreadDecodeMdAPE && pre.MdAPE <= maxSpreadPrefillMdAPE && all.Coverage >= minSpreadCoverage && all.Coverage <= maxSpreadCoverage
	verdict := "met"
	if !met {
		verdict = "not met"
	}
	fmt.Fprintf(&b, "The aims of issue 26 — decode MdAPE ≤ %.0f %%, prefill ≤ %.0f %%, %.0f–%.0f %% of runs inside the interval — are %s (checked by TestSpreadAccuracy).\n\n",
		100*maxSpreadDecodeMdAPE, 100*maxSpreadPrefillMdAPE, 100*minSpreadCoverage, 100*maxSpreadCoverage, verdict)

	b.WriteString("| how the model is spread | source | devices | phase | tests | MdAPE | P90 | measured/predicted | in 80 % interval |\n|---|---|---|---|---:|---:|---:|---:|---:|\n")
	type key struct{ kind, src, devs string }
	groups := map[key][]int{}
	var keys []key
	for i, c := range res.checks {
		k := key{res.kinds[i], strings.SplitN(c.Run.Origin, " ", 2)[0], spreadDevices(c)}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind < keys[j].kind
		}
		if keys[i].src != keys[j].src {
			return keys[i].src < keys[j].src
		}
		return keys[i].devs < keys[j].devs
	})
	for _, k := range keys {
		in := map[int]bool{}
		for _, i := range groups[k] {
			in[i] = true
		}
		for _, ph := range []measured.Test{measured.Decode, measured.Prefill} {
			s := spreadStat(res, func(i int) bool { return in[i] && res.checks[i].Run.Test == ph })
			if s.N == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", k.kind, k.src, k.devs, ph, spreadCells(s))
		}
	}

	// The largest misses, each test named.
	idx := make([]int, len(res.checks))
	for i := range idx {
		idx[i] = i
	}
	ape := func(i int) float64 { return math.Abs(res.checks[i].Predicted/res.checks[i].Measured - 1) }
	sort.SliceStable(idx, func(a, b int) bool { return ape(idx[a]) > ape(idx[b]) })
	b.WriteString("\nmeasured/predicted is of time, as above: below 1 the runs were faster than predicted.\n\nThe ten largest misses:\n\n| run | devices | test | measured t/s | predicted t/s | measured/predicted time |\n|---|---|---|---:|---:|---:|\n")
	for _, i := range idx[:min(10, len(idx))] {
		c := res.checks[i]
		fmt.Fprintf(&b, "| %s | %s | %s | %.4g | %.4g | %.2f |\n", c.Run.Origin, spreadDevices(c), c.Run.TestName(), c.Measured, c.Predicted, c.Predicted/c.Measured)
	}
	excluded := 0
	for _, r := range res.runs {
		if r.Exclude != "" {
			excluded++
		}
	}
	fmt.Fprintf(&b, "\n%d of %d rows are not scored: their exclude column says why (a device without a profile, a fault the source's single-device rows show too, a version that synchronised otherwise).\n\n", excluded, len(res.runs))
	b.WriteString(spreadLeft)
	return b.String()
}

// spreadDevices says on what a check ran: "4 × rtx-4090 (pcie4-x16)".
func spreadDevices(c *app.SpreadCheck) string {
	sp := c.Prediction.Split
	s := fmt.Sprintf("%d × %s", sp.Devices, c.Prediction.Inputs.Device)
	if sp.Link != "" {
		s += " (" + sp.Link + ")"
	}
	return s
}

func spreadCells(s accuracy.Stat) string {
	if s.N == 0 {
		return "0 | — | — | — | —"
	}
	return fmt.Sprintf("%d | %s | %s | %.2f | %s", s.N, pctOf(s.MdAPE), pctOf(s.P90), s.Bias, pctOf(s.Coverage))
}

const spreadLeft = `What these runs show:

- **Decode over a layer split** is the single device's decode: the
  stages run one after another and the hops between GPUs (one activation
  transfer per stage boundary, 43 µs over PCIe) are under 1 % of a
  token. The misses are the device's own on the same source's
  single-GPU runs (RTX 4090 and 3090 F16 decode 1.14–1.22× faster than
  predicted on one GPU as on eight; A100 and H100 PCIe Q4 decode 15–25 %
  slower, on one GPU as on four).
- **Prefill over a layer split** of a whole prompt in one pass (pp512) is
  within the single device's error. Longer prompts (pp4096: eight passes
  of 512) are predicted to overlap through the pipeline as llama.cpp's
  pipeline parallelism allows; the 8B models reach that overlap, the 70B
  models mostly do not (4 × RTX 4090: 840 t/s at pp4096 as at pp512, where
  the overlap predicts 1880). Their passes are 10× longer and llama.cpp
  flushes the pipeline at the end of each n_batch (2048 tokens: four
  passes); what holds the 70B back further is not known from these runs,
  so the interval misses them.
- **Tensor parallel on NVLink at batch 1** (gpt-fast, 2–8 A100): the ring
  all-reduce priced at 2(N−1) steps of 3 µs charges 42 µs to each of the
  64 all-reduces of a token on 8 GPUs; gpt-fast's measured 3.05 ms a token
  leaves about 25 µs for each, so TP 8 is predicted 1.3–1.8× slow. A
  small all-reduce's latency that grows more slowly than the ring's steps
  needs a sourced NCCL figure for 4 and 8 GPUs.
- **distributed-llama on Raspberry Pi 5s** (its PR #64: Llama 3 8B Q40 on
  gigabit Ethernet): two boards within 12 %, four 1.5× slower than
  predicted. The run's transfer time, 75 ms a token, is nearly three
  times the 27 ms its bytes and one 0.25 ms message latency per exchange
  are priced at (its author blames the switch); the single-board class is
  fitted on the two single-Pi runs of its README (version 0.3.1) alone.

`
