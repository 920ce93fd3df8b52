package main

import (
	"encoding/json"
	"testing"
)

// The Jetson AGX Thor's CPU decodes slower than the llama.cpp cpu class's
// four small boards predict (THOR-GTIER, 14 Neoverse-V3AE threads), and no
// sourced term says why (docs/method.md §6, "Threads"). Its runs are scored,
// so its own level carries them: a user asking predict about the Thor's cpu
// engine gets an interval that holds what was measured, never a tight one
// that misses. Measured TPOT is 1 / tg32 (llama-bench -n 32 from an empty
// cache; predict -p 1 -n 33 prices the 32 steps after the first token):
// 1 / 10.55 t/s = 94.8 ms, 1 / 5.92 = 168.9 ms, 1 / 3.43 = 291.5 ms.
func TestThorCPUIntervalsHoldItsRuns(t *testing.T) {
	for _, c := range []struct {
		model    string
		measured float64 // s a token
	}{
		{"qwen2.5-7b", 1 / 10.55},
		{"qwen2.5-14b", 1 / 5.92},
		{"qwen2.5-32b", 1 / 3.43},
	} {
		out, errOut, code := runCLI("predict", "--model", c.model, "--hardware", "jetson-agx-thor", "--engine", "cpu",
			"--runtime", "llama.cpp", "--weights", "q8_0", "--threads", "14", "--prompt", "1", "--output-tokens", "33", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.model, code, errOut)
		}
		var p struct {
			TPOT     float64    `json:"tpot_s"`
			Interval [2]float64 `json:"tpot_interval_s"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		if !(p.Interval[0] <= c.measured && c.measured <= p.Interval[1]) {
			t.Errorf("%s on the Thor's CPU: measured TPOT %.1f ms outside the 80 %% interval %.1f–%.1f ms (predicted %.1f ms)",
				c.model, 1e3*c.measured, 1e3*p.Interval[0], 1e3*p.Interval[1], 1e3*p.TPOT)
		}
	}
}
