package app

import (
	"testing"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/runtimes"
)

// TestSpanHint: a refusal's hint names the runtimes it is given (the
// catalog's that span machines and run on the device), each with the
// link asked, or says that none spans machines there.
func TestSpanHint(t *testing.T) {
	d := &hardware.Device{Name: "board"}
	a, b := &runtimes.Runtime{Name: "tensorrt-llm"}, &runtimes.Runtime{Name: "vllm"}
	for _, c := range []struct {
		spans []*runtimes.Runtime
		also  string
		want  string
	}{
		{nil, " --link 10gbe", ": no runtime that runs on board spans machines (multi_node = true in none of their profiles)"},
		{[]*runtimes.Runtime{b}, "", ", or price boards with a runtime whose profile spans machines (--runtime vllm)"},
		{[]*runtimes.Runtime{a, b}, " --link 50GB/s", ", or price boards with a runtime whose profile spans machines (--runtime tensorrt-llm --link 50GB/s, or --runtime vllm --link 50GB/s)"},
	} {
		if got := spanHint(c.spans, d, "boards", c.also); got != c.want {
			t.Errorf("%d runtimes: %q, want %q", len(c.spans), got, c.want)
		}
	}
}

// TestBetweenMachines: a link joins machines when it is a network, or a
// rate given between devices that meet only over one: boards of their
// own (no peer link) and NVSwitch boards; between cards of one computer
// a rate is their bus.
func TestBetweenMachines(t *testing.T) {
	rate := &hardware.Link{Name: "custom", Kind: hardware.Custom, Bandwidth: 1e9}
	for _, c := range []struct {
		device string
		link   *hardware.Link
		want   bool
	}{
		{"rtx-4090", rate, false},
		{"h100-sxm", rate, true},
		{"jetson-orin-nano-8gb", rate, true},
		{"rtx-4090", &hardware.Link{Kind: hardware.Ethernet}, true},
		{"rtx-4090", &hardware.Link{Kind: hardware.InfiniBand}, true},
		{"rtx-4090", &hardware.Link{Kind: hardware.PCIe}, false},
		{"rtx-4090", nil, false},
	} {
		env, err := NewEnv()
		if err != nil {
			t.Fatal(err)
		}
		d, err := env.Catalog.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		if got := betweenMachines(d, c.link); got != c.want {
			t.Errorf("%s over %+v: %v, want %v", c.device, c.link, got, c.want)
		}
	}
}
