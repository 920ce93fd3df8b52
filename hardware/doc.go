// Package hardware describes what a device can do: its memory (capacity,
// the share a model may use, datasheet and measured bandwidth), its compute
// engines with dense peak rates per arithmetic precision and their power
// draw, and the shape of the efficiency that turns peaks into expected
// speeds (Efficiency).
//
// Peaks are dense, never 2:4-sparse; bandwidths are decimal bytes per
// second as vendors quote them; capacities are bytes. Every figure carries
// the source it came from. Efficiencies belong to runtimes, fitted per
// runtime and kind of engine to published measurements (package runtimes),
// never set per device by hand; an engine carries its own only when a user
// calibrated it from their runs (Calibration).
//
// The package never prints.
package hardware
