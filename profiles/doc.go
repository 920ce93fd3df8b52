// Package profiles holds roofline's built-in catalog of models and devices
// as TOML files embedded in the binary, and reads users' own profiles with
// the same strict decoder.
//
// Decoding is strict: an unknown key, a missing required key, a number
// without a unit or a source, or an impossible value is an error that names
// the file and, where it can be found, the line. docs/profiles.md documents
// every key with its unit.
//
// Model files (profiles/models/*.toml) use the field names of Hugging Face
// config.json (hidden_size, num_key_value_heads, head_dim, …) plus [moe]
// and [mla] tables. Device files (profiles/hardware/*.toml) give each
// figure as { value = "102 GB/s", source = "…" }, one [[engine]] table per
// compute engine with dense peaks per precision, and [[variant]] tables for
// power modes and smaller configurations of the same device.
package profiles
