package main

import (
	"encoding/json"
	"strings"
	"testing"
)

var voiceAssistant = []string{"plan", "--hardware", "jetson-orin-nano-8gb,jetson-orin-nano-super-8gb,rk3588", "--model", "llama-3.2-3b,qwen2.5-1.5b",
	"--weights", "q4_k_m,q8_0,w8a8", "--context", "2k,4k,8k", "--prompt", "1000", "--output", "200", "--ttft", "1s", "--tpot", "200ms", "--headroom", "10%"}

func TestPlanGolden(t *testing.T) {
	out, errOut, code := runCLI(voiceAssistant...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "plan-voice-assistant.stdout", out)
	md, _, _ := runCLI(append(append([]string{}, voiceAssistant...), "--format", "markdown")...)
	golden(t, "plan-voice-assistant.md", md)
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
			[]string{`unknown hardware "nosuch-board"`, `unknown model "lama-3.2-3b"; did you mean llama-3.2-3b`, `unknown weight format "q4_k_x"`}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--tpot", "200"}, 2, []string{"--tpot \"200\": give a unit"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--ttft", "-1s"}, 2, []string{"want a positive duration"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--headroom", "150%"}, 2, []string{"--headroom"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--context", "1k,zero"}, 2, []string{"--context"}},
		{[]string{"plan", "--hardware", "rk3588", "--model", "llama-3.2-3b", "--context", "1k", "--min-context", "8k"}, 1, []string{"no context length left"}},
		{[]string{"plan", "--model", "llama-3.2-3b"}, 2, []string{"--hardware is required"}},
		{[]string{"plan", "--hardware", "nothing-*", "--model", "llama-3.2-3b"}, 1, []string{`unknown hardware "nothing-*"`}},
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
