// Package runtimes describes inference runtimes — llama.cpp, vLLM, MLC,
// RKLLM, TensorRT-LLM, MLX — as roofline prices them: which weight and KV
// formats each runs and on which engines, the layout rules that make the
// same model cost differently under each (sliding windows and their cache,
// the MLA cache, a quantized head, a separate embedding table, embeddings
// kept in host memory), the precision its matrix products run at, whether
// it batches sequences continuously, its memory overhead, and its
// efficiency per kind of engine, fitted to published measurements.
//
// Choose is the one rule that turns what a user gave (a model, a device,
// maybe a runtime, an engine, a format) into a runtime, an engine and
// formats, with the reason in words.
//
// Runtimes are read from TOML profiles (package profiles); every rule
// cites its source. The package never prints.
package runtimes
