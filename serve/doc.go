// Package serve simulates a serving runtime under load: requests arrive
// (Poisson, constant, bursty gamma, a closed loop of users, or a trace's
// timestamps), wait in a queue, and share the engine step by step under
// the runtime's scheduler (runtimes.Scheduler: vLLM's continuous batching
// with chunked prefill, paged KV blocks, preemption and prefix caching;
// llama.cpp's server slots; TensorRT-LLM's in-flight batching; RKLLM's
// one request at a time; TensorRT Edge-LLM's static batches).
//
// Every step is priced by sim.StepPricer, the very code a prediction
// sums: at a vanishing arrival rate a request's TTFT, TPOT and E2E are
// Predict's, and a closed batch of B equal requests is Predict at batch B.
// A tensor-parallel group's steps are one device's shard plus the links'
// (sim.Split.Serving); a model offloaded to the host runs each step
// through its stages in turn (sim.Split.StepPricer), as Split.Predict
// prices a pass. A pipeline (PP stages, RPC boards) is priced stage by
// stage by the same pricer, each stage busy with a pass for its layers
// and its own hop, and a step's passes overlap on the stages as the
// runtime overlaps them (sim.StepPricer.Overlap): llama.cpp's ubatches
// one after another through the stages (sim.Through), vLLM's micro-
// batches in flight, one per stage (sim.Round), and a lone request's
// prompt chunks one after another through them (sim.Through).
// A step costs O(1) whatever it holds: the decoding requests enter as
// sums the engine keeps as they join, advance and leave (an event heap
// marks when each finishes or crosses a sliding window), so a million
// requests simulate in about a second.
//
// The answers are each request's TTFT, TPOT, E2E and queue delay, their
// percentiles, the inter-token latencies, throughput and goodput, the
// queue and the KV cache over time, and, by search, the largest arrival
// rate whose p99 TTFT and TPOT meet targets. The package never prints.
package serve
