package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// voiceAssistant is the plan of docs/examples/voice-assistant.toml: its
// devices, models, formats, workload and targets.
var voiceAssistant = []string{"plan", "--hardware", "jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b,qwen2.5-1.5b",
	"--weights", "q4_k_m,w8a8", "--context", "2k,4k,8k,16k", "--prompt", "200", "--output-tokens", "100", "--ttft", "1s", "--tpot", "200ms", "--headroom", "10%"}

// voiceAssistantDetail widens it to three boards and q8_0, with the detail.
var voiceAssistantDetail = []string{"plan", "--hardware", "jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b,qwen2.5-1.5b",
	"--weights", "q4_k_m,q8_0,w8a8", "--context", "2k,4k,8k", "--prompt", "1000", "--output-tokens", "200", "--ttft", "1s", "--tpot", "200ms", "--headroom", "10%",
	"--top", "2", "--detail"}

func TestPlanGolden(t *testing.T) {
	out, errOut, code := runCLI(voiceAssistant...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "plan-voice-assistant.stdout", out)
	md, _, _ := runCLI(append(append([]string{}, voiceAssistant...), "--format", "markdown")...)
	golden(t, "plan-voice-assistant.md", md)
	detail, errOut, code := runCLI(voiceAssistantDetail...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "plan-voice-assistant-detail.stdout", detail)
}

// TestPlanDefaultAnswer: the voice assistant's default answer fits on one
// screen and recommends what a user would deploy: q4_k_m under llama.cpp
// on the Orin Nano's GPU for Llama-3.2-3B, the NPU on the RK3588 (its CPU
// engine is left out), and says "none" and "does not fit" in words.
// Qwen2.5-1.5B on the Orin Nano Super is a tie: llama.cpp's q4_k_m,
// priced from the board's measured read (43.6 tok/s at 2048), and vLLM's
// w8a8 on a class with no Jetson run (43.7 tok/s) decode within 0.3 %, so
// either is the answer; the test does not pin which side of a tie wins.
func TestPlanDefaultAnswer(t *testing.T) {
	out, _, _ := runCLI(voiceAssistant...)
	if n := strings.Count(out, "\n"); n > 40 {
		t.Errorf("the default answer is %d lines, more than a screen (40)", n)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && (f[0] == "jetson-orin-nano-super-8gb" || f[0] == "rk3588") {
			rows[f[0]+" "+f[1]] = f[2:5]
		}
	}
	want := map[string][]string{
		"jetson-orin-nano-super-8gb llama-3.2-3b": {"gpu", "llama.cpp", "q4_k_m"},
		"jetson-orin-nano-super-8gb qwen2.5-1.5b": {"gpu", "llama.cpp", "q4_k_m"},
		"rk3588 llama-3.2-3b":                     {"npu", "rkllm", "w8a8"},
		"rk3588 qwen2.5-1.5b":                     {"npu", "rkllm", "w8a8"},
	}
	if tie := "jetson-orin-nano-super-8gb qwen2.5-1.5b"; reflect.DeepEqual(rows[tie], []string{"gpu", "vllm", "w8a8"}) {
		rows[tie] = want[tie]
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("recommended %v, want %v", rows, want)
	}
	if !strings.Contains(out, "none at 2048") {
		t.Errorf("a device serving no concurrent sequence within the targets should say none:\n%s", out)
	}
	out, _, _ = runCLI("plan", "--hardware", "jetson-orin-nano-8gb", "--model", "llama-3.1-70b", "--weights", "q4_k_m", "--detail")
	if !strings.Contains(out, "does not fit") || !strings.Contains(out, "DOES NOT FIT") {
		t.Errorf("a 70B model on an 8 GB board:\n%s", out)
	}
}

// TestPlanAndChatAgree: plan's concurrent sequences of a configuration
// and chat's concurrent chats are one rule (sim.MaxConcurrent): a
// conversation of ten turns (500-token system prompt, 50 in, 150 out)
// ends at 2500 tokens, and a plan of 2500-token contexts with the same
// message and reply gives the same counts.
func TestPlanAndChatAgree(t *testing.T) {
	chatOut, errOut, code := runCLI("chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var ch struct {
		Concurrent struct {
			Context int `json:"context_per_chat"`
			Meeting int `json:"max_chats_meeting_targets"`
			Memory  int `json:"max_chats_in_memory"`
		} `json:"concurrent"`
	}
	if err := json.Unmarshal([]byte(chatOut), &ch); err != nil {
		t.Fatal(err)
	}
	planOut, errOut, code := runCLI("plan", "--hardware", "jetson-orin-nano-super-8gb", "--engine", "gpu", "--model", "llama-3.2-3b", "--weights", "q4_k_m",
		"--context", "2500", "--prompt", "50", "--output-tokens", "150", "--ttft", "1s", "--tpot", "200ms", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var p struct {
		Best []struct {
			Context int `json:"concurrent_context"`
			Meeting int `json:"max_concurrent"`
			Fit     int `json:"max_concurrent_fit"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(planOut), &p); err != nil {
		t.Fatal(err)
	}
	c := ch.Concurrent
	if len(p.Best) != 1 || c.Context != 2500 || p.Best[0].Context != c.Context || p.Best[0].Meeting != c.Meeting || p.Best[0].Fit != c.Memory || c.Meeting < 2 {
		t.Errorf("chat: %d chats of %d tokens meet the targets, %d fit; plan: %+v", c.Meeting, c.Context, c.Memory, p.Best)
	}
}

func TestPlanJSON(t *testing.T) {
	out, errOut, code := runCLI(append(append([]string{}, voiceAssistant...), "--format", "json")...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		Configs []map[string]any `json:"configs"`
		Limits  []map[string]any `json:"limits"`
		Best    []map[string]any `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"hardware", "engine", "model", "weights", "kv", "context", "batch", "ttft_s", "tpot_s", "memory_bytes", "usable_bytes", "fits", "feasible", "limit"} {
		if _, ok := j.Configs[0][k]; !ok {
			t.Errorf("configs key %q missing", k)
		}
	}
	for _, k := range []string{"hardware", "engine", "model", "weights", "max_context_fit", "max_context_tpot", "max_prompt_ttft", "max_batch_fit"} {
		if _, ok := j.Limits[0][k]; !ok {
			t.Errorf("limits key %q missing", k)
		}
	}
	for _, c := range j.Configs {
		lim, _ := c["limit"].(string)
		if c["feasible"] == true && lim != "" || c["feasible"] == false && lim == "" {
			t.Errorf("feasible %v with limit %q", c["feasible"], lim)
		}
		switch lim {
		case "", "memory", "ttft", "tpot", "throughput":
		default:
			t.Errorf("limit %q", lim)
		}
	}
}

func TestPlanExitAndErrors(t *testing.T) {
	// Nothing meets a 1 ms TPOT: the report still prints, exit status 3.
	out, errOut, code := runCLI("plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--weights", "w8a8", "--tpot", "1ms")
	if code != 3 || !strings.Contains(out, "FAILS TPOT") || !strings.Contains(errOut, "no configuration meets the targets") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	cases := []struct {
		args []string
		code int
		has  []string
	}{
		{[]string{"plan", "--hardware", "rk3588,nosuch-board", "--model", "lama-3.2-3b,llama-3.2-3b", "--weights", "q4_k_x"}, 1,
			[]string{`--hardware: unknown hardware "nosuch-board"`, `--model: unknown model "lama-3.2-3b"; did you mean llama-3.2-3b`, `unknown weight format "q4_k_x"`, "hint: 'roofline list hardware'"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--tpot", "200"}, 2, []string{"--tpot \"200\": give a unit"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--ttft", "-1s"}, 2, []string{"want a positive duration"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--headroom", "150%"}, 2, []string{"--headroom"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--context", "1k,zero"}, 2, []string{"--context"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--context", "1k", "--min-context", "8k"}, 1, []string{"no context length left"}},
		{[]string{"plan", "--model", "llama-3.2-3b"}, 2, []string{"--hardware is required"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--min-batch", "0"}, 2, []string{"--min-batch 0: want a batch of 1 sequence or more"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--min-batch", "-1"}, 2, []string{"--min-batch -1"}},
		// sim.MaxTokens = 2^30 = 1073741824 sequences bounds --batch and so --min-batch.
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--min-batch", "99999999999"}, 2,
			[]string{"--min-batch 99999999999 exceeds the limit of 1073741824 sequences", "hint: 'roofline help'"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--min-batch", "1073741825"}, 2, []string{"--min-batch 1073741825 exceeds"}},
		// At the bound it is a value --batch may reach: the two flags together leave nothing (exit 1, as --min-context).
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--min-batch", "1073741824"}, 1, []string{"no batch size left"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--ttft", "NaN"}, 2, []string{`--ttft "NaN": not a duration`}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--tpot", "inf"}, 2, []string{`--tpot "inf": not a duration`}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--confidence", "0"}, 2, []string{"above 0 and below 1"}},
		{[]string{"plan", "--hardware", "nothing-*", "--model", "llama-3.2-3b"}, 1, []string{`--hardware: unknown hardware "nothing-*"`}},
		// A list with nothing in it names its flag and what it takes, not "empty search space".
		{[]string{"plan", "--hardware", ",", "--model", "llama-3.2-3b"}, 2,
			[]string{`--hardware "," names nothing`, "hint: 'roofline list hardware' shows the names"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", ", ,"}, 2, []string{`--model ", ," names nothing`, "hint: 'roofline list models'"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--weights", ","}, 2, []string{`--weights "," names nothing`}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--runtime", ","}, 2, []string{`--runtime "," names nothing`}},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(c.args...)
		if code != c.code || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q", c.args, code, c.code, out)
		}
		for _, h := range c.has {
			if !strings.Contains(errOut, h) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errOut, h)
			}
		}
	}
}

// TestPlanFlags: --runtime keeps to the runtimes listed (the RK3588 then
// answers with its CPU, the only engine llama.cpp runs there), --top N
// ranks N per device and model, --feasible-only leaves out what misses,
// --rank takes every rank, and bad values exit 2.
func TestPlanFlags(t *testing.T) {
	base := []string{"plan", "--hardware", "jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b", "--ttft", "1s", "--tpot", "200ms", "--format", "json"}
	var j struct {
		Best []struct {
			Place    int    `json:"place"`
			Hardware string `json:"hardware"`
			Engine   string `json:"engine"`
			Runtime  string `json:"runtime"`
			Feasible bool   `json:"feasible"`
		} `json:"best"`
		Configs []struct {
			Runtime  string `json:"runtime"`
			Feasible bool   `json:"feasible"`
		} `json:"configs"`
		RankedBy string `json:"ranked_by"`
	}
	get := func(extra ...string) int {
		t.Helper()
		out, errOut, code := runCLI(append(append([]string{}, base...), extra...)...)
		j.Best, j.Configs = nil, nil
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: %v: %s", extra, err, errOut)
		}
		return code
	}
	get("--runtime", "llama.cpp", "--top", "5")
	for _, b := range j.Best {
		if b.Runtime != "llama.cpp" {
			t.Errorf("--runtime llama.cpp recommends %+v", b)
		}
	}
	if len(j.Best) == 0 || j.Best[len(j.Best)-1].Hardware != "rk3588" || j.Best[len(j.Best)-1].Engine != "cpu" {
		t.Errorf("--runtime llama.cpp: %+v", j.Best)
	}
	get("--top", "2", "--weights", "q4_k_m,q8_0")
	places := map[string][]int{}
	for _, b := range j.Best {
		places[b.Hardware] = append(places[b.Hardware], b.Place)
	}
	if !reflect.DeepEqual(places["jetson-orin-nano-super-8gb"], []int{1, 2}) {
		t.Errorf("--top 2: %v", places)
	}
	if code := get("--feasible-only"); code != 0 {
		t.Errorf("--feasible-only: exit %d", code)
	}
	for _, c := range j.Configs {
		if !c.Feasible {
			t.Errorf("--feasible-only wrote a configuration that misses: %+v", c)
		}
	}
	for _, b := range j.Best {
		if !b.Feasible {
			t.Errorf("--feasible-only shows %+v", b)
		}
	}
	for _, r := range []string{"quality", "speed", "margin", "context", "memory", "SPEED"} {
		get("--rank", r)
		if j.RankedBy != strings.ToLower(r) || len(j.Best) == 0 {
			t.Errorf("--rank %s: ranked by %q, %d rows", r, j.RankedBy, len(j.Best))
		}
	}
	for _, bad := range [][]string{{"--rank", "bits"}, {"--top", "-1"}, {"--quality-tolerance", "150%"}} {
		if _, errOut, code := runCLI(append(append([]string{}, base...), bad...)...); code != 2 || !strings.Contains(errOut, bad[0]) {
			t.Errorf("%v: exit %d, %s", bad, code, errOut)
		}
	}
}

// The plan's count says how many configurations meet the targets as
// predicted and how many of them are sure to: llama-3.2-3b q4_k_m on an
// Orin Nano Super at 2k context, TTFT < 1.3 s, TPOT < 200 ms, is
// predicted under both targets on the GPU (TTFT 1.24 s) but its interval's
// slow end is not (7 % over), so 1 meets as predicted and 0 are 80 % sure (the row
// says "uncertain").
func TestPlanCountsSureApart(t *testing.T) {
	args := []string{"plan", "--hardware", "jetson-orin-nano-super-8gb", "--model", "llama-3.2-3b", "--weights", "q4_k_m", "--context", "2k",
		"--prompt", "1000", "--output-tokens", "200", "--ttft", "1.3s", "--tpot", "200ms"}
	out, errOut, code := runCLI(args...)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (none is sure): %s", code, errOut)
	}
	if !strings.Contains(out, "uncertain") || !strings.Contains(out, "1 of 2 configurations in 2 groups meet the targets as predicted, 0 of them 80% sure") {
		t.Errorf("the count should tell the uncertain configuration apart:\n%s", out)
	}
	js, _, _ := runCLI(append(args, "--format", "json")...)
	var j struct {
		Meeting int `json:"configurations_meeting_targets"`
		Sure    int `json:"configurations_sure"`
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil || j.Meeting != 1 || j.Sure != 0 {
		t.Errorf("JSON: meeting %d, sure %d (%v); want 1 and 0", j.Meeting, j.Sure, err)
	}
}

// The command of issue 28, finding 1: nothing meets a 1 s TTFT for a
// 1000-token prompt on a Raspberry Pi 5, and the recommended rows must be
// formats that fit (f16 and f32, which do not, were recommended).
func TestPlanRecommendsWhatFits(t *testing.T) {
	out, errOut, code := runCLI("plan", "--hardware", "raspberry-pi-5-8gb", "--model", "llama-3.2-3b,qwen2.5-3b", "--weights", "all",
		"--context", "4k", "--prompt", "1000", "-n", "200", "--ttft", "1s", "--tpot", "200ms")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "raspberry-pi-5-8gb ") {
			rows++
			if strings.Contains(line, "DOES NOT FIT") || !strings.Contains(line, "FAILS TTFT") {
				t.Errorf("a recommended row does not fit or misses something else than TTFT:\n%s", line)
			}
		}
	}
	if rows != 2 {
		t.Errorf("%d rows, want one per model:\n%s", rows, out)
	}
}

// TestPlanExitNeedsSure: plan's exit status follows docs/planning.md, 0
// only when a configuration meets the targets at --confidence. The
// README's plan example with a 1000-token prompt meets them as predicted
// 5 times (9 before issue 24's refit) and 80 % sure never; it exited 0. It now exits 3 and says why;
// at --confidence 0.5 (the figure itself) the same plan exits 0, and the
// README's example (a 500-token prompt) is sure to, and exits 0.
func TestPlanExitNeedsSure(t *testing.T) {
	args := []string{"plan", "--hardware", "jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b",
		"--weights", "q4_k_m,q8_0,w8a8", "--context", "2k,4k,8k", "--prompt", "1000", "--output-tokens", "200", "--ttft", "1s", "--tpot", "200ms"}
	out, errOut, code := runCLI(args...)
	if code != 3 || !strings.Contains(out, " of them 80% sure") || !strings.Contains(out, ", 0 of them 80% sure") {
		t.Fatalf("exit %d, want 3 with nothing 80%% sure:\n%s%s", code, out, errOut)
	}
	if want := "roofline: no configuration is 80% sure to meet the targets; 5 meet them as predicted"; !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if _, errOut, code := runCLI(append(args, "--confidence", "0.5")...); code != 0 {
		t.Errorf("at --confidence 0.5: exit %d: %s", code, errOut)
	}
	args[10] = "500" // --prompt's value (args[12] is --output-tokens')
	if out, _, code := runCLI(args...); code != 0 || strings.Contains(out, ", 0 of them 80% sure") {
		t.Errorf("prompt 500: exit %d\n%s", code, out)
	}
}

// TestPlanSaysBorrowedQuality: the published losses are of 8B models
// (Llama-3-8B for the GGUF types, Llama-3.1-8B for w8a8); planning
// qwen2.5-1.5b applied them with nothing said. The table marks a loss
// measured on another model with * and names it; JSON says
// quality_measured_on and quality_borrowed.
func TestPlanSaysBorrowedQuality(t *testing.T) {
	args := []string{"plan", "--hardware", "jetson-orin-nano-super-8gb", "--model", "qwen2.5-1.5b", "--weights", "q4_k_m", "--context", "2k", "--ttft", "1s"}
	out, errOut, code := runCLI(args...)
	if code != 0 || !strings.Contains(out, "2.8% ppl*") || !strings.Contains(out, "* a loss measured on another model, a guide for this one (docs/formats.md): q4_k_m on Llama-3-8B") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	for _, c := range []struct {
		model, weights, hw string
		borrowed           bool
	}{{"qwen2.5-1.5b", "q4_k_m", "jetson-orin-nano-super-8gb", true}, {"llama-3.1-8b", "w8a8", "h100-sxm", false}} {
		js, _, _ := runCLI("plan", "--hardware", c.hw, "--model", c.model, "--weights", c.weights, "--context", "2k", "--ttft", "1s", "--format", "json")
		var j struct {
			Best []struct {
				On       string `json:"quality_measured_on"`
				Borrowed bool   `json:"quality_borrowed"`
			} `json:"best"`
		}
		if err := json.Unmarshal([]byte(js), &j); err != nil || len(j.Best) != 1 || j.Best[0].Borrowed != c.borrowed || j.Best[0].On == "" {
			t.Errorf("%s %s: %+v (%v)", c.model, c.weights, j.Best, err)
		}
	}
	// The text of llama-3.1-8b in w8a8 has no mark: it is that model's.
	if out, _, _ := runCLI("plan", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--weights", "w8a8", "--context", "2k", "--ttft", "1s"); strings.Contains(out, "acc*") {
		t.Errorf("w8a8 on llama-3.1-8b marked borrowed:\n%s", out)
	}
}
