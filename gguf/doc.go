// Package gguf reads the header of a GGUF file — its metadata and tensor
// table, never the weights — from a local file, a set of split files, or an
// HTTP(S) URL with range requests, and turns it into a model.Spec and the
// storage type of every tensor, so that weight and streamed bytes are exact
// for that file.
//
// The reader is written here rather than taken from gguf-parser-go: roofline
// needs only the header, with hard limits on what a lying or corrupt header
// may make it allocate, and that library brings a dozen dependencies (its
// own HTTP client, json-iterator, x/tools) for estimators roofline already
// has.
package gguf
