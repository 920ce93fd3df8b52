package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
)

// The command: Gemma 2's 256 k vocabulary takes over a quarter of
// every decode step on a Pi 5, and attention grows from a few percent at
// the first step to a quarter of the step at the model's 8 k context.
func TestPredictOpsGolden(t *testing.T) {
	base := []string{"predict", "--model", "gemma-2-2b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_0", "--ops"}
	cases := []struct {
		name string
		args []string
	}{
		{"predict-ops-gemma-2-2b-pi5.stdout", base},
		{"predict-ops-gemma-2-2b-pi5.csv", append(base[1:len(base):len(base)], "--format", "csv", "--output-tokens", "4")},
		{"predict-ops-qwen3-30b-a3b-vllm.md", []string{"predict", "--model", "qwen3-30b-a3b", "--hardware", "h100-sxm", "--runtime", "vllm",
			"--batch", "8", "--ops", "--ops-at", "32k", "--format", "markdown"}},
		{"show-model-ops-gemma-2-2b.stdout", []string{"show", "model", "gemma-2-2b", "--weights", "q4_0", "--ops"}},
		{"compare-ops-rtx4080.stdout", []string{"compare", "../../docs/examples/llama-bench-rtx4080-qwen2.5-7b.json", "--hardware", "rtx-4080", "--ops"}},
	}
	cases[1].args = append([]string{"predict"}, cases[1].args...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

func TestPredictOpsJSON(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "gemma-2-2b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_0", "--ops",
		"--ops-at", "1,8k", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	type op struct {
		Operator string  `json:"operator"`
		Group    string  `json:"group"`
		KVTokens int     `json:"kv_tokens"`
		Time     float64 `json:"time_s"`
		Share    float64 `json:"share"`
		Bound    string  `json:"bound"`
	}
	type view struct {
		Phase   string  `json:"phase"`
		Step    string  `json:"step"`
		Context int     `json:"context"`
		Time    float64 `json:"time_s"`
		Ops     []op    `json:"operators"`
	}
	var j struct {
		TTFT      float64 `json:"ttft_s"`
		TPOT      float64 `json:"tpot_s"`
		ITLFirst  float64 `json:"itl_first_s"`
		Operators struct {
			Attribution string `json:"attribution"`
			Prefill     view   `json:"prefill"`
			Decode      view   `json:"decode"`
			Steps       []view `json:"steps"`
		} `json:"operators"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	o := j.Operators
	if !strings.Contains(o.Attribution, "not a measurement") {
		t.Errorf("attribution %q", o.Attribution)
	}
	sum := func(v view) (s float64) {
		for _, x := range v.Ops {
			s += x.Time
		}
		return s
	}
	share := func(v view, name string) (s float64) {
		for _, x := range v.Ops {
			if x.Operator == name {
				s += x.Share
			}
		}
		return s
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"prefill", sum(o.Prefill), j.TTFT}, {"decode", sum(o.Decode), j.TPOT}, {"first step", sum(o.Steps[1]), j.ITLFirst}} {
		if math.Abs(c.got-c.want) > 1e-12*c.want {
			t.Errorf("%s: Σ operators %.17g, predicted %.17g", c.name, c.got, c.want)
		}
	}
	// Steps at 1 key (asked), 513 (first), 639 (last) and 8192 (asked).
	var labels []string
	for _, s := range o.Steps {
		labels = append(labels, s.Step+":"+itoa(s.Context))
	}
	if got := strings.Join(labels, " "); got != "asked:1 first:513 last:639 asked:8192" {
		t.Errorf("steps %s", got)
	}
	// lm_head: 461 MiB of 1.51 GiB streamed per step; attention 8192 keys
	// × 13 global layers and 4096 × 13 sliding of 2 × 8 × 256 × 2 B each.
	head, attn0, attn8k := share(o.Decode, "lm_head"), share(o.Steps[0], "flash_attention"), share(o.Steps[3], "flash_attention")
	if head < 0.25 || head > 0.32 {
		t.Errorf("lm_head takes %.3f of a decode step, want about 0.29", head)
	}
	for _, x := range o.Steps[3].Ops {
		if x.Operator == "flash_attention" && x.KVTokens != map[string]int{"sliding 4096": 4096, "global": 8192}[x.Group] {
			t.Errorf("%s attention at 8192 keys reads %d tokens", x.Group, x.KVTokens)
		}
	}
	if !(attn0 < 0.01 && attn8k > 0.25) {
		t.Errorf("attention share %.3f at 1 key and %.3f at 8 k: want it to grow from under 1 %% to over 25 %%", attn0, attn8k)
	}
}

func TestPredictOpsErrors(t *testing.T) {
	base := []string{"predict", "--model", "gemma-2-2b", "--hardware", "raspberry-pi-5-8gb"}
	for _, c := range []struct {
		extra []string
		has   string
	}{
		{[]string{"--ops-at", "8k"}, "--ops-at needs --ops"},
		{[]string{"--ops", "--ops-at", "0"}, "--ops-at"},
		{[]string{"--ops", "--ops-at", "eight"}, "--ops-at"},
	} {
		_, errOut, code := runCLI(append(base, c.extra...)...)
		if code != 2 || !strings.Contains(errOut, c.has) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.extra, code, errOut, c.has)
		}
	}
	if _, errOut, code := runCLI("show", "model", "gemma-2-2b", "--ops", "--file-size", "1.6GB"); code != 2 || !strings.Contains(errOut, "--ops") {
		t.Errorf("show model --ops --file-size: exit %d, %q", code, errOut)
	}
}

// plot ops places each operator where predict --ops prices it: at its
// FLOPs per byte and its FLOPs over its attributed time, sized by its
// share; the shares drawn and the note's add up to the whole pass.
func TestPlotOpsMatchesPredict(t *testing.T) {
	rows := plotData(t, "plot", "ops", "-m", "gemma-2-2b", "--hw", "raspberry-pi-5-8gb", "--weights", "q4_0", "--context", "8k")
	out, errOut, code := runCLI("predict", "--model", "gemma-2-2b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_0", "--ops",
		"--ops-at", "8k", "--output-tokens", "2", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		Operators struct {
			Steps []struct {
				Context int `json:"context"`
				Ops     []struct {
					Operator  string  `json:"operator"`
					FLOPs     float64 `json:"flops"`
					Time      float64 `json:"time_s"`
					Intensity float64 `json:"intensity_flop_per_byte"`
					Share     float64 `json:"share"`
				} `json:"operators"`
			} `json:"steps"`
		} `json:"operators"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	steps := j.Operators.Steps
	last := steps[len(steps)-1]
	if last.Context != 8192 {
		t.Fatalf("last step at %d keys", last.Context)
	}
	found := 0
	for _, r := range rows {
		if r[1] != "predicted" || !strings.HasPrefix(r[0], "decode step at 8192 keys") {
			continue
		}
		if !strings.HasSuffix(r[0], ": lm_head") {
			continue
		}
		for _, o := range last.Ops {
			if o.Operator == "lm_head" {
				found++
				if x, y := atof(t, r[3]), atof(t, r[5]); math.Abs(x/o.Intensity-1) > 1e-9 || math.Abs(y*1e12/(o.FLOPs/o.Time)-1) > 1e-9 {
					t.Errorf("lm_head drawn at (%g, %g), predict has (%g, %g)", x, y*1e12, o.Intensity, o.FLOPs/o.Time)
				}
				if want := fmt.Sprintf("%.1f%%", 100*o.Share); r[6] != want {
					t.Errorf("lm_head labelled %s, predict's share %s", r[6], want)
				}
			}
		}
	}
	if found != 1 {
		t.Errorf("lm_head drawn %d times in the decode panel: %v", found, rows)
	}
}

// compare --ops scales each test's operators to its measured time: the
// scaled times add up to the measurement, and an operator that alone
// explains the gap does so at its factor.
func TestCompareOpsAddUp(t *testing.T) {
	out, errOut, code := runCLI("compare", "../../docs/examples/llama-bench-rtx4080-qwen2.5-7b.json", "--hardware", "rtx-4080", "--ops", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var rows []struct {
		Test      string  `json:"test"`
		Measured  float64 `json:"measured_tokens_per_s"`
		Predicted float64 `json:"predicted_tokens_per_s"`
		Gen       int     `json:"gen_tokens"`
		Prompt    int     `json:"prompt_tokens"`
		Ops       struct {
			Predicted float64 `json:"predicted_s"`
			Measured  float64 `json:"measured_s"`
			Operators []struct {
				Operator string   `json:"operator"`
				Pred     float64  `json:"predicted_s"`
				Scaled   float64  `json:"scaled_to_measured_s"`
				Alone    *float64 `json:"alone_explains_gap_factor"`
			} `json:"operators"`
		} `json:"operators"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		tokens := float64(r.Prompt)
		if r.Test == "decode" {
			tokens = 1 // per step at batch 1
		}
		if want := tokens / r.Measured; math.Abs(r.Ops.Measured/want-1) > 1e-9 {
			t.Errorf("%s: measured %g s, the run's %g", r.Test, r.Ops.Measured, want)
		}
		if want := tokens / r.Predicted; math.Abs(r.Ops.Predicted/want-1) > 1e-9 {
			t.Errorf("%s: predicted %g s, compare's %g", r.Test, r.Ops.Predicted, want)
		}
		var scaled float64
		for _, o := range r.Ops.Operators {
			scaled += o.Scaled
			if o.Alone != nil {
				if got := o.Pred*(*o.Alone) + r.Ops.Predicted - o.Pred; math.Abs(got/r.Ops.Measured-1) > 1e-9 {
					t.Errorf("%s %s: × %g gives %g s, measured %g", r.Test, o.Operator, *o.Alone, got, r.Ops.Measured)
				}
			}
		}
		if math.Abs(scaled/r.Ops.Measured-1) > 1e-9 {
			t.Errorf("%s: scaled operators add up to %g s, measured %g", r.Test, scaled, r.Ops.Measured)
		}
	}
}

// The report's operators are predict --ops of each recommended
// configuration at the workload: results.json carries the command, and
// the operators add up to that prediction's TTFT and TPOT.
func TestReportOperators(t *testing.T) {
	out := runReport(t, reportStudies[1])
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r render.ReportJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Operators) == 0 {
		t.Fatal("no operators in results.json")
	}
	for _, o := range r.Operators {
		if !strings.Contains(o.Command, " --ops") {
			t.Errorf("command %q", o.Command)
		}
		args := strings.Fields(strings.TrimPrefix(o.Command, "roofline "))
		got, errOut, code := runCLI(append(args, "--format", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", o.Command, code, errOut)
		}
		var p render.PredictJSON
		if err := json.Unmarshal([]byte(got), &p); err != nil {
			t.Fatal(err)
		}
		var pre, dec float64
		for _, x := range o.Operators {
			if x.Prefill != nil {
				pre += *x.Prefill
			}
			if x.Decode != nil {
				dec += *x.Decode
			}
		}
		if p.TTFT != o.TTFT || *p.TPOT != *o.TPOT || math.Abs(pre/p.TTFT-1) > 1e-12 || math.Abs(dec / *p.TPOT - 1) > 1e-12 {
			t.Errorf("%s: report's TTFT %g (Σ operators %g), TPOT %g (%g); predict's %g, %g", o.Command, o.TTFT, pre, *o.TPOT, dec, p.TTFT, *p.TPOT)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Where the time goes") || !strings.Contains(string(md), "not a measurement") {
		t.Error("report.md has no operator section")
	}
}

// A study may ask for the operator figure: drawn at its prefill and its
// last decode step, with the command that draws it alone.
func TestReportOpsFigure(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "study.toml")
	if err := os.WriteFile(study, []byte("title = \"ops\"\ndevices = [\"raspberry-pi-5-8gb\"]\nmodels = [\"gemma-2-2b\"]\nweights = [\"q4_0\"]\nfigures = [\"ops\"]\n[workload]\nprompt = 256\noutput = 64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	if _, errOut, code := runCLI("report", study, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "roofline plot ops --model gemma-2-2b --hardware raspberry-pi-5-8gb --weights q4_0 --prompt 256 --context 319"; !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks %q", want)
	}
	if _, err := os.Stat(filepath.Join(out, "plots", "ops.svg")); err != nil {
		t.Error(err)
	}
}
