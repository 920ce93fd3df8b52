package main

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// formatFlag is the --format flag of a command writing formats fs.
func formatFlag(fs render.Formats) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Value: fs.Default().String(), Usage: "output `FORMAT`: " + fs.String()}
}

// outputFormat reads --format.
func outputFormat(c *cli.Context, fs render.Formats) (render.Format, error) {
	f, err := fs.Parse(c.String("format"))
	if err != nil {
		return 0, usageErr("--format %v", err)
	}
	return f, nil
}

// write prints an answer in format f.
func write(c *cli.Context, f render.Format, a render.Answer) error {
	if !f.ForPeople() {
		// JSON and CSV are written as they are encoded, once the answer
		// stands: a chat of 100,000 turns is 120 MB of JSON, which the
		// spool held whole (and Terminal copied twice).
		if err := writeThrough(c); err != nil {
			return err
		}
	}
	return render.Write(c.App.Writer, c.App.ErrWriter, f, a)
}

// noExtraArgs rejects stray positional arguments.
func noExtraArgs(c *cli.Context, want int) error {
	if c.NArg() > want {
		return usageErr("unexpected argument %q", c.Args().Get(want))
	}
	return nil
}

// simOptions reads the efficiency, overhead and attention flags of the
// pricing commands (each has those it takes).
func simOptions(c *cli.Context) (sim.Options, error) {
	o := sim.DefaultOptions
	for _, f := range []struct {
		name string
		dst  *float64
	}{{"bw-efficiency", &o.BandwidthEfficiency}, {"compute-efficiency", &o.ComputeEfficiency}} {
		if c.IsSet(f.name) {
			if *f.dst = c.Float64(f.name); !limits.Share.Contains(*f.dst) {
				return o, usageErr("--%s %v", f.name, limits.Share.Check(*f.dst))
			}
		}
	}
	if v, ok, err := quantity(c, "overhead", units.DimBytes); ok {
		if err != nil || v < 0 {
			return o, usageErr("--overhead %q: want a size such as 256MiB or 1GB", c.String("overhead"))
		}
		if err := limits.Overhead.Check(v); err != nil {
			return o, usageErr("--overhead %v", err)
		}
		o.RuntimeOverhead = v
	}
	o.Cold = c.Bool("cold")
	o.NoFlashAttention = c.Bool("no-flash-attn")
	if err := o.Validate(); err != nil {
		return o, usageErr("%v", err)
	}
	return o, nil
}

// flashAttn reads --flash-attn: on, off, or "" (the files say).
func flashAttn(c *cli.Context) (string, error) {
	fa := c.String("flash-attn")
	if fa != "" && fa != "on" && fa != "off" {
		return "", usageErr("--flash-attn must be on or off, got %q", fa)
	}
	return fa, nil
}

// compareOptions reads what compare and calibrate are told about runs
// whose files do not say.
func compareOptions(c *cli.Context) (compare.Options, error) {
	fa, err := flashAttn(c)
	if err != nil {
		return compare.Options{}, err
	}
	opts, err := simOptions(c)
	if err != nil {
		return compare.Options{}, err
	}
	if err := runSettings(c, &opts); err != nil {
		return compare.Options{}, err
	}
	return compare.Options{Hardware: c.String("hardware"), Engine: c.String("engine"), Runtime: c.String("runtime"), Model: c.String("model"),
		Weights: c.String("weights"), KV: c.String("kv"), FlashAttn: fa, Sim: opts}, nil
}

// checkRuntime resolves --runtime before any run is read, so that a bad
// name or profile is an error of the flag (exit 2), not a warning per run.
func checkRuntime(c *cli.Context, env *app.Env) error {
	if r := c.String("runtime"); r != "" {
		if _, err := env.ShowRuntime(r); err != nil {
			return fmt.Errorf("--runtime: %w", err)
		}
	}
	return nil
}

// duration reads a duration flag; 0 when not given.
func duration(c *cli.Context, name string) (float64, error) {
	s := strings.TrimSpace(c.String(name))
	if s == "" {
		return 0, nil
	}
	v, err := units.ParseDuration(s)
	if errors.As(err, new(*units.OverflowError)) {
		// Past a float64 (1e400s): say so with the flag's bounds, as
		// 1e30s is told them.
		return 0, usageErr("--%s %q is out of range: must be %s", name, s, limits.Latency.Text())
	}
	if err == nil {
		err = limits.Latency.Check(v)
	}
	if err != nil {
		return 0, usageErr("--%s %v", name, err)
	}
	return v, nil
}

// targets reads --ttft and --tpot.
func targets(c *cli.Context) (sim.Targets, error) {
	var t sim.Targets
	var err error
	if t.TTFT, err = duration(c, "ttft"); err != nil {
		return t, err
	}
	t.TPOT, err = duration(c, "tpot")
	return t, err
}

// tokenList reads a list of token counts (k = 1024), sorted.
func tokenList(c *cli.Context, name string) ([]int, error) {
	l, err := units.ParseTokenList(c.String(name))
	if err != nil {
		return nil, usageErr("--%s: %v", name, err)
	}
	return l, nil
}

// workloadFlags are the request a prediction or a figure prices. Token
// counts take k (1024) and M (1024²), as --context does.
func workloadFlags() []cli.Flag {
	return []cli.Flag{
		tokensFlag("prompt", []string{"p"}, sim.DefaultWorkload.Prompt, "new prompt tokens per sequence (`N`; k = 1024)"),
		tokensFlag("output-tokens", []string{"n"}, sim.DefaultWorkload.Output, "tokens generated per sequence, the first by the prefill (`N`)"),
		&cli.IntFlag{Name: "batch", Aliases: []string{"b"}, Value: sim.DefaultWorkload.Batch, Usage: "concurrent sequences"},
		tokensFlag("depth", []string{"d"}, sim.DefaultWorkload.Depth, "tokens already in each sequence's KV cache (`N`)"),
		ubatchFlag(),
	}
}

// workload reads the workloadFlags.
func workload(c *cli.Context) (sim.Workload, error) {
	w := sim.Workload{Prompt: c.Int("prompt"), Output: c.Int("output-tokens"), Batch: c.Int("batch"), Depth: c.Int("depth")}
	var err error
	if w.UBatch, err = ubatch(c); err != nil {
		return w, err
	}
	if err := w.Validate(); err != nil {
		return w, usageErr("%v", err)
	}
	return w, nil
}

// runsCommand reads what compare and calibrate share: the format, the
// files, what the files do not say, and the catalog (a bad --runtime is a
// usage error before any run is read).
func runsCommand(c *cli.Context, fs render.Formats, name string) (render.Format, compare.Options, *app.Env, error) {
	f, err := outputFormat(c, fs)
	if err != nil {
		return f, compare.Options{}, nil, err
	}
	if c.NArg() == 0 {
		return f, compare.Options{}, nil, usageErr("%s: give one or more result files (- reads stdin)", name)
	}
	o, err := compareOptions(c)
	if err != nil {
		return f, o, nil, err
	}
	env, err := environment(c)
	if err != nil {
		return f, o, nil, err
	}
	return f, o, env, checkRunFlags(c, env)
}

// quantity reads a quantity flag (a size, rate or power) with
// units.ParseQuantity, the parser of profiles: the value carries its
// unit. ok is false when the flag is not given. A bare number, which the
// last release read in the base unit (B, B/s, W), is still read so for
// this release, with a note on stderr.
func quantity(c *cli.Context, name string, d units.Dimension) (v float64, ok bool, err error) {
	s := strings.TrimSpace(c.String(name))
	if s == "" {
		return 0, false, nil
	}
	v, err = units.ParseQuantity(s, d)
	if errors.As(err, new(*units.NoUnitError)) && d != units.DimDuration {
		// Only a bare number that will be taken gets the note: "write
		// -1W" beside the refusal of -1 W would contradict it.
		if v, err = units.Parse(s, d); err == nil && v > 0 && !math.IsInf(v, 0) {
			render.Warn(c.App.ErrWriter, fmt.Sprintf("--%s %s: a number without its unit is deprecated and is refused from the next release; write %s",
				name, s, strings.ReplaceAll(units.FormatExact(v, d), " ", "")))
		}
	}
	return v, true, err
}
