package main

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// csvRecords reads a CSV answer into its rows keyed by the header.
func csvRecords(t *testing.T, out string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("CSV %q: %v", out, err)
	}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, k := range recs[0] {
			m[k] = r[i]
		}
		rows = append(rows, m)
	}
	return rows
}

// csvNumber is a CSV cell as a number, NaN-free: the test fails on text.
func csvNumber(t *testing.T, row map[string]string, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[key], 64)
	if err != nil {
		t.Fatalf("%s = %q: %v", key, row[key], err)
	}
	return v
}

// Predict's CSV carries what its JSON and text give beside the figures:
// the read share, the 80 % intervals and which are widened (an MoE decode
// on the CUDA class, held-out runs joined in); it had none of them. Each
// equals the JSON's figure.
func TestPredictCSVIntervals(t *testing.T) {
	args := []string{"predict", "--model", "qwen3-30b-a3b", "--hardware", "rtx-4090", "--weights", "q4_k_m"}
	out, errOut, code := runCLI(append(args, "--format", "csv")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	row := csvRecords(t, out)[0]
	js, errOut, code := runCLI(append(args, "--format", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		TTFT       []float64 `json:"ttft_interval_s"`
		TPOT       []float64 `json:"tpot_interval_s"`
		E2E        []float64 `json:"e2e_interval_s"`
		Throughput []float64 `json:"throughput_interval_tokens_per_s"`
		Level      float64   `json:"interval_level"`
		Widened    []string  `json:"intervals_widened"`
		Inputs     struct {
			Efficiency struct {
				ReadShare float64 `json:"read_share"`
			} `json:"efficiency"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.TTFT) != 2 || len(j.TPOT) != 2 || len(j.E2E) != 2 || len(j.Throughput) != 2 || j.Level != 0.8 || j.Inputs.Efficiency.ReadShare == 0 {
		t.Fatalf("the JSON has not the intervals and read share the test needs: %s", js)
	}
	for _, c := range []struct {
		key  string
		want float64
	}{
		{"read_share", j.Inputs.Efficiency.ReadShare}, {"interval_level", j.Level},
		{"ttft_low_s", j.TTFT[0]}, {"ttft_high_s", j.TTFT[1]}, {"tpot_low_s", j.TPOT[0]}, {"tpot_high_s", j.TPOT[1]},
		{"e2e_low_s", j.E2E[0]}, {"e2e_high_s", j.E2E[1]},
		{"throughput_low_tokens_per_s", j.Throughput[0]}, {"throughput_high_tokens_per_s", j.Throughput[1]},
	} {
		if got := csvNumber(t, row, c.key); got != c.want {
			t.Errorf("%s = %v, the JSON's %v", c.key, got, c.want)
		}
	}
	if got, want := row["intervals_widened"], strings.Join(j.Widened, " "); got != want || want != "tpot e2e throughput" {
		t.Errorf("intervals_widened = %q, the JSON's %q (want tpot e2e throughput)", got, want)
	}
	// A dense model's intervals are not widened: the column is empty.
	out, errOut, code = runCLI("predict", "--model", "qwen2.5-1.5b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--format", "csv")
	if code != 0 {
		t.Fatal(errOut)
	}
	if row := csvRecords(t, out)[0]; row["intervals_widened"] != "" || row["tpot_low_s"] == "" {
		t.Errorf("a dense model: intervals_widened %q, tpot_low_s %q", row["intervals_widened"], row["tpot_low_s"])
	}
}

// Plan's CSV carries its JSON's margins at the interval's ends, the
// confidence and the widened flag (an MoE decode's TPOT interval); it had
// only the verdict. Each equals the JSON's for the same configuration.
func TestPlanCSVIntervals(t *testing.T) {
	args := []string{"plan", "--hardware", "rtx-4090", "--model", "qwen3-30b-a3b,qwen2.5-1.5b", "--weights", "q4_k_m", "--context", "4k", "--ttft", "1s", "--tpot", "20ms"}
	out, errOut, code := runCLI(append(args, "--format", "csv")...)
	if code != 0 && code != 3 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := csvRecords(t, out)
	js, errOut, code := runCLI(append(args, "--format", "json")...)
	if code != 0 && code != 3 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var j struct {
		Configs []map[string]any `json:"configs"`
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Configs) != len(rows) || len(rows) < 2 {
		t.Fatalf("%d CSV rows, %d JSON configurations", len(rows), len(j.Configs))
	}
	widened := map[string]bool{}
	for i, row := range rows {
		c := j.Configs[i]
		for _, k := range []string{"ttft_margin", "tpot_margin", "ttft_margin_low", "ttft_margin_high", "tpot_margin_low", "tpot_margin_high", "confidence"} {
			want, ok := c[k].(float64)
			if !ok {
				t.Fatalf("configuration %d: the JSON has no %s", i, k)
			}
			if got := csvNumber(t, row, k); got != want {
				t.Errorf("configuration %d %s: %v, the JSON's %v", i, k, got, want)
			}
		}
		w, _ := c["intervals_widened"].([]any)
		if want := map[bool]string{true: "tpot"}[len(w) == 1 && w[0] == "tpot"]; row["intervals_widened"] != want {
			t.Errorf("configuration %d: intervals_widened %q, the JSON's %v", i, row["intervals_widened"], w)
		}
		widened[row["model"]] = row["intervals_widened"] == "tpot"
	}
	if !widened["qwen3-30b-a3b"] || widened["qwen2.5-1.5b"] {
		t.Errorf("widened by model: %v, want the MoE's only", widened)
	}
	// Without targets the margins are empty, as JSON leaves them out.
	out, errOut, code = runCLI("plan", "--hardware", "rtx-4090", "--model", "qwen2.5-1.5b", "--weights", "q4_k_m", "--context", "4k", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if row := csvRecords(t, out)[0]; row["tpot_margin"] != "" || row["ttft_margin_low"] != "" || row["confidence"] == "" {
		t.Errorf("no targets: tpot_margin %q, ttft_margin_low %q, confidence %q", row["tpot_margin"], row["ttft_margin_low"], row["confidence"])
	}
}
