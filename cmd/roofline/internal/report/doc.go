// Package report renders roofline's results for people (aligned text
// tables, Markdown) and for programs (JSON, CSV with SI base units at full
// precision). It formats; it computes nothing.
package report
