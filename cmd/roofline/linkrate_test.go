package main

import (
	"strings"
	"testing"
)

// TestRateLinkNamedByItsRate: a --link given as a rate is spoken of by its
// rate and latency, as a built-in link is by its name; it was "custom"
// ("activations over custom").
func TestRateLinkNamedByItsRate(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--pp", "2", "--link", "25GB/s", "--link-latency", "20us")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(out, "activations over a 25.0 GB/s link, 20.0 µs a transfer") || strings.Contains(out, "custom") {
		t.Errorf("the link is not named by its rate:\n%s", out)
	}
}
