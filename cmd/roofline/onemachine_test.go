package main

import (
	"strings"
	"testing"
)

// A runtime whose profile keeps its device splits in one machine
// (multi_node = false) is not priced across machines by default: llama.cpp
// on 16 H100 SXM without --link was a pipeline over both HGX boards, the
// hop between them on the InfiniBand assumed for vLLM's clusters, where
// llama.cpp reaches another machine only by RPC. It is refused as with
// --link 10gbe (the same reason and hint, exit 2), plan skips the count
// and --detail says why; gpt-fast's tensor parallel over a network
// (--link 10gbe, --tp 16 over ib-ndr) and llama.cpp's pipeline over
// InfiniBand are refused too. vLLM, whose profile says multi_node = true,
// keeps its boards over ib-ndr.
func TestOneMachineRuntimes(t *testing.T) {
	base := []string{"--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--devices", "16", "--runtime", "llama.cpp", "--weights", "q4_k_m"}
	_, errOut, code := runCLI(append([]string{"predict"}, base...)...)
	if code != 2 {
		t.Fatalf("predict: exit %d, want 2: %s", code, errOut)
	}
	for _, want := range []string{"--devices 16: h100-sxm's GPUs sit on boards of 8 joined by nvlink4", "only as RPC servers over a network", "multi_node", "hint: give at most --devices 8 and leave --link out", "--runtime vllm)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("predict: %q lacks %q", errOut, want)
		}
	}
	out, errOut, code := runCLI(append([]string{"plan", "--detail"}, base...)...)
	if code != 3 || !strings.Contains(out, "skipped: h100-sxm/gpu × 16 llama-3.1-70b: 16: h100-sxm's GPUs sit on boards of 8") {
		t.Errorf("plan --detail: exit %d, want 3 and the skipped count with its reason:\n%s\n%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hardware", "h100-sxm", "--devices", "16", "--runtime", "llama.cpp", "--weights", "q4_k_m", "--link", "ib-ndr"}, "--devices 16 over ib-ndr: h100-sxm's GPUs sit on boards of 8"},
		{[]string{"--hardware", "rtx-4090", "--devices", "4", "--runtime", "llama.cpp", "--weights", "q4_k_m", "--link", "ib-ndr"}, "--link ib-ndr: a network between machines, and llama.cpp splits a model over the GPUs of one machine"},
		{[]string{"--hardware", "rtx-4090", "--devices", "4", "--runtime", "gpt-fast", "--weights", "w4a16", "--link", "10gbe"}, "--link 10gbe: a network between machines, and gpt-fast splits a model over the GPUs of one machine"},
		{[]string{"--hardware", "h100-sxm", "--devices", "16", "--runtime", "gpt-fast", "--link", "ib-ndr"}, "--devices 16: h100-sxm's GPUs sit on boards of 8 joined by nvlink4, each a machine of its own, and gpt-fast"},
		// A group larger than a board names --tp, the flag that asks for
		// it: --devices 8 --tp 16 was "--devices 8: ... give at most
		// --devices 8", the count given.
		{[]string{"--hardware", "h100-sxm", "--tp", "16", "--runtime", "gpt-fast", "--link", "ib-ndr"}, "--tp 16: h100-sxm's GPUs sit on boards of 8 joined by nvlink4, each a machine of its own, and gpt-fast"},
		{[]string{"--hardware", "h100-sxm", "--devices", "8", "--tp", "16", "--runtime", "gpt-fast"}, "roofline: hint: give at most --tp 8 (one board, over nvlink4)"},
	} {
		_, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-70b"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, errOut)
		}
	}
	// DeepSeek-V3 in f16 (1.22 TiB) on one board of 8 × 80 GiB: DOES NOT
	// FIT says why no count is offered, where vLLM names 24 (3 boards).
	out, errOut, code = runCLI("predict", "--model", "deepseek-v3", "--hardware", "h100-sxm", "--runtime", "llama.cpp", "--weights", "f16")
	if code != 3 || !strings.Contains(out, "no count of devices like it in one machine holds it: llama.cpp runs a model over the GPUs of one machine (its profile's multi_node rule), here a board of 8 on nvlink4") {
		t.Errorf("DOES NOT FIT: exit %d: %s\n%s", code, errOut, out)
	}
	out, errOut, code = runCLI("predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm", "--devices", "16", "--runtime", "vllm")
	if code != 0 || !strings.Contains(out, "ib-ndr assumed") {
		t.Errorf("vllm: exit %d: %s\n%s", code, errOut, out)
	}
}

// A mode the runtime does not split in at all is refused under the flag
// that asked for it before any count of devices is weighed: --tp 16
// under llama.cpp (no tensor parallel) said "--devices 16: h100-sxm's
// GPUs sit on boards of 8 ...", a flag not given and a count that --tp
// implied (on e8ccda2, with --link ib-ndr, it said --tp's refusal);
// --pp under gpt-fast (no pipeline) on 16 likewise.
func TestUnsplitModeBeforeMachines(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--runtime", "llama.cpp", "--weights", "q4_k_m", "--tp", "16"}, "roofline: --tp llama.cpp does not split layers across devices (tensor parallel; its profile's parallel rule)"},
		{[]string{"--runtime", "llama.cpp", "--weights", "q4_k_m", "--tp", "16", "--link", "ib-ndr"}, "roofline: --tp llama.cpp does not split layers across devices"},
		{[]string{"--runtime", "gpt-fast", "--devices", "16", "--pp", "2"}, "roofline: --pp gpt-fast does not give devices runs of layers (pipeline parallel; its profile's parallel rule)"},
	} {
		_, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-70b", "--hardware", "h100-sxm"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "--devices 16") {
			t.Errorf("%v: exit %d, want 2 and %q (no --devices 16):\n%s", c.args, code, c.want, errOut)
		}
	}
}
