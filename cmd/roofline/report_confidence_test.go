package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The voice-assistant example report says how sure it is, in what it
// writes: every default prediction in report.md carries its 80 % interval,
// bracketing the figure; every verdict says at which confidence it meets,
// is uncertain or fails, by how much and with the interval of its margin
// from the slow to the fast end; results.json
// holds the same intervals and verdicts, and each verdict agrees with its
// margins (meets: the slow end meets every target; uncertain: the figure
// meets them, the slow end does not; fails: even the fast end misses one,
// or the configuration does not fit).
func TestVoiceAssistantReportSaysHowSure(t *testing.T) {
	out := runReport(t, "../../docs/examples/voice-assistant.toml")
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))

	// Predictions at the workload: TTFT, TPOT and E2E cells.
	preds := section(md, "## Predictions at the workload", "## Figures")
	cell := regexp.MustCompile(`^(\S+ \S+) \(80%: (\S+ \S+)–(\S+ \S+)\)$`)
	rows := 0
	for _, line := range strings.Split(preds, "\n") {
		f := tableCells(line)
		if len(f) < 12 || f[0] == "engine" || strings.HasPrefix(f[0], "---") {
			continue
		}
		rows++
		for _, i := range []int{4, 6, 8} { // TTFT, TPOT, E2E
			m := cell.FindStringSubmatch(f[i])
			if m == nil {
				t.Errorf("prediction %s %s %s: %q has no 80%% interval", f[0], f[1], f[2], f[i])
				continue
			}
			v, lo, hi := seconds(t, m[1]), seconds(t, m[2]), seconds(t, m[3])
			if !(lo <= v && v <= hi && lo < hi) {
				t.Errorf("prediction %s %s %s: %s is not inside its interval", f[0], f[1], f[2], f[i])
			}
		}
	}
	if rows < 8 {
		t.Fatalf("%d prediction rows in report.md, want the study's 10", rows)
	}

	// Verdicts: in the answer's table, a row per device and model, each
	// with its margin and the interval of that margin.
	answer := section(md, "## Answer", "### Limits")
	verdicts := 0
	for _, line := range strings.Split(answer, "\n") {
		f := tableCells(line)
		if len(f) != 8 || f[0] == "device" || strings.HasPrefix(f[0], "---") {
			continue
		}
		verdicts++
		v, iv := f[6], f[7]
		switch {
		case strings.HasPrefix(v, "meets: "), strings.HasPrefix(v, "uncertain: "), strings.HasPrefix(v, "fails: T"):
			if !regexp.MustCompile(`^(meets|uncertain|fails): (TTFT|TPOT) \d+% (under|over) target$`).MatchString(v) {
				t.Errorf("verdict %q does not say by how much", v)
			}
			if !regexp.MustCompile(`^\d+(% over)? ?[–-] ?\d+% (under|over)$`).MatchString(iv) {
				t.Errorf("verdict %q: interval %q is not a range of margins", v, iv)
			}
		case strings.HasPrefix(v, "does not fit: "), strings.HasPrefix(v, "fails: throughput"):
		default:
			t.Errorf("verdict %q does not say how sure it is", v)
		}
	}
	if verdicts < 4 {
		t.Fatalf("%d verdicts in the answer's table, want one per device and model", verdicts)
	}
	if !strings.Contains(answer, "of them 80% sure") || !strings.Contains(answer, "each end 80% sure") {
		t.Errorf("the answer does not say how sure its verdicts are:\n%s", answer)
	}

	// results.json: the same, as numbers.
	var r struct {
		Predictions []struct {
			Result struct {
				TTFT   float64    `json:"ttft_s"`
				TPOT   float64    `json:"tpot_s"`
				E2E    float64    `json:"e2e_s"`
				TTFTIv [2]float64 `json:"ttft_interval_s"`
				TPOTIv [2]float64 `json:"tpot_interval_s"`
				E2EIv  [2]float64 `json:"e2e_interval_s"`
				Level  float64    `json:"interval_level"`
			} `json:"result"`
		} `json:"predictions"`
	}
	js := must(os.ReadFile(filepath.Join(out, "results.json")))
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Predictions {
		x := p.Result
		for _, c := range []struct {
			v  float64
			iv [2]float64
		}{{x.TTFT, x.TTFTIv}, {x.TPOT, x.TPOTIv}, {x.E2E, x.E2EIv}} {
			if !(c.iv[0] <= c.v && c.v <= c.iv[1] && c.iv[0] < c.iv[1]) {
				t.Errorf("results.json: %g outside its interval %v", c.v, c.iv)
			}
		}
		if x.Level != 0.8 {
			t.Errorf("results.json: interval level %g, want 0.8", x.Level)
		}
	}
	var raw struct {
		Plan struct {
			Best []map[string]any `json:"best"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Plan.Best) == 0 {
		t.Fatal("results.json: no best configurations")
	}
	for _, b := range raw.Plan.Best {
		num := func(k string) float64 {
			v, ok := b[k].(float64)
			if !ok {
				t.Fatalf("results.json best %v %v: %s is not a number", b["hardware"], b["model"], k)
			}
			return v
		}
		name := b["hardware"].(string) + " " + b["model"].(string)
		if c := num("confidence"); c != 0.8 {
			t.Errorf("%s: confidence %g, want 0.8", name, c)
		}
		fits, _ := b["fits"].(bool)
		// Margins are target / figure − 1: ≥ 0 meets the target.
		lowOK := num("ttft_margin_low") >= 0 && num("tpot_margin_low") >= 0
		midOK := num("ttft_margin") >= 0 && num("tpot_margin") >= 0
		highOK := num("ttft_margin_high") >= 0 && num("tpot_margin_high") >= 0
		if num("ttft_margin_low") > num("ttft_margin") || num("ttft_margin") > num("ttft_margin_high") {
			t.Errorf("%s: TTFT margins out of order", name)
		}
		switch v := b["verdict"]; v {
		case "meets":
			if !fits || !lowOK {
				t.Errorf("%s: meets, but its slow end misses a target or it does not fit", name)
			}
		case "uncertain":
			if !fits || lowOK || !highOK {
				t.Errorf("%s: uncertain, but its margins say otherwise (%v)", name, b)
			}
		case "fails":
			if fits && highOK && midOK {
				t.Errorf("%s: fails, but it fits and meets every target", name)
			}
		default:
			t.Errorf("%s: verdict %v is not meets, uncertain or fails", name, v)
		}
	}
}

// section is the part of s from the heading `from` to the heading `to`.
func section(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j > 0 {
		s = s[:j]
	}
	return s
}

// tableCells splits a Markdown table row into trimmed cells.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	var out []string
	for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// seconds reads a rendered duration such as "138 ms" or "3.18 s".
func seconds(t *testing.T, s string) float64 {
	t.Helper()
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	switch unit {
	case "s":
		return v
	case "ms":
		return v / 1e3
	case "µs":
		return v / 1e6
	}
	t.Fatalf("duration %q: unknown unit", s)
	return 0
}

// TestReportCountIsPlans: the report's headline count is plan's sentence,
// word for word, on a study of 3 boards × 3 models × 3 formats with a
// 1000-token prompt, where fewer configurations are sure to meet the
// targets than meet them as predicted (25 and 18). The report said "25 of
// 90 configurations meet the targets …, judged 80 % sure" where plan says
// "25 … as predicted, 18 of them 80 % sure"; results.json holds both
// counts.
func TestReportCountIsPlans(t *testing.T) {
	study := filepath.Join(t.TempDir(), "study.toml")
	if err := os.WriteFile(study, []byte(`title = "three boards, three models, three formats"
devices = ["jetson-orin-nano-super-8gb", "rk3588", "raspberry-pi-5-8gb"]
models = ["llama-3.2-1b", "llama-3.2-3b", "qwen2.5-1.5b"]
weights = ["q4_k_m", "q8_0", "w8a8"]
[workload]
prompt = 1000
output = 200
contexts = ["2k", "4k", "8k"]
[targets]
ttft = "1s"
tpot = "200ms"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runReport(t, study)
	var r struct {
		Plan struct {
			Command string `json:"command"`
			Meeting int    `json:"feasible_configurations"`
			Sure    int    `json:"configurations_sure"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "results.json"))), &r); err != nil {
		t.Fatal(err)
	}
	if r.Plan.Sure >= r.Plan.Meeting {
		t.Fatalf("the study should have configurations meeting the targets that are not sure to: %d meet, %d sure", r.Plan.Meeting, r.Plan.Sure)
	}
	plan, errOut, code := runCLI(strings.Fields(strings.TrimPrefix(r.Plan.Command, "roofline "))...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", r.Plan.Command, code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(plan), "\n")
	count := lines[len(lines)-1]
	if !strings.Contains(count, fmt.Sprintf("%d of them 80%% sure", r.Plan.Sure)) {
		t.Fatalf("plan's count %q does not hold results.json's %d sure", count, r.Plan.Sure)
	}
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	if !strings.Contains(md, count+".") {
		t.Errorf("report.md does not say plan's count %q:\n%s", count, section(md, "## Answer", "### Limits"))
	}
}
