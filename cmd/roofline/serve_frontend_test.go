package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestServeFrontEndFlag: a vLLM server's lone requests (one every 100 s)
// take predict's TTFT plus the front end's light-load time: vLLM's
// profile's (latency + request + token, JSON front_end.light_load_s), none
// with --front-end off, 10 + 1 + 0.05 ms = 11.05 ms with --front-end
// 10ms,1ms,50us; llama.cpp's server has none, and its note says why.
// Bad values are usage errors at the flag.
func TestServeFrontEndFlag(t *testing.T) {
	type out struct {
		Single struct {
			TTFT float64 `json:"ttft_s"`
		} `json:"single_request"`
		FrontEnd struct {
			Light float64 `json:"light_load_s"`
			Batch int     `json:"batch"`
		} `json:"front_end"`
		Result struct {
			TTFT struct {
				P50 float64 `json:"p50_s"`
			} `json:"ttft"`
		} `json:"result"`
		Notes []string `json:"notes"`
	}
	run := func(rt string, extra ...string) out {
		t.Helper()
		args := append([]string{"serve", "--model", "qwen2.5-0.5b", "--hardware", "h100-sxm", "--runtime", rt, "--arrival", "constant", "--rate", "0.01",
			"--requests", "3", "--prompt", "256", "--output-tokens", "32", "--format", "json"}, extra...)
		stdout, errOut, code := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var o out
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	same := func(a, b float64) bool { return near(a, b, 1e-9) }
	fitted := run("vllm")
	if !(fitted.FrontEnd.Light > 0.015 && fitted.FrontEnd.Light < 0.04) || !same(fitted.Result.TTFT.P50, fitted.Single.TTFT+fitted.FrontEnd.Light) {
		t.Errorf("vLLM's front end: TTFT p50 %v, alone %v + front end %v", fitted.Result.TTFT.P50, fitted.Single.TTFT, fitted.FrontEnd.Light)
	}
	off := run("vllm", "--front-end", "off")
	if off.FrontEnd.Light != 0 || !same(off.Result.TTFT.P50, off.Single.TTFT) {
		t.Errorf("--front-end off: TTFT p50 %v, alone %v, front end %v", off.Result.TTFT.P50, off.Single.TTFT, off.FrontEnd.Light)
	}
	given := run("vllm", "--front-end", "10ms,1ms,50us")
	if !same(given.FrontEnd.Light, 0.01105) || !same(given.Result.TTFT.P50, given.Single.TTFT+0.01105) {
		t.Errorf("--front-end 10ms,1ms,50us: TTFT p50 %v, alone %v, front end %v", given.Result.TTFT.P50, given.Single.TTFT, given.FrontEnd.Light)
	}
	// A lone request is taken in alone however large the batch.
	batched := run("vllm", "--front-end", "10ms,1ms,50us,32")
	if batched.FrontEnd.Batch != 32 || !same(batched.Result.TTFT.P50, given.Result.TTFT.P50) {
		t.Errorf("--front-end 10ms,1ms,50us,32: batch %d, TTFT p50 %v (one at a time %v)", batched.FrontEnd.Batch, batched.Result.TTFT.P50, given.Result.TTFT.P50)
	}
	lc := run("llama.cpp", "--weights", "q4_k_m")
	if lc.FrontEnd.Light != 0 || !same(lc.Result.TTFT.P50, lc.Single.TTFT) || !strings.Contains(strings.Join(lc.Notes, "\n"), "not simulated: llama.cpp's front end") {
		t.Errorf("llama.cpp: TTFT p50 %v, alone %v, notes %q", lc.Result.TTFT.P50, lc.Single.TTFT, lc.Notes)
	}
	for _, bad := range []string{"1ms,2ms", "-1ms,0,0", "2s,0,0", "NaN,0,0", "fast", "1ms,1ms,1ms,0", "1ms,1ms,1ms,2.5", "1ms,1ms,1ms,1,1"} {
		_, errOut, code := runCLI("serve", "--model", "qwen2.5-0.5b", "--hardware", "h100-sxm", "--runtime", "vllm", "--rate", "1", "--front-end", bad)
		if code != 2 || !strings.Contains(errOut, "--front-end") {
			t.Errorf("--front-end %s: exit %d, %q", bad, code, errOut)
		}
	}
}

// TestServeAsyncSchedulingFlag: vLLM's scheduler line says it schedules
// asynchronously (its profile's default), --async-scheduling off says
// it does not, and a value other than on or off is a usage error.
func TestServeAsyncSchedulingFlag(t *testing.T) {
	args := []string{"serve", "--model", "qwen2.5-0.5b", "--hardware", "h100-sxm", "--runtime", "vllm", "--rate", "5", "--requests", "50"}
	for _, c := range []struct {
		extra []string
		want  bool
	}{{nil, true}, {[]string{"--async-scheduling", "off"}, false}, {[]string{"--async-scheduling", "on"}, true}} {
		stdout, errOut, code := runCLI(append(slices.Clone(args), c.extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errOut)
		}
		line := ""
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "scheduler:") {
				line = l
			}
		}
		if strings.Contains(line, "async scheduling") != c.want {
			t.Errorf("%v: %q", c.extra, line)
		}
	}
	_, errOut, code := runCLI(append(slices.Clone(args), "--async-scheduling", "maybe")...)
	if code != 2 || !strings.Contains(errOut, "--async-scheduling") {
		t.Errorf("--async-scheduling maybe: exit %d, %q", code, errOut)
	}
}
