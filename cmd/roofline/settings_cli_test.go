package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/profiles"
)

// RKLLM's settings on the command line: Qwen3-4B w8a8 on the RK3588
// converted for 16k on a board left to its governors, as VenomekPL's
// Orange Pi 5 Max ran it (3.00–3.19 tokens/s, runs.csv). The reference
// prediction and the one set up so differ by the profile's fitted factors:
// decode by exp(2·context + clocks), prefill by exp(clocks).
func TestPredictSettings(t *testing.T) {
	base := []string{"predict", "--model", "qwen3-4b", "--hardware", "rk3588", "--engine", "npu", "--prompt", "40", "--output-tokens", "300"}
	set := append(append([]string{}, base...), "--max-context", "16k", "--clocks", "default")
	out, errOut, code := runCLI(set...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "predict-qwen3-4b-rk3588-16k-default.stdout", out)
	if !strings.Contains(out, "settings:   max context 16384, clocks default: decode ") {
		t.Errorf("no settings line:\n%s", out)
	}
	tpot := func(args []string) (float64, float64) {
		out, errOut, code := runCLI(append(args, "--format", "json")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var j struct {
			TTFT   float64 `json:"ttft_s"`
			TPOT   float64 `json:"tpot_s"`
			Inputs struct {
				Settings *struct {
					MaxContext   int     `json:"max_context"`
					Clocks       string  `json:"clocks"`
					DecodeFactor float64 `json:"decode_factor"`
				} `json:"settings"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if j.Inputs.Settings == nil {
			t.Fatalf("no settings in the JSON inputs: %s", out)
		}
		return j.TTFT, j.TPOT
	}
	cat, _ := profiles.Builtin()
	rt, _ := cat.Runtime("rkllm")
	f := rt.SettingFactors["npu"]
	t0, d0 := tpot(base)
	t1, d1 := tpot(set)
	if want := math.Exp(2*f.ContextDecode + f.ClocksDecode); math.Abs(d1/d0/want-1) > 1e-9 {
		t.Errorf("TPOT %g → %g: ×%.6f, want ×%.6f", d0, d1, d1/d0, want)
	}
	if want := math.Exp(f.ClocksPrefill); math.Abs(t1/t0/want-1) > 1e-9 {
		t.Errorf("TTFT %g → %g: ×%.6f, want ×%.6f", t0, t1, t1/t0, want)
	}
	// The published run decodes at 3.00–3.19 tokens/s: the prediction's
	// 80 % interval holds it.
	if rate := 1 / d1; rate < 2.5 || rate > 4 {
		t.Errorf("predicted %.2f tokens/s for a run measured at 3.00–3.19", rate)
	}
}

// TestSettingsFlagErrors: a bad --max-context or --clocks exits 2 naming
// the flag; a --clocks that does not parse says where the board's clocks
// are listed, and one the board cannot run at gives a value it takes, on
// a hint line of its own: rk3588 (LPDDR4X 528, 1068, 1560, 2112 MHz; NPU
// 300 MHz to 1 GHz) runs at ddr=1560MHz (the step below the highest) and
// npu=600MHz ((300 + 1000) / 2 = 650 MHz, rounded down to 100 MHz).
func TestSettingsFlagErrors(t *testing.T) {
	base := []string{"predict", "--model", "qwen3-4b", "--hardware", "rk3588", "--engine", "npu"}
	const (
		listed = "roofline: hint: give the clocks as ddr=…MHz,npu=…MHz, at clocks the board has: 'roofline show hardware rk3588' lists its memory clocks and NPU clocks\n"
		takes  = "roofline: hint: rk3588 runs at ddr=1560MHz,npu=600MHz, for example (memory steps 528MHz, 1068MHz, 1560MHz, 2112MHz; NPU 300MHz to 1000MHz)\n"
	)
	for _, c := range []struct {
		extra     []string
		has, hint string
	}{
		{[]string{"--max-context", "0"}, "--max-context must be a number of tokens from 1", ""},
		{[]string{"--max-context", "-4"}, "--max-context", ""},
		{[]string{"--max-context", "lots"}, "--max-context", ""},
		{[]string{"--clocks", "turbo"}, `--clocks must be pinned or default, or the clocks the board runs at (ddr=1968MHz,npu=800MHz), got "turbo"`, listed},
		{[]string{"--clocks", "ddr=1968"}, "--clocks ddr=1968 has no unit: give one, such as ddr=1968MHz", listed},
		{[]string{"--clocks", "gpu=1GHz"}, `no clock "gpu" (want ddr or npu)`, listed},
		{[]string{"--clocks", "ddr=534MHz,ddr=1320MHz"}, "--clocks ddr given twice", listed},
		// rk3588 is the LPDDR4X ROCK 5B: its steps, not LPDDR5's.
		{[]string{"--clocks", "ddr=1968MHz"}, "--clocks ddr=1968MHz: rk3588's memory runs at 528MHz, 1068MHz, 1560MHz, 2112MHz only", takes},
		{[]string{"--clocks", "npu=1200MHz"}, "--clocks npu=1200MHz: rk3588's NPU runs from 300MHz to 1000MHz", takes},
		// The CPU priced: its example has no NPU clock.
		{[]string{"--clocks", "npu=800MHz", "--engine", "cpu"}, "--clocks npu=800MHz: the engine priced is cpu, not an NPU",
			"roofline: hint: rk3588 runs at ddr=1560MHz, for example (memory steps 528MHz, 1068MHz, 1560MHz, 2112MHz)\n"},
	} {
		t.Run(strings.Join(c.extra, " "), func(t *testing.T) {
			out, errOut, code := runCLI(append(append([]string{}, base...), c.extra...)...)
			if code != 2 || out != "" || !strings.Contains(errOut, c.has) || !strings.Contains(errOut, c.hint) {
				t.Errorf("exit %d, stdout %q, stderr %q (want %q and hint %q)", code, out, errOut, c.has, c.hint)
			}
		})
	}
	// A board whose profile gives no clocks to set says so.
	if _, errOut, code := runCLI("predict", "--model", "qwen3-4b", "--hardware", "h100-sxm", "--clocks", "ddr=1000MHz"); code != 2 ||
		!strings.Contains(errOut, "roofline: hint: h100-sxm's profile gives no clocks to set below its maxima for its gpu engine (memory_clocks, an NPU's min_clock): leave ddr and npu out\n") {
		t.Errorf("h100-sxm --clocks ddr=1000MHz: exit %d, %q", code, errOut)
	}
	// plan takes them too, and refuses the same values.
	if _, errOut, code := runCLI("plan", "--model", "qwen3-4b", "--hardware", "rk3588", "--clocks", "max"); code != 2 || !strings.Contains(errOut, "--clocks") {
		t.Errorf("plan --clocks max: exit %d, %q", code, errOut)
	}
}

// Board clocks below the maxima: the Orange Pi 5 Max's LPDDR5 at its
// 534 MHz step and the NPU at 800 MHz price TinyLlama w8a8 on a bandwidth
// of 38.4 GB/s × 534 / 2400 = 8.544 GB/s and an int8 peak of 6 TOP/s ×
// 0.8 = 4.8 TOP/s; the setting is pinned (no clocks factor), so decode is
// slower only through the bandwidth: its time grows, by less than
// 2400 / 534 = 4.49× (the fixed costs do not move).
func TestPredictBoardClocks(t *testing.T) {
	base := []string{"predict", "--model", "tinyllama-1.1b", "--hardware", "rk3588-orangepi-5-max", "--runtime", "rkllm", "--weights", "w8a8",
		"--prompt", "20", "--output-tokens", "100", "--format", "json"}
	read := func(extra ...string) (tpot, bw, peak float64, note string) {
		out, errOut, code := runCLI(append(append([]string{}, base...), extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errOut)
		}
		var j struct {
			TPOT   float64 `json:"tpot_s"`
			Inputs struct {
				Bandwidth float64 `json:"bandwidth_bytes_per_s"`
				Peak      float64 `json:"peak_ops_per_s"`
				Settings  *struct {
					Clocks       string  `json:"clocks"`
					DecodeFactor float64 `json:"decode_factor"`
					Note         string  `json:"note"`
				} `json:"settings"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		if s := j.Inputs.Settings; s != nil {
			if s.Clocks != "pinned" || s.DecodeFactor != 1 {
				t.Errorf("%v: settings %+v, want pinned with no factor", extra, *s)
			}
			note = s.Note
		}
		return j.TPOT, j.Inputs.Bandwidth, j.Inputs.Peak, note
	}
	t0, bw0, p0, _ := read("--clocks", "pinned")
	t1, bw1, p1, note := read("--clocks", "ddr=534MHz,npu=800MHz")
	if bw0 != 38.4e9 || p0 != 6e12 {
		t.Fatalf("at the maxima: %g B/s, %g OP/s; want 38.4e9, 6e12", bw0, p0)
	}
	if math.Abs(bw1/8.544e9-1) > 1e-12 || math.Abs(p1/4.8e12-1) > 1e-12 {
		t.Errorf("at ddr=534MHz,npu=800MHz: %g B/s, %g OP/s; want 8.544e9, 4.8e12", bw1, p1)
	}
	if r := t1 / t0; !(r > 2 && r < 2400.0/534) {
		t.Errorf("TPOT %g → %g s: ×%.3f, want more than 2 and less than 4.49", t0, t1, r)
	}
	if !strings.Contains(note, "board clocks ddr=534MHz,npu=800MHz, pinned: memory at 534 MHz, 8.54 GB/s") {
		t.Errorf("the note does not say the clocks: %q", note)
	}
}

// compare prices a runs CSV's rows at their stated settings, and fills
// the rows that state none from --max-context and --clocks.
func TestCompareSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rk.csv")
	csv := "test,tokens_per_s,model,hardware,engine,runtime,weights,gen,depth,max_context,clocks\n" +
		"decode,3.16,qwen3-4b,rk3588,npu,rkllm,w8a8,119,31,16384,default\n" +
		"decode,3.16,qwen3-4b,rk3588,npu,rkllm,w8a8,119,31,,\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	ratios := func(extra ...string) []float64 {
		out, errOut, code := runCLI(append([]string{"compare", "--format", "json", path}, extra...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rows []struct {
			Predicted float64  `json:"predicted_tokens_per_s"`
			Notes     []string `json:"notes"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(rows) > 0 && !strings.Contains(strings.Join(rows[0].Notes, " "), "settings: max context 16384, clocks default") {
			t.Errorf("the row set up otherwise does not say so: %v", rows[0].Notes)
		}
		var v []float64
		for _, r := range rows {
			v = append(v, r.Predicted)
		}
		return v
	}
	plain := ratios()
	if len(plain) != 2 || !(plain[0] < plain[1]*0.8) {
		t.Fatalf("predicted %v: the row converted for 16k with default clocks should be predicted slower", plain)
	}
	filled := ratios("--max-context", "16k", "--clocks", "default")
	if math.Abs(filled[1]/plain[0]-1) > 1e-9 || filled[0] != plain[0] {
		t.Errorf("with the flags %v, without %v: the flags fill the row that states none", filled, plain)
	}
}

// A runs CSV's clocks column states the board's clocks (quoted: a comma
// joins them); a bad one names its line.
func TestCompareBoardClocks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rk.csv")
	csv := "test,tokens_per_s,model,hardware,engine,runtime,weights,gen,clocks\n" +
		"decode,7.29,tinyllama-1.1b,rk3588-orangepi-5-max,npu,rkllm,w8a8,100,\"ddr=534MHz,npu=800MHz\"\n" +
		"decode,24.11,tinyllama-1.1b,rk3588-orangepi-5-max,npu,rkllm,w8a8,100,pinned\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("compare", "--format", "json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []struct {
		Predicted float64 `json:"predicted_tokens_per_s"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	if r := rows[1].Predicted / rows[0].Predicted; !(r > 2 && r < 2400.0/534) {
		t.Errorf("predicted %g and %g tokens/s: the 534 MHz row should be 2-4.49× slower", rows[0].Predicted, rows[1].Predicted)
	}
	bad := "test,tokens_per_s,model,hardware,engine,runtime,weights,gen,clocks\n" +
		"decode,7.29,tinyllama-1.1b,rk3588-orangepi-5-max,npu,rkllm,w8a8,100,ddr=534\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCLI("compare", path); code == 0 || !strings.Contains(errOut, "rk.csv:2:") || !strings.Contains(errOut, "ddr=534 has no unit") {
		t.Errorf("a clocks value without a unit: exit %d, %q", code, errOut)
	}
	// A clock the board does not have is told as the column, as threads
	// are, not as sim's field ("Clocks ddr=…").
	off := strings.Replace(bad, "ddr=534", "npu=100MHz", 1)
	if err := os.WriteFile(path, []byte(off), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, _ := runCLI("compare", path); !strings.Contains(errOut, "rk.csv:2: clocks = npu=100MHz: rk3588-orangepi-5-max's NPU runs from 300MHz to 1000MHz") {
		t.Errorf("a clock the board does not run at: %q", errOut)
	}
}

// TestShowHardwareClocks: show hardware lists the clocks --clocks takes on
// a board that has them, exactly as it takes them (1068 MHz, not 1.07
// GHz, which is no step), and nothing on one that has none.
func TestShowHardwareClocks(t *testing.T) {
	out, errOut, code := runCLI("show", "hardware", "rk3588")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"\nmemory clocks:  528 MHz, 1068 MHz, 1560 MHz, 2112 MHz (--clocks ddr=…) — [V][R15]", "\nnpu clocks:     300 MHz to 1000 MHz (--clocks npu=…) — [S][R17]"} {
		if !strings.Contains(out, want) {
			t.Errorf("show hardware rk3588 lacks %q:\n%s", want, out)
		}
	}
	if out, _, _ := runCLI("show", "hardware", "h100-sxm"); strings.Contains(out, "clocks:") {
		t.Errorf("show hardware h100-sxm lists clocks it has no profile for:\n%s", out)
	}
}
