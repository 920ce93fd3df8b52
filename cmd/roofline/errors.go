package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/safeio"
)

// Exit codes, documented in docs/cli.md.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitInfeasible = 3
	exitInternal   = 70
)

// usageError is a mistake in how roofline was called: exit code 2.
type usageError struct {
	msg  string
	hint string // advice before the usage's ("": none)
}

func (e *usageError) Error() string { return e.msg }

// usageErr is a usage error; error arguments name their flags.
func usageErr(format string, a ...any) error {
	for i, x := range a {
		if err, ok := x.(error); ok {
			a[i] = flagged(err)
		}
	}
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// answered is an error after which the answer stands: it is printed, and
// the exit status (3) says what it found.
type answered interface {
	error
	answered()
}

// nothingSure is plan's exit status 3: no configuration meets the
// targets at their confidence; meeting counts those that meet them as
// predicted.
type nothingSure struct {
	meeting    int
	confidence float64
	// rate is plan --rate's target when configurations are sure to meet
	// the latency targets but none sustains it.
	rate float64
	// devices is the largest device count a plan searched (0: one), and
	// leftOut says the larger counts it left out (render.CountsSearched).
	devices int
	leftOut string
}

func (e nothingSure) Error() string {
	return e.finding() + e.leftOut + " (exit status 3)"
}

// finding is what the plan found, without the counts it left out.
func (e nothingSure) finding() string {
	if e.devices > 1 && e.rate <= 0 {
		return fmt.Sprintf("no configuration on up to %d devices is %.0f%% sure to meet the targets", e.devices, 100*e.confidence)
	}
	if e.rate > 0 {
		return fmt.Sprintf("no configuration searched sustains %g requests/s within the latency targets", e.rate)
	}
	if e.meeting == 0 {
		return "no configuration meets the targets"
	}
	verb := "meet them"
	if e.meeting == 1 {
		verb = "meets them"
	}
	return fmt.Sprintf("no configuration is %.0f%% sure to meet the targets; %d %s as predicted, with the slow end of the interval missing",
		100*e.confidence, e.meeting, verb)
}
func (nothingSure) answered() {}

// doesNotFit is predict's and chat's exit status 3: the model does not
// fit, which the answer says first.
type doesNotFit struct{ model, device string }

func (e doesNotFit) Error() string {
	return fmt.Sprintf("%s does not fit on %s (exit status 3)", e.model, e.device)
}
func (doesNotFit) answered() {}

// allowPathsHint is what a data file that names a path is told.
const allowPathsHint = "--allow-paths lets measured-run files and studies name models and devices by path or URL (relative to the file), which roofline then opens or fetches"

// hintPaths prints allowPathsHint once when a run was skipped for naming a
// path or URL.
func hintPaths(w io.Writer, skipped []error) {
	for _, err := range skipped {
		if errors.As(err, new(*profiles.PathNotAllowedError)) {
			fmt.Fprintf(w, "roofline: hint: %s\n", allowPathsHint)
			return
		}
	}
}

// exitCode prints err following the message rule (lower case, prefixed
// "roofline:", hints on their own line) and returns the exit code. What
// it quotes of the input is clipped (safeio.Clip): a 100,000-digit number
// or a megabyte HTTP status line is told by its ends and its length.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	io.WriteString(stderr, safeio.Clip(fmt.Sprintf("roofline: %v\n", err)))
	if errors.As(err, new(answered)) {
		return exitInfeasible
	}
	// An error that knows what to try instead (an unknown name's nearest
	// names, the devices that would hold a model) says it on its own line.
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		io.WriteString(stderr, safeio.Clip(fmt.Sprintf("roofline: hint: %s\n", h.Hint())))
	}
	if errors.As(err, new(*profiles.PathNotAllowedError)) {
		fmt.Fprintf(stderr, "roofline: hint: %s\n", allowPathsHint)
	}
	// An input file that is not there is the file system's answer, not a
	// mistake in the call: exit 1 whichever command or flag named it
	// (compare FILE, --trace FILE, --runtime FILE, show runtime FILE).
	if errors.As(err, new(*safeio.MissingError)) {
		return exitError
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.hint != "" {
			io.WriteString(stderr, safeio.Clip(fmt.Sprintf("roofline: hint: %s\n", ue.hint)))
		}
		fmt.Fprintln(stderr, "roofline: hint: 'roofline help' or 'roofline COMMAND --help' shows the usage")
		return exitUsage
	}
	if badRuntime(err) {
		return exitUsage
	}
	return exitError
}

// badRuntime reports a runtime or engine that cannot run what the other
// flags ask: a runtime that does not run the format on the engine, an
// engine the device does not have, --weights against an Ollama tag's
// quantization. Like a bad flag value, it exits 2. An unknown runtime, or
// a runtime profile that breaks its schema, is an unknown name or a bad
// profile as a model's or a device's is: exit 1.
func badRuntime(err error) bool {
	return errors.As(err, new(*runtimes.UnsupportedError)) || errors.As(err, new(*runtimes.NoRuntimeError)) ||
		errors.As(err, new(*hardware.NoEngineError)) || errors.As(err, new(*runtimes.WeightsConflictError))
}
