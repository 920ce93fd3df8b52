// Package hfhub reads model repositories from the Hugging Face Hub — a
// repository's file list, a small file such as config.json — and writes
// what it read into the local Hugging Face cache in the layout
// huggingface_hub uses, so that the next run needs no network.
//
// It follows huggingface_hub's environment: HF_ENDPOINT (a mirror or a
// private hub), HF_TOKEN (sent as a bearer token, never printed, never in
// a message) and HF_HUB_OFFLINE (the cache only). Every request is
// bounded: a deadline over the whole read, a timeout per request, a size
// limit per answer, at most limits.RemoteRedirects redirects, and an
// answer that is a web page where JSON was asked for is refused.
package hfhub
