package main

import (
	"fmt"
	"io"
	"os"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

const compareUsage = `roofline compare FILE... --hardware H [--engine E] [--model M] [flags]

Reads measured runs as they are — llama-bench (json, jsonl, csv, markdown),
llama-batched-bench tables, vLLM serving-benchmark JSON, a plain per-request
CSV/JSON with TTFT and end-to-end latency, or a roofline runs CSV — and puts
each test beside roofline's prediction for the same model, format, depth and
batch: measured, predicted and ideal tokens/s, the ratio, the achieved
bandwidth and compute, and MBU and MFU against the device's peaks. A run
faster than the ideal bound is flagged. Bad rows are reported as file:line
and skipped. The format is detected from the content (docs/formats.md).

Examples:
  roofline compare bench.json --hardware apple-m2-ultra
  llama-bench -m model.gguf -o jsonl | roofline compare - --hardware jetson-orin-nano-super-8gb
  roofline compare vllm-result.json --hardware h100-sxm --model llama-3.1-8b --weights bf16 --format json`

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare measured runs with predictions: MBU, MFU, ratio",
		UsageText: compareUsage,
		ArgsUsage: "FILE...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` or .toml profile the runs were measured on (a runs CSV may name it per row)"},
			&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE`; default: from the file's backend, else the device's default"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME`, .toml profile, .gguf file or config.json; default: matched from the file"},
			&cli.StringFlag{Name: "weights", Usage: "weight format `FMT`; default: from the file (llama-bench model_type)"},
			&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: from the file, else f16"},
			&cli.StringFlag{Name: "flash-attn", Usage: "`on` or off: override the files' flash-attention setting (files that do not say: on)"},
			&cli.Float64Flag{Name: "bw-efficiency", Usage: "bandwidth efficiency for the predictions, in (0, 1]"},
			&cli.Float64Flag{Name: "compute-efficiency", Usage: "compute efficiency for the predictions, in (0, 1]"},
			formatFlag("text", "json", "csv", "markdown"),
		},
		Action: compareAction,
	}
}

func compareAction(c *cli.Context) error {
	format, err := outputFormat(c, "text", "json", "csv", "markdown")
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usageErr("compare: give one or more result files (- reads stdin)")
	}
	fa := c.String("flash-attn")
	if fa != "" && fa != "on" && fa != "off" {
		return usageErr("--flash-attn must be on or off, got %q", fa)
	}
	opts := sim.DefaultOptions
	for _, f := range []string{"bw-efficiency", "compute-efficiency"} {
		if c.IsSet(f) {
			if v := c.Float64(f); !(v > 0 && v <= 1) {
				return usageErr("--%s must be in (0, 1], got %v", f, v)
			}
		}
	}
	opts.BandwidthEfficiency = c.Float64("bw-efficiency")
	opts.ComputeEfficiency = c.Float64("compute-efficiency")
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	runs, err := readRuns(c, c.Args().Slice())
	if err != nil {
		return err
	}
	ev := compare.New(cat, compare.Options{Hardware: c.String("hardware"), Engine: c.String("engine"), Model: c.String("model"),
		Weights: c.String("weights"), KV: c.String("kv"), FlashAttn: fa, Sim: opts})
	rows, errs := ev.Evaluate(runs)
	for _, e := range errs {
		fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %v\n", e)
	}
	if len(rows) == 0 {
		return fmt.Errorf("no run could be compared (%d skipped; see the warnings above)", len(errs))
	}
	return writeComparison(c.App.Writer, format, rows)
}

// readRuns reads every file, reporting bad rows as warnings; a file with
// nothing usable is an error.
func readRuns(c *cli.Context, files []string) ([]measured.Run, error) {
	var runs []measured.Run
	for _, f := range files {
		var data []byte
		var err error
		name := f
		if f == "-" {
			name = "stdin"
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
		res, err := measured.Read(name, data)
		if res != nil {
			for _, b := range res.Bad {
				fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %v (row skipped)\n", b)
			}
		}
		if err != nil {
			return nil, err
		}
		for _, r := range res.Runs {
			if r.Exclude != "" {
				fmt.Fprintf(c.App.ErrWriter, "roofline: warning: %s: excluded by the file: %s\n", r.Source(), r.Exclude)
				continue
			}
			runs = append(runs, r)
		}
	}
	return runs, nil
}

type comparisonJSON struct {
	Source               string   `json:"source"`
	Test                 string   `json:"test"`
	Model                string   `json:"model"`
	Weights              string   `json:"weights"`
	KV                   string   `json:"kv"`
	Hardware             string   `json:"hardware"`
	Engine               string   `json:"engine"`
	Precision            string   `json:"precision"`
	PromptTokens         int      `json:"prompt_tokens"`
	GenTokens            int      `json:"gen_tokens"`
	Depth                int      `json:"depth"`
	Batch                int      `json:"batch"`
	UBatch               int      `json:"ubatch"`
	MeasuredTokensPerS   float64  `json:"measured_tokens_per_s"`
	PredictedTokensPerS  float64  `json:"predicted_tokens_per_s"`
	BoundTokensPerS      float64  `json:"bound_tokens_per_s"`
	Ratio                float64  `json:"ratio"`
	AchievedBytesPerS    float64  `json:"achieved_bytes_per_s"`
	AchievedFLOPsPerS    float64  `json:"achieved_flops_per_s"`
	MBU                  float64  `json:"mbu"`
	MBUMeasuredBandwidth *float64 `json:"mbu_measured_bandwidth"`
	MFU                  float64  `json:"mfu"`
	Bound                string   `json:"bound"`
	WeightBytesPerStep   *float64 `json:"streamed_weight_bytes_per_step"`
	KVBytesPerStep       *float64 `json:"kv_bytes_per_step"`
	BytesPerStep         *float64 `json:"bytes_per_step"`
	BeatsBound           bool     `json:"beats_bound"`
	Notes                []string `json:"notes"`
}

func newComparisonJSON(r compare.Row) comparisonJSON {
	j := comparisonJSON{Source: r.Run.Source(), Test: string(r.Run.Test), Model: r.Model, Weights: r.Weights, KV: r.KV,
		Hardware: r.Hardware, Engine: r.Engine, Precision: string(r.Precision),
		PromptTokens: r.Run.Prompt, GenTokens: r.Run.Gen, Depth: r.Run.Depth, Batch: r.Run.Batch, UBatch: r.Run.UBatch,
		MeasuredTokensPerS: r.Measured, PredictedTokensPerS: r.Predicted, BoundTokensPerS: r.Bound, Ratio: r.Ratio,
		AchievedBytesPerS: r.AchievedBytesPerS, AchievedFLOPsPerS: r.AchievedFLOPPerS, MBU: r.MBU, MFU: r.MFU,
		Bound: string(r.PhaseBound), BeatsBound: r.BeatsBound, Notes: r.Notes}
	if r.MBUMeasured > 0 {
		v := r.MBUMeasured
		j.MBUMeasuredBandwidth = &v
	}
	if r.Run.Test == measured.Decode {
		w, k, b := r.WeightBytesPerStep, r.KVBytesPerStep, r.BytesPerStep
		j.WeightBytesPerStep, j.KVBytesPerStep, j.BytesPerStep = &w, &k, &b
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	return j
}

// testName renders a test the way llama-bench names it: pp512, tg128 @ d4096, ×B.
func testName(r measured.Run) string {
	s := fmt.Sprintf("tg%d", r.Gen)
	if r.Test == measured.Prefill {
		s = fmt.Sprintf("pp%d", r.Prompt)
	}
	if r.Depth > 0 {
		s += fmt.Sprintf(" @ d%d", r.Depth)
	}
	if r.Batch > 1 {
		s += fmt.Sprintf(" ×%d", r.Batch)
	}
	return s
}

func comparisonTable(rows []compare.Row) report.Table {
	t := report.Table{Header: []string{"SOURCE", "TEST", "MODEL", "WEIGHTS", "MEASURED", "PREDICTED", "IDEAL", "RATIO", "ACHIEVED", "UTILIZATION", "FLAGS"},
		Right: map[int]bool{4: true, 5: true, 6: true, 7: true, 8: true, 9: true}}
	for _, r := range rows {
		achieved := units.FormatBandwidth(r.AchievedBytesPerS)
		util := fmt.Sprintf("MBU %.0f%%", 100*r.MBU)
		if r.Run.Test == measured.Prefill {
			achieved = units.FormatRate(r.AchievedFLOPPerS, "FLOP/s")
			util = fmt.Sprintf("MFU %.0f%%", 100*r.MFU)
		}
		flags := ""
		if r.BeatsBound {
			flags = "FASTER THAN THE LIMIT"
		}
		t.Add(r.Run.Source(), testName(r.Run), r.Model, r.Weights, fmt.Sprintf("%.4g t/s", r.Measured), fmt.Sprintf("%.4g t/s", r.Predicted),
			fmt.Sprintf("%.4g t/s", r.Bound), fmt.Sprintf("%.2f", r.Ratio), achieved, util, flags)
	}
	return t
}

func writeComparison(w io.Writer, format string, rows []compare.Row) error {
	switch format {
	case "json":
		out := make([]comparisonJSON, len(rows))
		for i, r := range rows {
			out[i] = newComparisonJSON(r)
		}
		return report.JSON(w, out)
	case "csv":
		t := report.Table{Header: []string{"source", "test", "model", "weights", "kv", "hardware", "engine", "precision", "prompt_tokens", "gen_tokens",
			"depth", "batch", "ubatch", "measured_tokens_per_s", "predicted_tokens_per_s", "bound_tokens_per_s", "ratio",
			"achieved_bytes_per_s", "achieved_flops_per_s", "mbu", "mfu", "bound", "beats_bound"}}
		for _, r := range rows {
			t.Add(r.Run.Source(), string(r.Run.Test), r.Model, r.Weights, r.KV, r.Hardware, r.Engine, string(r.Precision),
				fmt.Sprint(r.Run.Prompt), fmt.Sprint(r.Run.Gen), fmt.Sprint(r.Run.Depth), fmt.Sprint(r.Run.Batch), fmt.Sprint(r.Run.UBatch),
				fmt.Sprint(r.Measured), fmt.Sprint(r.Predicted), fmt.Sprint(r.Bound), fmt.Sprint(r.Ratio),
				fmt.Sprint(r.AchievedBytesPerS), fmt.Sprint(r.AchievedFLOPPerS), fmt.Sprint(r.MBU), fmt.Sprint(r.MFU),
				string(r.PhaseBound), fmt.Sprint(r.BeatsBound))
		}
		return t.WriteCSV(w)
	case "markdown":
		t := comparisonTable(rows)
		if err := t.WriteMarkdown(w); err != nil {
			return err
		}
		return writeNotes(w, rows, "> ")
	}
	hw := map[string]bool{}
	for _, r := range rows {
		hw[fmt.Sprintf("%s (%s engine, %s at %s, %s)", r.Hardware, r.Engine, r.Precision,
			units.FormatRate(r.Peak, r.Precision.RateUnit()), units.FormatBandwidth(r.Bandwidth))] = true
	}
	for h := range hw {
		fmt.Fprintln(w, "device: "+h)
	}
	fmt.Fprintln(w)
	t := comparisonTable(rows)
	if err := t.WriteText(w); err != nil {
		return err
	}
	s := compare.Summarize(rows)
	fmt.Fprintln(w)
	for _, st := range []struct {
		name string
		s    compare.Stat
	}{{"decode", s.Decode}, {"prefill", s.Prefill}} {
		if st.s.N > 0 {
			fmt.Fprintf(w, "%s: %d tests, median |error| %.1f%%, median measured/predicted %.2f\n", st.name, st.s.N, 100*st.s.MdAPE, st.s.Bias)
		}
	}
	return writeNotes(w, rows, "")
}

func writeNotes(w io.Writer, rows []compare.Row, prefix string) error {
	seen := map[string]bool{}
	var notes []string
	for _, r := range rows {
		for _, n := range r.Notes {
			key := n
			if !seen[key] {
				seen[key] = true
				notes = append(notes, n)
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "%snote: %s\n", prefix, n); err != nil {
			return err
		}
	}
	return nil
}
