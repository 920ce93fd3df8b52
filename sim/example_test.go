package sim_test

import (
	"fmt"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// A voice assistant's request on a Jetson: a 1000-token prompt, 200
// tokens out. The efficiency is fixed here so that the example reads the
// same however the runtime's class is refitted; predict uses the class.
func ExampleSetup_Predict() {
	cat, err := profiles.Builtin()
	if err != nil {
		panic(err)
	}
	spec, _ := cat.Model("llama-3.2-3b")
	dev, _ := cat.Device("jetson-orin-nano-super-8gb")
	engine, _ := dev.Engine("gpu")
	rt, _ := cat.Runtime("llama.cpp")
	cost, err := model.BuildNamed(spec, "q4_k_m", "f16", rt.LayoutFor(spec, "q4_k_m"))
	if err != nil {
		panic(err)
	}
	s, err := sim.NewSetup(cost, dev, engine, rt, sim.DefaultOptions)
	if err != nil {
		panic(err)
	}
	s = s.WithEfficiency(hardware.Efficiency{Bandwidth: 0.7, ComputeMax: 0.4, Attention: 0.4, StepOverhead: 100e-6, PassOverhead: 100e-6})
	r, err := s.Predict(sim.Workload{Prompt: 1000, Output: 200, Batch: 1, UBatch: 512})
	if err != nil {
		panic(err)
	}
	fmt.Printf("TTFT %s (%s prefill, limit %s)\n", units.FormatDuration(r.TTFT), r.Prefill.Bound, units.FormatDuration(r.TTFTBound))
	fmt.Printf("TPOT %s (%s decode, limit %s)\n", units.FormatDuration(r.TPOT), r.Decode.Bound, units.FormatDuration(r.TPOTBound))
	fmt.Printf("E2E %s\n", units.FormatDuration(r.E2E))
	fmt.Printf("weights %s, KV cache %s\n", units.FormatBytes(r.Memory.Weights, units.Binary), units.FormatBytes(r.Memory.KV, units.Binary))
	// Each decode step streams the 2.0 GB of weights (tied embeddings: all
	// of them) and the KV cache, 114688 B × ~1100 tokens = 0.13 GB:
	// 2.13 GB / 102 GB/s = 21 ms at the limit, / (0.7 × 102 GB/s) + 0.1 ms
	// = 30 ms expected.

	// Output:
	// TTFT 873 ms (compute prefill, limit 174 ms)
	// TPOT 31.0 ms (memory decode, limit 21.0 ms)
	// E2E 7.03 s
	// weights 1.87 GiB, KV cache 131 MiB
}
