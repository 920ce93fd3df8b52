package main

import (
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
	"github.com/urfave/cli/v2"
)

// settingsFlags are a runtime's settings of the run (runtimes.Settings):
// RKLLM's conversion context and the board's clocks, which its profile
// prices with fitted factors ([settings], [setting_factors]).
func settingsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "max-context", Value: &tokenCount{0}, DefaultText: "the runtime's (rkllm: 4096; tensorrt-edge-llm: an engine built for the workload, 4096 or its context)",
			Usage: "rkllm: the context the model was converted for (llm.build max_context) or initialised with (max_context_len), which its KV cache is allocated for; tensorrt-edge-llm: the engine's maxKVCacheCapacity, the tokens each of its maxBatchSize rows of KV cache is allocated for at load, whatever a request asks (`N`; k = 1024)"},
		&cli.StringFlag{Name: "clocks", DefaultText: "not stated (rkllm: priced pinned, the intervals allowing for default governors)",
			Usage: "the board's clocks: for rkllm, `pinned` at their maximum (Rockchip's fix_freq_rk3588.sh, as its benchmark) or default (the board image's governors); for any runtime, pinned at the clocks the board runs at, ddr=FREQ,npu=FREQ (either may be left out: its maximum; roofline show hardware lists a board's): the memory at a step of the profile's memory_clocks, its bandwidth scaled by the step over the highest; the NPU within its min_clock to clock, its peaks scaled by the clock"},
		threadsFlag("every core the CPU engine's profile counts"),
		&cli.IntFlag{Name: "max-seqs",
			Usage: "most requests running at once (`N`): serve's scheduler (vLLM --max-num-seqs, llama.cpp --parallel); for a runtime that runs static batches, the batch its engine was built for (tensorrt-edge-llm: --maxBatchSize), whose rows its KV pool holds and beyond which a batch queues, in predict, plan and chat too; default: the runtime's (tensorrt-edge-llm: 4, llm_build's)"},
	}
}

// threadsFlag is --threads: the cores a CPU engine runs the model on;
// def says what leaving it out means.
func threadsFlag(def string) cli.Flag {
	return &cli.IntFlag{Name: "threads",
		Usage: "cpu engines: the cores the model runs on, one thread each (llama.cpp's -t, `N`): their share of the peaks, and the bandwidth they pull (a profile counts the cores its peaks count: a big.LITTLE chip's big cores); other engines ignore it; default: " + def}
}

// runSettings reads the settingsFlags into o: the runtime's settings and
// the threads.
func runSettings(c *cli.Context, o *sim.Options) error {
	var err error
	if o.Settings, o.Clocks, err = runtimeSettings(c); err != nil {
		return err
	}
	if c.IsSet("max-seqs") {
		if o.MaxSeqs = c.Int("max-seqs"); o.MaxSeqs < 1 || o.MaxSeqs > runtimes.MaxSchedulerSeqs {
			return usageErr("--max-seqs must be a number of sequences from 1 to %d, got %d (leave it out for the runtime's)", runtimes.MaxSchedulerSeqs, o.MaxSeqs)
		}
	}
	return threadsOption(c, o)
}

// threadsOption reads --threads into o.
func threadsOption(c *cli.Context, o *sim.Options) error {
	if c.IsSet("threads") {
		if o.Threads = c.Int("threads"); o.Threads < 1 || float64(o.Threads) > limits.Units.Max {
			return usageErr("--threads must be a number of cores from 1, got %d (leave it out for every core the engine counts)", o.Threads)
		}
	}
	return nil
}

// clocksHint says where a board's clocks are told, for a --clocks that
// does not parse: 'roofline show hardware' lists them (a clock the board
// cannot run at is refused with a value it takes: hardware.ClocksAdvice).
func clocksHint(c *cli.Context) string {
	name := "NAME"
	if h := c.String("hardware"); h != "" {
		name = h
	}
	return "give the clocks as ddr=…MHz,npu=…MHz, at clocks the board has: 'roofline show hardware " + name + "' lists its memory clocks and NPU clocks"
}

// runtimeSettings reads the settingsFlags: --clocks is pinned, default,
// or the clocks the board runs at (ddr=1968MHz,npu=800MHz), which are
// pinned below the maxima.
func runtimeSettings(c *cli.Context) (runtimes.Settings, hardware.Clocks, error) {
	s := runtimes.Settings{MaxContext: c.Int("max-context"), Clocks: strings.TrimSpace(c.String("clocks"))}
	var clk hardware.Clocks
	if c.IsSet("max-context") && (s.MaxContext < 1 || s.MaxContext > limits.Tokens) {
		return s, clk, usageErr("--max-context must be a number of tokens from 1 to %s, got %d (leave it out for the runtime's)", limits.Count(limits.Tokens), s.MaxContext)
	}
	if c.IsSet("clocks") && s.Clocks != runtimes.ClocksPinned && s.Clocks != runtimes.ClocksDefault {
		if !strings.Contains(s.Clocks, "=") {
			ue := usageErr("--clocks must be %s, or the clocks the board runs at (ddr=1968MHz,npu=800MHz), got %q", strings.Join(runtimes.ClockSettings, " or "), s.Clocks).(*usageError)
			ue.hint = clocksHint(c)
			return s, clk, ue
		}
		var err error
		if clk, err = hardware.ParseClocks(s.Clocks); err != nil {
			ue := usageErr("--clocks %v", err).(*usageError)
			ue.hint = clocksHint(c)
			return s, clk, ue
		}
		s.Clocks = runtimes.ClocksPinned
	}
	return s, clk, nil
}
