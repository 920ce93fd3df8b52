package app

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/compare"
	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// Runs are measured runs read from files, with what was skipped.
type Runs struct {
	Runs []measured.Run
	// Warnings are bad rows and runs the files exclude, in file order.
	Warnings []string
}

// ReadRuns reads measured-run files ("-" is Stdin): bad rows and runs a
// file excludes become warnings; a file with nothing usable is an error.
func (env *Env) ReadRuns(files []string) (*Runs, error) {
	out := &Runs{}
	for _, f := range files {
		var data []byte
		var err error
		name := f
		if f == "-" {
			name = "stdin"
			data, err = env.ReadStdin("the argument -", limits.MeasuredBytes, "measured runs")
		} else {
			data, err = safeio.ReadFile(f, limits.MeasuredBytes, "a measured-run file")
		}
		if err != nil {
			return out, err
		}
		res, err := measured.Read(name, data)
		if res != nil {
			out.Warnings = append(out.Warnings, res.Warnings...)
			for _, b := range res.Bad {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%v (row skipped)", b))
			}
			if res.MoreBad > 0 {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %d more bad rows skipped", name, res.MoreBad))
			}
		}
		if err != nil {
			return out, err
		}
		for _, r := range res.Runs {
			if r.Exclude != "" {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s: excluded by the file: %s", r.Source(), r.Exclude))
				continue
			}
			out.Runs = append(out.Runs, r)
		}
	}
	return out, nil
}

// CompareRequest is measured runs to put beside their predictions; the
// options fix what the files do not say.
type CompareRequest struct {
	Files   []string
	Options compare.Options
	// PerFile, when set, replaces Files: each file with what it does not
	// say, over Options (the device of each of several files).
	PerFile []MeasuredFile
}

// MeasuredFile is a file of measured runs and what it does not say: above
// all its device, when a figure draws several or a report reads files of
// several (a llama-bench file names none).
type MeasuredFile struct {
	File                                          string
	Hardware, Engine, Runtime, Model, Weights, KV string
}

// ParseMeasured reads a --measured argument: FILE, or FILE@DEVICE for a
// file that does not name its device. A path that exists is a file
// whatever it holds, so a file name with an @ still reads.
func ParseMeasured(arg string) MeasuredFile {
	if _, err := os.Stat(arg); err == nil || arg == "-" {
		return MeasuredFile{File: arg}
	}
	if i := strings.LastIndex(arg, "@"); i > 0 && i < len(arg)-1 {
		return MeasuredFile{File: arg[:i], Hardware: arg[i+1:]}
	}
	return MeasuredFile{File: arg}
}

// options are o with what m says over it.
func (m MeasuredFile) options(o compare.Options) compare.Options {
	for _, f := range []struct {
		dst *string
		v   string
	}{{&o.Hardware, m.Hardware}, {&o.Engine, m.Engine}, {&o.Runtime, m.Runtime}, {&o.Model, m.Model}, {&o.Weights, m.Weights}, {&o.KV, m.KV}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	return o
}

// Comparison is each run beside its prediction.
type Comparison struct {
	Rows    []compare.Row
	Summary compare.Summary
	// Warnings are the files' bad rows and the runs that could not be
	// resolved (printed to stderr whatever the format).
	Warnings []string
	// Skipped are why the runs that could not be resolved were skipped,
	// as typed errors (a path where a file may only name a model).
	Skipped []error
}

// MismatchError is compare --strict refusing runs priced as a model
// whose parameter count is not the one they record.
type MismatchError struct{ Mismatches []string }

func (e *MismatchError) Error() string {
	return strings.Join(e.Mismatches, "; ") + " (--strict)"
}

// Compare reads the files and prices every run. When no run can be
// compared the error comes with the answer's warnings.
func (env *Env) Compare(req CompareRequest) (*Comparison, error) {
	if len(req.PerFile) > 0 {
		out := &Comparison{}
		var rows []compare.Row
		for _, m := range req.PerFile {
			r, err := env.compareFile(m, req.Options, out, nil)
			if err != nil {
				return out, err
			}
			rows = append(rows, r...)
		}
		if len(rows) == 0 {
			return out, fmt.Errorf("no run could be compared (%d skipped; see the warnings above)", len(out.Skipped))
		}
		out.Rows, out.Summary = rows, compare.Summarize(rows)
		return out, nil
	}
	runs, err := env.ReadRuns(req.Files)
	out := &Comparison{Warnings: runs.Warnings}
	if err != nil {
		return out, err
	}
	return env.compareRuns(runs.Runs, req.Options, out)
}

// compareFile reads one measured file and prices its runs with what the
// file does not say over o; keep, when set, chooses the runs to price
// (and may warn into out). Its warnings and skipped runs go into out.
func (env *Env) compareFile(m MeasuredFile, o compare.Options, out *Comparison, keep func([]measured.Run, compare.Options) []measured.Run) ([]compare.Row, error) {
	runs, err := env.ReadRuns([]string{m.File})
	out.Warnings = append(out.Warnings, runs.Warnings...)
	if err != nil {
		return nil, err
	}
	o = m.options(o)
	list := runs.Runs
	if keep != nil {
		list = keep(list, o)
	}
	rows, errs := compare.New(env.Catalog, o).Evaluate(list)
	out.Skipped = append(out.Skipped, errs...)
	for _, e := range errs {
		out.Warnings = append(out.Warnings, e.Error())
	}
	return rows, nil
}

func (env *Env) compareRuns(runs []measured.Run, o compare.Options, out *Comparison) (*Comparison, error) {
	rows, errs := compare.New(env.Catalog, o).Evaluate(runs)
	for _, e := range errs {
		out.Warnings = append(out.Warnings, e.Error())
	}
	out.Skipped = errs
	var mismatches []string
	for _, r := range rows {
		if r.Mismatch != "" && !slices.Contains(mismatches, r.Mismatch) {
			mismatches = append(mismatches, r.Mismatch)
		}
	}
	if len(mismatches) > 0 && o.Strict {
		return out, &MismatchError{mismatches}
	}
	out.Warnings = append(out.Warnings, mismatches...)
	for _, r := range rows {
		if r.Elsewhere != "" && !slices.Contains(out.Warnings, r.Elsewhere) {
			out.Warnings = append(out.Warnings, r.Elsewhere)
		}
	}
	if len(rows) == 0 {
		return out, fmt.Errorf("no run could be compared (%d skipped; see the warnings above)", len(errs))
	}
	out.Rows, out.Summary = rows, compare.Summarize(rows)
	return out, nil
}
