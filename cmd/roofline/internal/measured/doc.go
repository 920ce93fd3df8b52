// Package measured reads the result files of real runs — llama-bench (JSON,
// JSONL, CSV, Markdown), llama-batched-bench tables, vLLM serving-benchmark
// JSON, plain per-request files, and roofline's own runs CSV — into one
// shape: a Run is one test, prefill or decode, with its token counts and its
// measured rate. The format is detected from the content.
//
// Bad rows become *SyntaxError values (file:line: reason) and are skipped;
// a file with nothing usable is an error. docs/formats.md states the exact
// semantics of every format.
package measured
