package app

import (
	"fmt"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/calibrate"
)

// CalibrateRequest is measured runs to fit a device engine to.
type CalibrateRequest struct {
	Files   []string
	Options calibrate.Options
	// Name is the calibrated profile's name; "" is DEVICE-calibrated.
	Name string
	// Output is the file the profile is written to; "" writes none.
	// Force lets it replace an existing file.
	Output string
	Force  bool
}

// Calibration is a fitted engine and the profile that carries it.
type Calibration struct {
	*calibrate.Result
	Name   string
	Output string // the file written, "" when none
	// Warnings are the files' bad rows and the runs left out.
	Warnings []string
}

// Calibrate fits the engine the runs were measured on and, with an
// output file, writes the calibrated hardware profile through
// profiles.EncodeDevice once it reads back.
func (env *Env) Calibrate(req CalibrateRequest) (*Calibration, error) {
	runs, err := env.ReadRuns(req.Files)
	out := &Calibration{Warnings: runs.Warnings, Output: req.Output}
	if err != nil {
		return out, err
	}
	res, err := calibrate.Calibrate(env.Catalog, runs.Runs, req.Options)
	if err != nil {
		if res != nil {
			for _, p := range res.Points {
				if p.Reason != "" {
					out.Warnings = append(out.Warnings, fmt.Sprintf("%s: left out: %s", p.Run.Source(), p.Reason))
				}
			}
		}
		return out, fmt.Errorf("calibrate: %w", err)
	}
	out.Result, out.Name = res, req.Name
	if out.Name == "" {
		out.Name = res.Device.Name + "-calibrated"
	}
	if req.Output != "" {
		prof := res.Profile(out.Name)
		// The profile must read back before it is written.
		if _, err := env.Catalog.Clone().AddFileBytes(req.Output, prof); err != nil {
			return out, fmt.Errorf("calibrated profile does not validate: %w", err)
		}
		if err := atomicfile.Write(req.Output, prof, req.Force); err != nil {
			return out, err
		}
	}
	return out, nil
}
