package main

import (
	"strings"
	"testing"
)

// TestStaticRefusalNamesItsCause: --policy static where serve does not
// simulate a static batch names what stands in the way and how to leave it
// out. vLLM on one RTX 4090 was told 'static batches are simulated on one
// device … not with an offload, pipeline stages, boards or a front end'
// (it was one device: the cause was vLLM's front end, which --front-end
// off leaves out); an offload and two pipelined cards were told the same
// list.
func TestStaticRefusalNamesItsCause(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--runtime", "vllm"}, []string{"a front end (vllm's", "--front-end off"}},
		{[]string{"--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--gpu-layers", "30"}, []string{"an offload to the host"}},
		{[]string{"--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--devices", "2"}, []string{"pipeline stages"}},
	} {
		args := append([]string{"serve", "--rate", "1", "--requests", "20", "--policy", "static"}, c.args...)
		out, errOut, code := runCLI(args...)
		if code != 2 || out != "" || strings.Contains(errOut, "panic") {
			t.Errorf("%v: exit %d, want 2 and nothing on stdout:\n%s%s", c.args, code, out, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q does not say %q", c.args, errOut, w)
			}
		}
		if strings.Contains(errOut, "boards or a front end") {
			t.Errorf("%v: %q lists every cause, not the one that stands", c.args, errOut)
		}
	}
}
