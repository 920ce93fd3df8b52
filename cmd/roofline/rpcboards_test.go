package main

import (
	"strings"
	"testing"
)

// 16 H100 SXM over 10 GbE under llama.cpp: two HGX boards of 8 on
// NVLink, which llama.cpp would run as one process per board (-sm layer,
// peer copies over nvlink4) and RPC between them; the RPC split priced
// them as 16 boards of one GPU, every hop a round trip over 10gbe. Predict
// refuses with the reason and a hint (exit 2); plan skips the count and
// --detail says why. A count within a board, and a device on no board,
// keep the RPC split.
func TestRPCBoardsOfNVLink(t *testing.T) {
	args := []string{"--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--devices", "16", "--link", "10gbe", "--runtime", "llama.cpp", "--weights", "q4_k_m"}
	_, errOut, code := runCLI(append([]string{"predict"}, args...)...)
	if code != 2 {
		t.Fatalf("predict: exit %d, want 2: %s", code, errOut)
	}
	for _, want := range []string{"--devices 16 over 10gbe", "boards of 8 joined by nvlink4", "RPC servers over 10gbe", "hint: give at most --devices 8", "--runtime vllm --link 10gbe"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("predict: %q lacks %q", errOut, want)
		}
	}
	out, errOut, code := runCLI(append([]string{"plan", "--detail"}, args...)...)
	if code != 3 || !strings.Contains(out, "skipped: h100-sxm/gpu × 16 llama-3.1-70b: 16 over 10gbe: h100-sxm's GPUs sit on boards of 8") {
		t.Errorf("plan --detail: exit %d, want 3 and the skipped count with its reason:\n%s\n%s", code, out, errOut)
	}
	for _, c := range [][]string{
		{"--hardware", "h100-sxm", "--devices", "4"},  // within a board
		{"--hardware", "rtx-4090", "--devices", "16"}, // no NVLink board
	} {
		out, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-70b", "--link", "10gbe", "--runtime", "llama.cpp", "--weights", "q4_k_m"}, c...)...)
		if code != 0 || !strings.Contains(out, "llama.cpp RPC: "+c[3]+" boards of "+c[1]+" on 10gbe") {
			t.Errorf("%v: exit %d: %s\n%s", c, code, errOut, out)
		}
	}
}
