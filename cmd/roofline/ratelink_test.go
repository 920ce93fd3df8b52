package main

import (
	"strings"
	"testing"
)

// A --link given as a rate is a network where the devices meet only over
// one (TestOneMachineRuntimes has the named networks): two RK3588 CPUs
// over 0.125 GB/s were priced as in-process pipeline stages (llama.cpp's
// -sm layer), where two boards reach each other only by RPC; gpt-fast's
// --tp 16 over 50 GB/s between HGX boards lost the link from its hint;
// MLC's tensor shards between two Jetsons were priced where its profile
// keeps them in one machine. Between two cards of one computer a rate is
// their bus and stays priced. Each refusal's hint names the runtimes of
// the catalog whose profile says multi_node = true and that run there.
func TestRateLinkBetweenMachines(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"two RK3588 boards: RPC", []string{"--hardware", "rk3588", "--engine", "cpu", "--runtime", "llama.cpp", "--weights", "q4_0", "--devices", "2", "--link", "0.125GB/s"}, 0,
			[]string{"llama.cpp RPC: 2 boards of rk3588"}},
		{"gpt-fast over two HGX boards", []string{"--hardware", "h100-sxm", "--runtime", "gpt-fast", "--tp", "16", "--link", "50GB/s"}, 2,
			[]string{"--tp 16: h100-sxm's GPUs sit on boards of 8", "(--runtime tensorrt-llm --link 50GB/s, or --runtime vllm --link 50GB/s)"}},
		{"llama.cpp over two HGX boards", []string{"--hardware", "h100-sxm", "--runtime", "llama.cpp", "--weights", "q4_k_m", "--devices", "16", "--link", "50GB/s"}, 2,
			[]string{"--devices 16 over 50GB/s", "RPC servers over the link given (50.0 GB/s)", "--runtime vllm --link 50GB/s)"}},
		{"MLC between two Jetsons", []string{"--hardware", "jetson-orin-nano-8gb", "--runtime", "mlc", "--devices", "2", "--tp", "2", "--link", "0.125GB/s"}, 2,
			[]string{"--link 0.125GB/s: the link given (125 MB/s) joins machines", "mlc splits a model over the GPUs of one machine", "hint: run on one jetson-orin-nano-8gb (leave --devices and --tp out)"}},
		{"MLC between two HGX boards", []string{"--hardware", "h100-sxm", "--runtime", "mlc", "--devices", "16", "--link", "ib-ndr"}, 2,
			[]string{"mlc splits a model over the GPUs of one machine", "--runtime vllm --link ib-ndr)"}},
		{"gpt-fast on two cards of one computer", []string{"--hardware", "rtx-4090", "--runtime", "gpt-fast", "--devices", "2", "--tp", "2", "--link", "12GB/s"}, 0,
			[]string{"tensor parallel 2 × pipeline parallel 1"}},
	} {
		out, errOut, code := runCLI(append([]string{"predict", "--model", "llama-3.1-8b"}, c.args...)...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%s: lacks %q:\n%s%s", c.name, w, out, errOut)
			}
		}
	}
}
