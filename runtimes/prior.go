package runtimes

import "github.com/roofline/roofline/hardware"

// Prior is the efficiency assumed for a runtime on a kind of engine with no
// published measurements, and its deliberately wide interval. The central
// values are the rule roofline used before fitting (docs/method.md §6):
//
//   - bandwidth 0.70 for GPUs and NPUs, 0.60 for CPUs: MBU of 55–60 %
//     (TensorRT-LLM, batch 1, A100/H100, Databricks 2023) and ≈ 70 % (MLC on
//     an RTX 4090, llm-perf-bench) for accelerator stacks, ≈ 67 % for
//     llama.cpp on a DDR5 desktop CPU (llama.cpp issue #34), rounded down
//     for CPUs whose cores rarely saturate the memory controller;
//   - matrix products 0.40 of peak at large sizes (prefill MFU ≈ 48 % for
//     MPT-7B on an A100, Databricks), half of that at 64 rows; attention
//     0.25;
//   - 126 µs per step or pass and 32 µs per layer: the fixed terms
//     inference-sim (BLIS) fitted to vLLM step times
//     (docs/guide/latency-models.md);
//   - kernels that dequantize their weights reach 0.9 of a float
//     product's matrix efficiency (the unpacking and scales cost issue
//     slots);
//   - no cap on the bandwidth per compute unit: nothing measured says
//     where this runtime's kernels would meet one.
//
// The interval, a factor of two either way for decode and three for
// prefill, is a statement of ignorance, not a fit.
func Prior(k hardware.Kind) Class {
	e := hardware.Efficiency{Bandwidth: 0.70, ComputeMax: 0.40, HalfRows: 64, Attention: 0.25,
		StepOverhead: 126e-6, PassOverhead: 126e-6, LayerOverhead: 32e-6, Dequant: 0.9}
	if k == hardware.CPU {
		e.Bandwidth = 0.60
	}
	return Class{Efficiency: e, Decode: Spread{Low: 0.5, High: 2}, Prefill: Spread{Low: 1.0 / 3, High: 3},
		Basis: "no measurements of this runtime on " + string(k) + " engines: a wide prior (docs/method.md §6)"}
}
