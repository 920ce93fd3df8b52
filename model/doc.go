// Package model says what a model is and what it costs: its shape (Spec),
// its tensor inventory, the bytes of every tensor in a weight format, the
// bytes a pass streams, the KV cache and the FLOPs. It is the one byte and
// FLOP account of roofline: predictions, measured-run MBU and MFU, the
// planner, figures and reports all read it, and it never prints.
//
// Units are SI base units: bytes (B), floating-point operations (FLOP),
// tokens. Bandwidth and time belong to packages hardware and sim.
//
// Notation (config.json names): H hidden_size, L num_hidden_layers, n_q
// num_attention_heads, n_kv num_key_value_heads, d_h head_dim, I
// intermediate_size, V vocab_size; N and k routed experts and experts per
// token; T tokens in a pass; S keys a query attends.
//
// The account, as Build computes it (docs/method.md §1–5 with sources):
//
//  1. Inventory: every weight tensor with its shape, named as llama.cpp
//     names GGUF tensors (Spec.Tensors). params_total = Σ elements;
//     params_active = total − (N−k)/N of the routed-expert elements.
//  2. Weight bytes: each tensor's storage type comes from the weight
//     format's recipe; bytes = rows · ⌈cols / block⌉ · block bytes (q4_0:
//     18 B per 32 weights, 4.5 bits per weight).
//  3. Streamed bytes of a pass over T tokens: the non-routed tensors but
//     the embedding, one routed expert × distinct(T) with
//     distinct(T) = N·(1 − ((N−k)/N)^T), min(T, V) rows of an untied
//     embedding, and the head when logits are computed (StreamedBytes).
//  4. KV cache per token and layer: 2·n_kv·d_h elements (GQA), or
//     r_kv + d_rope (MLA); a sliding layer holds min(S, W) tokens
//     (KVBytes, KVCacheBytes).
//  5. FLOPs: a product [T, in] × [in, out] costs 2·T·in·out; per token
//     linear = 2 × active matrix weights, logits = 2·V·H, attention(S) =
//     Σ_layers 4·n_q·d_h·min(S, W_layer); a prefill of n tokens after D
//     cached is causal: Σ_{i=1..n} attention(D + i) (DecodeFLOPs,
//     PrefillFLOPs).
//
// Operators split the account: per layer kind, the projections,
// attention's products, the feed-forward and expert products, the norms,
// the embedding lookup and the head, each a Cost over its own tensors
// (Cost.Operators), so that they add up to the model.
//
// Checks in the tests: Llama-3.1-8B has 8,030,261,248 parameters and an
// f16 KV cache of 131,072 B per token; Llama-3.1-8B Q4_K_M weighs
// 4.575 GiB against the published 4.58.
package model
