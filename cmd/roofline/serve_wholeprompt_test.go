package main

import (
	"strings"
	"testing"
)

// TestServeWholePromptSizing: TensorRT Edge-LLM prefills each prompt in
// one pass. Log-normal prompts (no upper end) sized its pass at
// Llama-3.2-3B's whole context, 131072 tokens, and an Orin Nano 8GB was
// refused, 706 MiB short, for a workload whose 1000 prompts reach 2219
// tokens (lognormal:500:300, seed 1; its 99.9th percentile is 2377). It
// serves, and a note says what the passes were sized for and the
// maxInputLen an engine needs. A workload that does draw prompts the
// board cannot take whole is refused naming the pass, with the flags that
// shorten it.
func TestServeWholePromptSizing(t *testing.T) {
	base := []string{"serve", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-8gb", "--runtime", "tensorrt-edge-llm", "--weights", "w4a16", "--rate", "0.05", "--output-tokens", "128"}
	out, errOut, code := runCLI(append(base, "--prompt", "lognormal:500:300")...)
	if code != 0 {
		t.Fatalf("lognormal:500:300: exit %d: %s", code, errOut)
	}
	for _, w := range []string{"sized for the longest prompt the run sends, 2219 tokens (the largest of its 1000 draws from lognormal:500:300, seed 1", "maxInputLen ≥ 2219"} {
		if !strings.Contains(out, w) {
			t.Errorf("lognormal:500:300: lacks %q:\n%s", w, out)
		}
	}
	out, _, code = runCLI(append(base, "--prompt", "600", "--requests", "5")...)
	if code != 0 || !strings.Contains(out, "sized for every prompt's 600 tokens") {
		t.Errorf("a fixed prompt: exit %d:\n%s", code, out)
	}
	// A deviation four times the mean over 10⁵ requests draws a prompt
	// past the model's context: the pass is the context, 131072 tokens.
	_, errOut, code = runCLI(append(base, "--prompt", "lognormal:500:2000", "--requests", "100000")...)
	if code == 0 || !strings.Contains(errOut, "a pass of the longest prompt, 131072 tokens") || !strings.Contains(errOut, "--ubatch N") {
		t.Errorf("lognormal:500:2000 × 10⁵: exit %d, want a refusal naming the pass and --ubatch:\n%s", code, errOut)
	}
	// A KV pool of 1000 tokens cuts the prompts drawn up to 1442 tokens
	// to 999 (a request holds 1000): the note said the run sends 1442.
	out, _, code = runCLI(append(base, "--prompt", "uniform:100:1500", "--requests", "40", "--kv-tokens", "1000")...)
	if code != 0 || !strings.Contains(out, "the longest prompt the run draws, 1442 tokens") || !strings.Contains(out, "no prompt sent is longer than 999") {
		t.Errorf("--kv-tokens 1000: exit %d, want a note of the draw and of the cut:\n%s", code, out)
	}
	// A chunk asked for is no prompt pass: no note.
	out, _, code = runCLI(append(base, "--prompt", "lognormal:500:300", "--ubatch", "512")...)
	if code != 0 || strings.Contains(out, "prefills each prompt in one pass") {
		t.Errorf("--ubatch 512: exit %d, or a prompt-pass note:\n%s", code, out)
	}
}
