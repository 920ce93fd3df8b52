// Package limits holds every ceiling roofline puts on what an input may
// ask of it: the counts a model file states (layers, heads, experts,
// window patterns, norms, vocabulary, tensor dimensions), the size of the
// files and HTTP bodies it reads, the time and bytes a remote model header
// may take, and token counts. A reader checks a count against its ceiling
// before the count sizes anything, so a corrupt or hostile file of a few
// bytes cannot exhaust memory or time.
//
// The ceilings sit far above every published model and real file (the
// comments say by how much) and are listed in docs/profiles.md; a test
// keeps that list and this package in step.
package limits
