package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
	"github.com/roofline/roofline/sim"
)

// fieldFlags names the flag behind each field sim and app validate.
var fieldFlags = map[string]string{
	"Prompt": "--prompt", "Output": "--output-tokens", "Batch": "--batch", "Depth": "--depth", "UBatch": "--ubatch", "OpsAt": "--ops-at",
	"Turns": "--turns", "System": "--system-tokens", "User": "--user-tokens", "Reply": "--reply-tokens",
	"K": "--draft-tokens", "Acceptance": "--acceptance", "BandwidthEfficiency": "--bw-efficiency",
	"ComputeEfficiency": "--compute-efficiency", "RuntimeOverhead": "--overhead", "BatteryWh": "--battery-wh",
	"Power": "--power", "IdlePower": "--idle-power", "DutyCycle": "--duty-cycle",
	"GPULayers": "--gpu-layers", "CPUMoE": "--cpu-moe", "NCPUMoE": "--n-cpu-moe", "Host": "--host", "Devices": "--devices",
	"TP": "--tp", "PP": "--pp", "EP": "--ep", "Link": "--link", "Threads": "--threads", "Clocks": "--clocks",
	"MaxContext": "--max-context",
}

// serveFlags names the flag behind each workload field serve validates.
var serveFlags = map[string]string{
	"Prompt": "--prompt", "Output": "--output-tokens", "Rate": "--rate", "CV": "--cv", "Users": "--users", "Think": "--think",
	"Requests": "--requests", "SharedPrefix": "--shared-prefix", "UBatch": "--ubatch", "KVTokens": "--kv-tokens", "MemoryShare": "--memory-share", "Runs": "--search-runs",
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
			ue := &usageError{msg: fmt.Sprintf("%s %s", f, fe.Msg)}
			// What to try instead (a board's clocks), on its own line.
			if h := (interface{ Hint() string })(nil); errors.As(err, &h) {
				ue.hint = h.Hint()
			}
			return ue
		}
		return err
	}
	var we *serve.WorkloadError
	if errors.As(err, &we) {
		if f, ok := serveFlags[we.Field]; ok {
			return &usageError{msg: fmt.Sprintf("%s %s", f, we.Msg)}
		}
		return &usageError{msg: we.Error()}
	}
	var se *runtimes.SchedulerError
	if errors.As(err, &se) {
		return &usageError{msg: fmt.Sprintf("--%s %s", strings.ReplaceAll(se.Knob, "_", "-"), se.Msg)}
	}
	if errors.Is(err, serve.ErrNoTargets) {
		return &usageError{msg: "--max-rate needs --ttft or --tpot: " + err.Error()}
	}
	var ie *resolve.InputError
	if errors.As(err, &ie) {
		flag := ie.Input
		for i := 0; i+1 < len(as); i += 2 {
			if as[i] == flag {
				flag = as[i+1]
			}
		}
		if onlyTwice(ie.Err) {
			return &usageError{msg: fmt.Sprintf("--%s %v", flag, ie.Err)}
		}
		return fmt.Errorf("--%s: %w", flag, withFlags(ie.Err))
	}
	var re *app.RequestError
	if errors.As(err, &re) {
		if f, ok := fieldFlags[re.Input]; ok {
			return &usageError{msg: f + " " + re.Msg, hint: re.Hint}
		}
		if re.Input != "" {
			return &usageError{msg: "--" + re.Input + " " + re.Msg, hint: re.Hint}
		}
		return &usageError{msg: re.Msg, hint: re.Hint}
	}
	var tl *plan.TooLargeError
	if errors.As(err, &tl) {
		return &usageError{msg: "--context, --batch: " + tl.Error()}
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

// onlyTwice reports a list's errors that are all names given twice (a
// *plan.TwiceError): a usage error like listFlag's, where an unknown
// name among them is not.
func onlyTwice(err error) bool {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if _, ok := e.(*plan.TwiceError); !ok {
			return false
		}
	}
	return true
}
