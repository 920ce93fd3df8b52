package runtimes_test

import (
	"slices"
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// TestSpanMachines: the runtimes a split across machines is priced
// under are those whose profile says multi_node = true and that run on
// the device's engine, whatever the others say or leave out.
func TestSpanMachines(t *testing.T) {
	yes, no := true, false
	gpu := []runtimes.Support{{Kind: hardware.GPU, Families: []string{"nvidia"}}}
	set := runtimes.NewSet(
		&runtimes.Runtime{Name: "spans", MultiNode: &yes, Engines: gpu},
		&runtimes.Runtime{Name: "one-machine", MultiNode: &no, Engines: gpu},
		&runtimes.Runtime{Name: "unstated", Engines: gpu},
		&runtimes.Runtime{Name: "spans-cpu", MultiNode: &yes, Engines: []runtimes.Support{{Kind: hardware.CPU}}},
		&runtimes.Runtime{Name: "also-spans", MultiNode: &yes, Engines: gpu},
	)
	for _, c := range []struct {
		name   string
		family string
		kind   hardware.Kind
		want   []string
	}{
		// Both GPU runtimes that say true, by name; neither the one that
		// says false nor the one that says nothing; not the CPU one.
		{"an NVIDIA GPU", "nvidia", hardware.GPU, []string{"also-spans", "spans"}},
		{"a CPU", "cpu", hardware.CPU, []string{"spans-cpu"}},
		{"a GPU none runs on", "apple", hardware.GPU, nil},
	} {
		d := &hardware.Device{Name: "d", Family: c.family, Engines: []hardware.Engine{{Kind: c.kind}}}
		var got []string
		for _, r := range set.SpanMachines(d, &d.Engines[0]) {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// The catalog: MLC's tensor shards stay in one machine (its profile
	// sources multi_node = false), vLLM and TensorRT-LLM span machines.
	cat := catalog(t)
	for name, want := range map[string]bool{"mlc": false, "vllm": true, "tensorrt-llm": true, "gpt-fast": false, "llama.cpp": false} {
		r, err := cat.Runtimes().Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if r.SpansMachines() != want || r.OneMachine() == want {
			t.Errorf("%s: spans machines %v, one machine %v; want %v", name, r.SpansMachines(), r.OneMachine(), want)
		}
	}
}
