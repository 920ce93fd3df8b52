//go:build race

package main

// raceDetector is true in a -race build, whose memory and speed are not
// roofline's.
const raceDetector = true
