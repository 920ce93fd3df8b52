// Package hardware describes what a device can do: its memory (capacity,
// the share a model may use, datasheet and measured bandwidth), its compute
// engines with dense peak rates per arithmetic precision, their power
// draw, and the efficiency factors and fixed overheads that turn peaks into
// expected speeds.
//
// Peaks are dense, never 2:4-sparse; bandwidths are decimal bytes per
// second as vendors quote them; capacities are bytes. Every figure carries
// the source it came from. Efficiencies and overheads an engine does not
// state follow one device-independent rule (DefaultTuning), so that no
// device is tuned to published measurements of that device; users
// calibrate from their own runs.
//
// The package never prints.
package hardware
