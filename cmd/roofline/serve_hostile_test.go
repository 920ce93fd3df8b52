package main

import (
	"strings"
	"testing"
)

// TestServeHostileFlags: every bad value of a serve flag (zero where 0
// would stand for the default, negative, NaN, infinite, huge, an unknown
// name) is refused with a message naming the flag and a hint, exit 2,
// never a panic nor an answer. --rate 1e-300 answered every latency 0 s
// (its arrivals 10³⁰⁰ s apart, beyond what a float64 clock resolves a
// step at); --ubatch, --max-tokens and --pass-tokens 0 were taken as the
// default in silence; a --link of 10³⁹ B/s or 1 B/s was priced.
func TestServeHostileFlags(t *testing.T) {
	base := []string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--requests", "20"}
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--rate", []string{"--rate", "0"}},
		{"--rate", []string{"--rate", "-1"}},
		{"--rate", []string{"--rate", "NaN"}},
		{"--rate", []string{"--rate", "Inf"}},
		{"--rate", []string{"--rate", "1e300"}},
		// 20 requests at 10⁻³⁰⁰/s span 2·10³⁰¹ s; at 10⁻⁷/s, 2·10⁸ s: both
		// beyond 10⁸ s.
		{"--rate", []string{"--rate", "1e-300"}},
		{"--rate", []string{"--rate", "1e-7"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "0"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "-5"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "NaN"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "1e30"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "exponential:500"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "zipf:10:2"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "lognormal:NaN:2"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "uniform:10:5"}},
		{"--prompt", []string{"--rate", "1", "--prompt", "normal:500:-1"}},
		{"--output-tokens", []string{"--rate", "1", "--output-tokens", "0"}},
		{"--requests", []string{"--rate", "1", "--requests", "-1"}},
		{"--requests", []string{"--rate", "1", "--requests", "99999999999"}},
		{"--cv", []string{"--arrival", "gamma", "--rate", "1", "--cv", "0"}},
		{"--cv", []string{"--arrival", "gamma", "--rate", "1", "--cv", "NaN"}},
		{"--users", []string{"--arrival", "closed", "--users", "0"}},
		{"--think", []string{"--arrival", "closed", "--think", "-1s"}},
		{"--think", []string{"--arrival", "closed", "--think", "1e9s"}},
		{"--arrival", []string{"--arrival", "bursty", "--rate", "1"}},
		{"--seed", []string{"--rate", "1", "--seed", "-1"}},
		{"--ttft", []string{"--rate", "1", "--ttft", "0"}},
		{"--tpot", []string{"--rate", "1", "--tpot", "NaN"}},
		{"--search-runs", []string{"--rate", "1", "--max-rate", "--search-runs", "0"}},
		{"--search-runs", []string{"--rate", "1", "--max-rate", "--search-runs", "100000"}},
		{"--memory-share", []string{"--rate", "1", "--memory-share", "2"}},
		{"--memory-share", []string{"--rate", "1", "--memory-share", "NaN"}},
		{"--kv-tokens", []string{"--rate", "1", "--kv-tokens", "-1"}},
		{"--kv-tokens", []string{"--rate", "1", "--kv-tokens", "1e12"}},
		{"--ubatch", []string{"--rate", "1", "--ubatch", "0"}},
		{"--max-tokens", []string{"--rate", "1", "--max-tokens", "0"}},
		{"--pass-tokens", []string{"--rate", "1", "--pass-tokens", "0"}},
		{"--max-seqs", []string{"--rate", "1", "--max-seqs", "0"}},
		{"--block-size", []string{"--rate", "1", "--block-size", "0"}},
		{"--shared-prefix", []string{"--rate", "1", "--shared-prefix", "-1"}},
		{"--front-end", []string{"--rate", "1", "--front-end", "NaN,1ms,1ms"}},
		{"--policy", []string{"--rate", "1", "--policy", "lifo"}},
		{"--link", []string{"--runtime", "vllm", "--rate", "1", "--devices", "2", "--tp", "2", "--link", "1e30GB/s"}},
		{"--link", []string{"--runtime", "vllm", "--rate", "1", "--devices", "2", "--tp", "2", "--link", "1e-9GB/s"}},
		{"--link-latency", []string{"--runtime", "vllm", "--rate", "1", "--devices", "2", "--tp", "2", "--link", "10GB/s", "--link-latency", "1e6s"}},
		// No --link at all: the message spoke of 'a named link' and gave
		// no rate to pair the latency with.
		{"--link 10GB/s --link-latency", []string{"--runtime", "vllm", "--rate", "1", "--devices", "2", "--tp", "2", "--link-latency", "1us"}},
	} {
		out, errOut, code := runCLI(append(append([]string{}, base...), c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.flag) || !strings.Contains(errOut, "hint:") || strings.Contains(errOut, "panic") {
			t.Errorf("%v: exit %d, want 2 with a message naming %s and a hint, nothing on stdout:\n%s%s", c.args, code, c.flag, out, errOut)
		}
	}
}
