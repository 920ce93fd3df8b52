// Package plots builds roofline's figures with gonum/plot. Builders take
// numbers the command computed with sim and the shared cost model, and
// return a Figure; they never compute a prediction and never write. Render
// encodes a Figure as PNG, SVG or PDF, and Save writes it atomically.
//
// Text survives every format: a PDF embeds its font as a Unicode subset
// (η, ·, ×, Σ, µ and → copy and search as themselves) and is dated by
// SOURCE_DATE_EPOCH or a fixed date, so the same figure gives the same
// bytes; an SVG names Liberation Serif with metric-compatible fallbacks.
//
// A Figure's legend is drawn in its own band below the panels, so it can
// never cover data however the curves fall.
package plots
