// Package plots builds roofline's figures with gonum/plot. Builders take
// numbers the command computed with sim and the shared cost model, and
// return a Figure; they never compute a prediction and never write. Render
// encodes a Figure as PNG, SVG or PDF, and Save writes it atomically.
//
// A Figure's legend is drawn in its own band below the panels, so it can
// never cover data however the curves fall.
package plots
