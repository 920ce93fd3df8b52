package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
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
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usageErr is a usage error; error arguments name their flags.
func usageErr(format string, a ...any) error {
	for i, x := range a {
		if err, ok := x.(error); ok {
			a[i] = flagged(err)
		}
	}
	return &usageError{fmt.Sprintf(format, a...)}
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
}

func (e nothingSure) Error() string {
	if e.meeting == 0 {
		return "no configuration meets the targets (exit status 3)"
	}
	verb := "meet them"
	if e.meeting == 1 {
		verb = "meets them"
	}
	return fmt.Sprintf("no configuration is %.0f%% sure to meet the targets; %d %s as predicted, with the slow end of the interval missing (exit status 3)",
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

// fieldFlags names the flag behind each field sim and app validate.
var fieldFlags = map[string]string{
	"Prompt": "--prompt", "Output": "--output-tokens", "Batch": "--batch", "Depth": "--depth", "UBatch": "--ubatch",
	"Turns": "--turns", "System": "--system-tokens", "User": "--user-tokens", "Reply": "--reply-tokens",
	"K": "--draft-tokens", "Acceptance": "--acceptance", "BandwidthEfficiency": "--bw-efficiency",
	"ComputeEfficiency": "--compute-efficiency", "RuntimeOverhead": "--overhead", "BatteryWh": "--battery-wh",
	"Power": "--power", "IdlePower": "--idle-power", "DutyCycle": "--duty-cycle",
	"GPULayers": "--gpu-layers", "CPUMoE": "--cpu-moe", "NCPUMoE": "--n-cpu-moe", "Host": "--host", "Devices": "--devices",
	"TP": "--tp", "PP": "--pp", "EP": "--ep", "Link": "--link",
}

// serveFlags names the flag behind each workload field serve validates.
var serveFlags = map[string]string{
	"Prompt": "--prompt", "Output": "--output-tokens", "Rate": "--rate", "CV": "--cv", "Users": "--users", "Think": "--think",
	"Requests": "--requests", "SharedPrefix": "--shared-prefix", "UBatch": "--ubatch", "KVTokens": "--kv-tokens", "Runs": "--search-runs",
	"Arrival": "--arrival",
}

// flagged names the flag an error is about: a *sim.FieldError by its
// field, a *resolve.InputError by its input (renamed by as: the model of a
// draft is --draft).
func flagged(err error, as ...string) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, flagged(e, as...))
		}
		return errors.Join(errs...)
	}
	var de *app.DraftError
	if errors.As(err, &de) && len(as) == 0 {
		inner := flagged(de.Err, "model", "draft", "weights", "draft-weights")
		var ie *resolve.InputError
		if errors.As(de.Err, &ie) {
			return inner
		}
		return fmt.Errorf("--draft: %w", inner)
	}
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		if f, ok := fieldFlags[fe.Field]; ok {
			return &usageError{fmt.Sprintf("%s %s", f, fe.Msg)}
		}
		return err
	}
	var we *serve.WorkloadError
	if errors.As(err, &we) {
		if f, ok := serveFlags[we.Field]; ok {
			return &usageError{fmt.Sprintf("%s %s", f, we.Msg)}
		}
		return &usageError{we.Error()}
	}
	var se *runtimes.SchedulerError
	if errors.As(err, &se) {
		return &usageError{fmt.Sprintf("--%s %s", strings.ReplaceAll(se.Knob, "_", "-"), se.Msg)}
	}
	if errors.Is(err, serve.ErrNoTargets) {
		return &usageError{"--max-rate needs --ttft or --tpot: " + err.Error()}
	}
	var ie *resolve.InputError
	if errors.As(err, &ie) {
		flag := ie.Input
		for i := 0; i+1 < len(as); i += 2 {
			if as[i] == flag {
				flag = as[i+1]
			}
		}
		return fmt.Errorf("--%s: %w", flag, withFlags(ie.Err))
	}
	var re *app.RequestError
	if errors.As(err, &re) {
		if f, ok := fieldFlags[re.Input]; ok {
			return &usageError{f + " " + re.Msg}
		}
		if re.Input != "" {
			return &usageError{"--" + re.Input + " " + re.Msg}
		}
		return &usageError{re.Msg}
	}
	var pe *app.ProfilesError
	if errors.As(err, &pe) {
		if slices.Contains(app.List(os.Getenv("ROOFLINE_PROFILES")), pe.Dir) {
			return fmt.Errorf("--profiles (ROOFLINE_PROFILES) %w", pe)
		}
		return fmt.Errorf("--profiles %w", pe)
	}
	return err
}

// flagWorded is an error of a lower layer worded with the flags that
// choose its inputs; it unwraps to the error.
type flagWorded struct {
	msg string
	err error
}

func (e *flagWorded) Error() string { return e.msg }
func (e *flagWorded) Unwrap() error { return e.err }

// withFlags words an error that names inputs to choose again (a runtime
// that does not run an engine: "choose another engine or runtime") with
// their flags.
func withFlags(err error) error {
	if ue, ok := err.(*runtimes.UnsupportedError); ok && len(ue.Choose) > 0 {
		return &flagWorded{ue.Message(func(input string) string { return "--" + input }), ue}
	}
	return err
}

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
// "roofline:", hints on their own line) and returns the exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "roofline: %v\n", err)
	if errors.As(err, new(answered)) {
		return exitInfeasible
	}
	var nf *profiles.NotFoundError
	if errors.As(err, &nf) {
		fmt.Fprintf(stderr, "roofline: hint: %s\n", nf.Hint())
	}
	if errors.As(err, new(*profiles.PathNotAllowedError)) {
		fmt.Fprintf(stderr, "roofline: hint: %s\n", allowPathsHint)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "roofline: hint: 'roofline help' or 'roofline COMMAND --help' shows the usage")
		return exitUsage
	}
	if badRuntime(err, nf) {
		return exitUsage
	}
	return exitError
}

// badRuntime reports an error in the runtime or engine a user gave: an
// unknown runtime, a runtime profile that cannot be read, a runtime that
// does not run the format on the engine, an engine the device does not
// have. Like a bad flag value, it exits 2.
func badRuntime(err error, nf *profiles.NotFoundError) bool {
	return (nf != nil && nf.Kind == "runtime") || errors.As(err, new(*profiles.RuntimeFileError)) ||
		errors.As(err, new(*runtimes.UnsupportedError)) || errors.As(err, new(*runtimes.NoRuntimeError)) ||
		errors.As(err, new(*hardware.NoEngineError)) || errors.As(err, new(*runtimes.WeightsConflictError))
}
