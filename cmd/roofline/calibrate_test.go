package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/profiles"
)

const m2ultraRuns = "testdata/m2ultra-xd-runs.csv"

func TestCalibrateGolden(t *testing.T) {
	out, errOut, code := runCLI("calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "calibrate-m2ultra.stdout", out)
}

func TestCalibrateJSONAndProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "m2u.toml")
	out, errOut, code := runCLI("calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra", "-o", prof, "--name", "m2u-mine", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"runtime", "parameters", "format_bandwidth", "class_basis", "decode_class_over_fitted",
		"n_points", "r2_decode", "r2_prefill", "loo_mdape_decode", "loo_mdape_prefill", "valid_for", "points"} {
		if _, ok := j[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if j["n_points"] != 16.0 || j["profile"] != "m2u-mine" {
		t.Errorf("n_points %v profile %v", j["n_points"], j["profile"])
	}
	// The profile works as --hardware and predictions carry an interval.
	pout, perr, pcode := runCLI("predict", "--model", "llama-3.1-8b", "--hardware", prof, "--weights", "q4_k_m", "--format", "json")
	if pcode != 0 {
		t.Fatal(perr)
	}
	var p map[string]any
	_ = json.Unmarshal([]byte(pout), &p)
	iv, _ := p["tpot_interval_s"].([]any)
	tpot, _ := p["tpot_s"].(float64)
	if len(iv) != 2 || !(iv[0].(float64) < tpot && tpot < iv[1].(float64)) || p["interval_level"] != 0.9 {
		t.Errorf("interval %v around %v", iv, tpot)
	}
	text, _, _ := runCLI("predict", "--model", "llama-3.1-8b", "--hardware", prof, "--weights", "q4_k_m")
	if !strings.Contains(text, "(90%: ") || !strings.Contains(text, "calibrated") {
		t.Errorf("text predict lacks the interval:\n%s", text)
	}
}

func TestCalibrateErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		has  string
	}{
		{[]string{"calibrate"}, 2, "give one or more result files"},
		{[]string{"calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra", "--flash-attn", "maybe"}, 2, "--flash-attn must be on or off"},
		// The M1's 8 GB runs are 3× faster per byte than the M2 Ultra allows.
		{[]string{"calibrate", m2ultraRuns, "--hardware", "apple-m1"}, 1, "measured on apple-m2-ultra, not apple-m1"},
		{[]string{"calibrate", samples + "m2ultra-llama2-7b-q4_0.json", "--hardware", "apple-m1"}, 1, "faster than the physical limit"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.has) {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q (want %q)", c.args, code, c.code, out, errOut, c.has)
		}
	}
}

// TestCalibrationDoc keeps the worked example and the per-device table of
// docs/calibration.md in step with the code (-update rewrites them).
func TestCalibrationDoc(t *testing.T) {
	example, errOut, code := runCLI("calibrate", m2ultraRuns, "--hardware", "apple-m2-ultra")
	if code != 0 {
		t.Fatal(errOut)
	}
	b, err := os.ReadFile("testdata/public/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := measured.Read("runs.csv", b)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string][]measured.Run{}
	for _, r := range res.Runs {
		if r.Exclude == "" && strings.HasPrefix(r.Backend, "llama.cpp") && r.Test == measured.Decode {
			groups[r.Hardware+" | "+r.Backend] = append(groups[r.Hardware+" | "+r.Backend], r)
		}
	}
	var keys []string
	for k, rs := range groups {
		if len(rs) >= 4 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	cat, _ := profiles.Builtin()
	var tbl strings.Builder
	tbl.WriteString("| device | runtime | decode points | bandwidth share | decode step overhead | class / fitted time | leave-one-out MdAPE |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		c, err := calibrate.Calibrate(cat, groups[k], calibrate.Options{Options: compare.Options{}})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		parts := strings.SplitN(k, " | ", 2)
		cal := c.Engine.Calibration
		fmt.Fprintf(&tbl, "| %s | %s | %d | %.3f ± %.3f | %.2f ms | %.2f | %.1f %% |\n", parts[0], parts[1], cal.DecodePoints,
			cal.Bandwidth, c.Fit.SE[fit.PBandwidth], 1e3*cal.StepOverhead, cal.DecodeShift, 100*cal.LOODecode)
	}
	doc := calibrationDocHead + "```\n$ cd cmd/roofline && roofline calibrate " + m2ultraRuns + " --hardware apple-m2-ultra\n" + example + "```\n" +
		calibrationDocMiddle + tbl.String() + calibrationDocTail
	const path = "../../docs/calibration.md"
	if *update {
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, _ := os.ReadFile(path); string(old) != doc {
		t.Errorf("docs/calibration.md is stale: go test ./cmd/roofline -run TestCalibrationDoc -update")
	}
}

// TestCalibratedKeepsClassIntervals: a calibration never makes a
// prediction look more certain than the class it started from. After
// calibrate on the M2 Ultra's decode runs only, predict showed TTFT with
// no interval at all (and plan judged its TTFT as exact); with one
// prefill run and two decode runs neither phase had degrees of freedom,
// and no figure had an interval. Now a phase the runs did not measure keeps its class's
// interval, at the calibration's 90 % (wider than the class's own 80 %),
// and predict says which, in text and JSON (class_intervals).
func TestCalibratedKeepsClassIntervals(t *testing.T) {
	dir := t.TempDir()
	src := string(must(os.ReadFile(m2ultraRuns)))
	var decode, few []string
	prefills, decodes := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(src), "\n") {
		switch {
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "source,"):
			decode, few = append(decode, line), append(few, line)
		case strings.Contains(line, ",decode,"):
			decode = append(decode, line)
			if decodes++; decodes <= 2 {
				few = append(few, line)
			}
		case prefills < 1:
			prefills++
			few = append(few, line)
		}
	}
	predictJSON := func(prof string, extra ...string) map[string]any {
		t.Helper()
		out, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-8b", "--hardware", prof, "--weights", "q4_k_m", "--format", "json"}, extra...)...)
		if code != 0 {
			t.Fatalf("predict on %s: exit %d: %s", prof, code, errOut)
		}
		var j map[string]any
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	width := func(j map[string]any, k string) float64 {
		iv, _ := j[k+"_interval_s"].([]any)
		if len(iv) != 2 {
			t.Fatalf("%s: no interval in %v", k, j[k+"_interval_s"])
		}
		v := j[k+"_s"].(float64)
		return (iv[1].(float64) - iv[0].(float64)) / v
	}
	class := predictJSON("apple-m2-ultra")
	for _, c := range []struct {
		name  string
		lines []string
		from  []any
	}{{"decode only", decode, []any{"prefill"}}, {"one prefill and two decode runs", few, []any{"prefill"}}} {
		runs, prof := filepath.Join(dir, c.name+".csv"), filepath.Join(dir, c.name+".toml")
		if err := os.WriteFile(runs, []byte(strings.Join(c.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := runCLI("calibrate", runs, "--hardware", "apple-m2-ultra", "-o", prof); code != 0 {
			t.Fatalf("%s: calibrate: exit %d: %s", c.name, code, errOut)
		}
		j := predictJSON(prof)
		in := j["inputs"].(map[string]any)
		if fmt.Sprint(in["class_intervals"]) != fmt.Sprint(c.from) || j["interval_level"] != 0.9 {
			t.Errorf("%s: class_intervals %v at level %v, want %v at 0.9", c.name, in["class_intervals"], j["interval_level"], c.from)
		}
		for _, k := range []string{"ttft", "tpot", "e2e"} {
			width(j, k)
		}
		if w, cw := width(j, "ttft"), width(class, "ttft"); w < cw {
			t.Errorf("%s: the TTFT interval spans %.0f%% of the figure, narrower than the class's %.0f%%", c.name, 100*w, 100*cw)
		}
		text, _, _ := runCLI("predict", "--model", "llama-3.1-8b", "--hardware", prof, "--weights", "q4_k_m")
		if !strings.Contains(text, "interval is the runtime class's") && !strings.Contains(text, "intervals are the runtime class's") {
			t.Errorf("%s: predict does not say which interval is the class's:\n%s", c.name, text)
		}
	}

	// plan weighs a calibrated TTFT with the class's spread: a target 5 %
	// above the figure is not met for sure.
	prof := filepath.Join(dir, "decode only.toml")
	ttft := predictJSON(prof, "--prompt", "1000", "--output-tokens", "200")["ttft_s"].(float64)
	out, _, _ := runCLI("plan", "--hardware", prof, "--model", "llama-3.1-8b", "--weights", "q4_k_m", "--context", "2k",
		"--prompt", "1000", "--output-tokens", "200", "--ttft", fmt.Sprintf("%.0fms", 1050*ttft))
	if !strings.Contains(out, "uncertain") {
		t.Errorf("a TTFT target 5%% above a calibrated figure with no prefill run is judged sure:\n%s", out)
	}
}
