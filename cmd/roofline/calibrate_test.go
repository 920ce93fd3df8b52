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
