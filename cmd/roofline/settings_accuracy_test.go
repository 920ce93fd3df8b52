package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/accuracy"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/runtimes"
)

// levelHeld is case i's measured/predicted by its device's level fitted
// without its model, and the interval that prediction carries; ok false
// when the device has no level.
func levelHeld(c *accuracy.Class, lv *accuracy.Level, i int) (float64, runtimes.Spread, bool) {
	if lv == nil {
		return 0, runtimes.Spread{}, false
	}
	for j, ci := range lv.Cases {
		if ci == i {
			return lv.Held[j], c.SpreadFor(lv, i), true
		}
	}
	return 0, runtimes.Spread{}, false
}

// heldStats gathers a set of cases' held-out ratios: by the class with the
// device held out (unmeasured), and by the device's level with the model
// held out (measured), the latter with and without the runtime settings
// (before: every run priced at the runtime's reference).
type heldStats struct {
	unmeasured, measured, before [2][]float64
	ucov, mcov, bcov             [2][]bool
	models                       map[string]bool
}

func (h *heldStats) add(c *accuracy.Class, i int, before *accuracy.Level) {
	cs := c.Cases[i]
	k := 0
	if cs.Run.Test == measured.Prefill {
		k = 1
	}
	if h.models == nil {
		h.models = map[string]bool{}
	}
	h.models[cs.Setup.Model.Spec.Name] = true
	h.unmeasured[k], h.ucov[k] = append(h.unmeasured[k], c.Held[i]), append(h.ucov[k], c.Covered[i])
	lv := c.DeviceLevels[cs.Setup.Device.Module()]
	if r, sp, ok := levelHeld(c, lv, i); ok {
		h.measured[k], h.mcov[k] = append(h.measured[k], r), append(h.mcov[k], r >= sp.Low && r <= sp.High)
	}
	if before == nil {
		before = lv
	}
	for j, ci := range before.Cases {
		if ci != i {
			continue
		}
		sp := before.Decode
		if k == 1 {
			sp = before.Prefill
		}
		if sp.Low == 0 {
			sp = c.Spread
			if k == 1 {
				sp = c.PrefillSpread
			}
		}
		h.before[k], h.bcov[k] = append(h.before[k], before.Held[j]), append(h.bcov[k], before.Held[j] >= sp.Low && before.Held[j] <= sp.High)
	}
}

// oneDecodeRow makes the decode tests one row: each ratio the median of
// theirs, covered when most were; the prefill tests are dropped.
func (h *heldStats) oneDecodeRow() {
	one := func(v []float64, cov []bool) ([]float64, []bool) {
		if len(v) == 0 {
			return nil, nil
		}
		w := slices.Clone(v)
		slices.Sort(w)
		m := w[len(w)/2]
		if len(w)%2 == 0 {
			m = math.Sqrt(w[len(w)/2-1] * w[len(w)/2])
		}
		n := 0
		for _, c := range cov {
			if c {
				n++
			}
		}
		return []float64{m}, []bool{2*n > len(cov)}
	}
	h.measured[0], h.mcov[0] = one(h.measured[0], h.mcov[0])
	h.before[0], h.bcov[0] = one(h.before[0], h.bcov[0])
	h.unmeasured[0], h.ucov[0] = one(h.unmeasured[0], h.ucov[0])
	h.measured[1], h.mcov[1], h.before[1], h.bcov[1], h.unmeasured[1], h.ucov[1] = nil, nil, nil, nil, nil, nil
}

// join adds o's ratios to h's.
func (h *heldStats) join(o *heldStats) {
	for k := 0; k < 2; k++ {
		h.measured[k], h.mcov[k] = append(h.measured[k], o.measured[k]...), append(h.mcov[k], o.mcov[k]...)
		h.before[k], h.bcov[k] = append(h.before[k], o.before[k]...), append(h.bcov[k], o.bcov[k]...)
		h.unmeasured[k], h.ucov[k] = append(h.unmeasured[k], o.unmeasured[k]...), append(h.ucov[k], o.ucov[k]...)
	}
}

// rkllmClass is the RKLLM NPU class and the RK3588's level without the
// settings.
func rkllmClass(classes []*accuracy.Class) (*accuracy.Class, *accuracy.Level) {
	for _, c := range classes {
		if c.Key.String() == "rkllm npu" {
			before, err := c.LevelWithoutSettings("rk3588")
			if err != nil {
				return c, nil
			}
			return c, before
		}
	}
	return nil, nil
}

func statRow(s accuracy.Stat) string {
	if s.N == 0 {
		return "— | — | —"
	}
	return fmt.Sprintf("%s | %.2f | %s", pctOf(s.MdAPE), s.Bias, pctOf(s.Coverage))
}

// settingsSection is docs/accuracy.md's account of RKLLM's settings: the
// fitted factors, and the RK3588's runs by kind of setup before and after
// they were priced.
func settingsSection(classes []*accuracy.Class) string {
	c, before := rkllmClass(classes)
	if c == nil || c.Settings == nil || before == nil {
		return ""
	}
	f := c.Settings.Logs()
	var b strings.Builder
	b.WriteString("### RKLLM's settings: conversion context and clocks\n\n")
	b.WriteString("Rockchip measures its benchmark with every clock pinned at its maximum (`fix_freq_rk3588.sh`) on models converted for short contexts; " +
		"users run 4k–16k conversions on boards left to their governors. Each RKLLM row of `runs.csv` says its `max_context` (the context the model was converted for, " +
		"or initialised with: RKLLM allocates the KV cache from it) and its `clocks` (`pinned` or `default`, or the clocks a board was pinned at below its maxima, `ddr=…,npu=…`, which price it on the device at them: docs/method.md §6, \"Board clocks\"); where a source does not say, the column says what is assumed " +
		"(docs/formats.md). The runtime profile's `[settings]` are what its class was measured at (4096 tokens, pinned), and `[setting_factors]` are fitted beside the RK3588's " +
		"level on its runs set up otherwise (docs/method.md §6, \"Runtime settings\"): a log factor on decode and on prefill time per doubling of the context above 4096, " +
		"and one for default clocks, each shrunk toward no effect (1×). `predict --max-context 16k --clocks default` prices a run so.\n\n")
	fmt.Fprintf(&b, "| factor on time | decode | prefill |\n|---|---:|---:|\n| per doubling of max context above 4096 | %.2f× | %.2f× |\n| clocks default (not pinned) | %.2f× | %.2f× |\n| 16k conversion, clocks default | %.2f× | %.2f× |\n\n",
		math.Exp(f[0][0]), math.Exp(f[1][0]), math.Exp(f[0][1]), math.Exp(f[1][1]), math.Exp(2*f[0][0]+f[0][1]), math.Exp(2*f[1][0]+f[1][1]))
	fmt.Fprintf(&b, "Fitted on %d tests of %d models (RKLLM 1.2.1, VenomekPL/RockchipLlama and kuneberg/rk_llm_chat, SOURCES.md). "+
		"The RK3588's runs, each model predicted by the board's level fitted without it, before (every run priced at the reference, the level fitted on both kinds) and after:\n\n", len(c.Settings.Cases), c.Settings.Groups)
	b.WriteString("| runs | phase | tests | before: MdAPE | measured/predicted | in interval | after: MdAPE | measured/predicted | in interval |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	groups := []struct {
		name string
		keep func(cs accuracy.Case) bool
	}{
		{"Rockchip's benchmark (pinned, 4096)", func(cs accuracy.Case) bool {
			return cs.Run.Clocks == runtimes.ClocksPinned && strings.HasPrefix(cs.Run.Cited(), "RKNN-LLM")
		}},
		{"independent, 4096, clocks pinned", func(cs accuracy.Case) bool {
			return cs.Run.Clocks == runtimes.ClocksPinned && !strings.HasPrefix(cs.Run.Cited(), "RKNN-LLM")
		}},
		{"independent, 4096, clocks default", func(cs accuracy.Case) bool {
			return cs.Run.Clocks == runtimes.ClocksDefault && cs.Run.MaxContext <= 4096
		}},
		{"independent, 16384, clocks default", func(cs accuracy.Case) bool {
			return cs.Run.Clocks == runtimes.ClocksDefault && cs.Run.MaxContext == 16384
		}},
		{"all", func(accuracy.Case) bool { return true }},
	}
	for _, g := range groups {
		var h heldStats
		for i, cs := range c.Cases {
			if c.Scored[i] && cs.Setup.Device.Module() == "rk3588" && g.keep(cs) {
				h.add(c, i, before)
			}
		}
		for k, ph := range []string{"decode", "prefill"} {
			if len(h.measured[k]) == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", g.name, ph, len(h.measured[k]),
				statRow(accuracy.Summarize(h.before[k], h.bcov[k])), statRow(accuracy.Summarize(h.measured[k], h.mcov[k])))
		}
	}
	b.WriteString("\nThe runs cannot tell every cause apart: the independent runs differ from Rockchip's in more than the two settings (RKLLM 1.2.1 against 1.3.0, " +
		"sampling with top_k 20 on the CPU against greedy, the board and its memory), and none states its governors, so `default` is assumed for them " +
		"(neither source says it ran Rockchip's script). One independent source states every clock (HI5808-RKLLM: RKLLM 1.3.0 on a ROCK 5B+ whose bootloader was rebuilt so that " +
		"the DDR clock can reach its 2400 MHz, CPU and NPU governors at performance, TinyLlama-1.1B w8a8 converted for 4096 tokens): its runs are set up as the reference and " +
		"are not in the factors' fit; its DMC sweep (534–2400 MHz at NPU 800 MHz) is priced at each run's DDR step (\"independent, 4096, clocks pinned\" above holds it) " +
		"and its NPU sweep below 1 GHz is held out of scope (below). The clocks factor carries all of that; the context factor rests on Qwen3-4B converted for 16k " +
		"against 4k on two boards, and Qwen3-0.6B at 16k against Rockchip's own run. The prefill factors rest on one source's server TTFTs of short chat prompts. " +
		"The intervals of runs set up otherwise are their own, from those runs each model held out.\n\n")
	return b.String()
}

// releasedSources are issue 24's 23 released rows (../shared/validation/
// public.csv), as runs.csv holds them: the sources of their tests, and
// which public rows they are.
var releasedSources = []struct {
	rows    string
	origins []string
	// one: the tests stand in for one decode row, scored as the median
	// of their ratios (the row states no prefill).
	one  bool
	note string
}{
	{"400–402 SMOLBENCH-ORIN-NANO", smolbench("Qwen2.5-0.5B"), false, ""},
	{"403–405 SMOLBENCH-ORIN-NANO", smolbench("Qwen3-0.6B"), false, ""},
	{"406–408 SMOLBENCH-ORIN-NANO", smolbench("Llama3.2-1B"), false, ""},
	{"432–439 VENOMEK-RKLLM", venomek("benchmark_report_qwen3_0.6b.md @28f42b98", 8), false, ""},
	{"440 VENOMEK-RKLLM", venomek("benchmark_report_qwen3_4b.md @65695c1b", 6), true,
		"Row 440 (Qwen3-4B, 3.13 tokens/s, no lengths stated) is scored as one decode row, the median of the same server's Qwen3-4B report, tests 1–6 (3.00–3.19 tokens/s over 33–639 generated tokens)."},
}

// smolbench is the sources of smolbenchmark's Table 15 tests of model in
// the three power modes the released rows give (15W, 25W, MAXN_SUPER).
func smolbench(model string) []string {
	var out []string
	for _, mode := range []string{"15W", "25W", "MAXN"} {
		out = append(out, "SMOLBENCH-ORIN-NANO Table 15 "+model+" "+mode)
	}
	return out
}

// venomek is the sources of tests 1 to n of a RockchipLlama report.
func venomek(report string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("VENOMEK-RKLLM %s Test %d/10", report, i))
	}
	return out
}

// releasedSection is the table of issue 24's released rows, as predict
// gives them (each model held out of its board's level) and as for a
// board nobody measured.
func releasedSection(classes []*accuracy.Class) string {
	var b strings.Builder
	b.WriteString("### The released rows\n\n")
	b.WriteString("Issue 24's 23 rows of `../shared/validation/public.csv` (sources SMOLBENCH-ORIN-NANO, STRATO-RPI5, VENOMEK-RKLLM), each priced with its power mode and " +
		"runtime settings as published. *Measured*: the board's level fitted without the model (what `predict` gives); *before settings*: the same with every RKLLM run priced at " +
		"Rockchip's reference; *unmeasured*: the board held out. The five STRATO-RPI5 rows (Ollama on a Raspberry Pi 5) state no output length and are not in `runs.csv` (SOURCES.md).\n\n")
	b.WriteString("| rows | phase | tests | measured: MdAPE | measured/predicted | in interval | before settings: MdAPE | in interval | unmeasured: MdAPE | in interval |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	_, before := rkllmClass(classes)
	var all heldStats
	for _, src := range releasedSources {
		var h heldStats
		for _, c := range classes {
			var bl *accuracy.Level
			if c.Key.String() == "rkllm npu" {
				bl = before
			}
			for i, cs := range c.Cases {
				if c.Scored[i] && slices.Contains(src.origins, cs.Run.Origin) {
					h.add(c, i, bl)
				}
			}
		}
		if src.one {
			h.oneDecodeRow()
		}
		all.join(&h)
		for k, ph := range []string{"decode", "prefill"} {
			if len(h.measured[k]) == 0 {
				continue
			}
			m, bs, u := accuracy.Summarize(h.measured[k], h.mcov[k]), accuracy.Summarize(h.before[k], h.bcov[k]), accuracy.Summarize(h.unmeasured[k], h.ucov[k])
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %.2f | %s | %s | %s | %s | %s |\n", src.rows, ph, m.N, pctOf(m.MdAPE), m.Bias, pctOf(m.Coverage),
				pctOf(bs.MdAPE), pctOf(bs.Coverage), pctOf(u.MdAPE), pctOf(u.Coverage))
		}
	}
	d, p := accuracy.Summarize(all.measured[0], all.mcov[0]), accuracy.Summarize(all.measured[1], all.mcov[1])
	bd, bp := accuracy.Summarize(all.before[0], all.bcov[0]), accuracy.Summarize(all.before[1], all.bcov[1])
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "not met"
	}
	fmt.Fprintf(&b, "\nAll scored released rows, as `predict` gives them: decode MdAPE %s over %d rows (before settings %s), in the interval %s; prefill %s over %d (before %s), in the interval %s. "+
		"Issue 24 asks decode ≤ 8 %% (%s), prefill ≤ 15 %% (%s), intervals covering (%s). %s\n\n",
		pctOf(d.MdAPE), d.N, pctOf(bd.MdAPE), pctOf(d.Coverage), pctOf(p.MdAPE), p.N, pctOf(bp.MdAPE), pctOf(p.Coverage),
		verdict(d.MdAPE <= 0.08), verdict(p.MdAPE <= 0.15), verdict(d.Coverage >= 0.75 && p.Coverage >= 0.75), releasedSources[len(releasedSources)-1].note)
	return b.String()
}
