package render

import (
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/safeio"
)

// commands writes the command lines that reproduce each part of a report,
// run from the study's directory: text for people to copy, never run.
type commands struct {
	st         *study.Study
	allowPaths bool
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"*?$&|;<>()[]{}\\`!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// line is a command with the study's profile directories as written.
func (c commands) line(args []string) string {
	var q []string
	for _, p := range c.st.ProfilesRaw {
		q = append(q, "--profiles", ShellQuote(p))
	}
	if c.allowPaths {
		q = append(q, "--allow-paths")
	}
	for _, a := range args {
		q = append(q, ShellQuote(safeio.RedactText(a)))
	}
	return "roofline " + strings.Join(q, " ")
}

// list appends --name a,b,c when the list is not empty.
func list(args []string, name string, l []string) []string {
	if len(l) == 0 {
		return args
	}
	return append(args, "--"+name, strings.Join(l, ","))
}

func (c commands) planArgs() []string {
	st, w := c.st, c.st.Workload
	pa := []string{"plan"}
	pa = list(pa, "hardware", st.DevicesRaw)
	pa = list(pa, "engine", st.Engines)
	pa = list(pa, "runtime", st.Runtimes)
	pa = list(pa, "model", st.ModelsRaw)
	pa = list(pa, "weights", st.Weights)
	pa = list(pa, "kv", st.KV)
	pa = append(append(pa, "--prompt", strconv.Itoa(w.Prompt), "--output-tokens", strconv.Itoa(w.Output)), ubatchArgs(w.UBatch)...)
	if len(w.Contexts) > 0 {
		pa = append(pa, "--context", strings.Join(w.Contexts, ","))
	} else {
		pa = append(pa, "--context", strconv.Itoa(w.Depth+w.Prompt+w.Output))
	}
	batches := []string{strconv.Itoa(w.Batch)}
	if len(w.Batches) > 0 {
		batches = batches[:0]
		for _, x := range w.Batches {
			batches = append(batches, strconv.Itoa(x))
		}
	}
	pa = append(pa, "--batch", strings.Join(batches, ","))
	t := st.Targets
	if t.TTFT != "" {
		pa = append(pa, "--ttft", t.TTFT)
	}
	if t.TPOT != "" {
		pa = append(pa, "--tpot", t.TPOT)
	}
	if t.MinThroughput > 0 {
		pa = append(pa, "--min-throughput", strconv.FormatFloat(t.MinThroughput, 'g', -1, 64))
	}
	if t.Headroom != "" {
		pa = append(pa, "--headroom", t.Headroom)
	}
	return pa
}

func (c commands) plan() string { return c.line(c.planArgs()) }

func (c commands) predict(req app.PredictRequest) string {
	s, w := req.Setup, req.Workload
	return c.line(append([]string{"predict", "--model", c.st.Written(s.Model), "--hardware", c.st.Written(s.Hardware), "--engine", s.Engine, "--runtime", s.Runtime, "--weights", s.Weights, "--kv", s.KV,
		"--prompt", strconv.Itoa(w.Prompt), "--output-tokens", strconv.Itoa(w.Output), "--batch", strconv.Itoa(w.Batch),
		"--depth", strconv.Itoa(w.Depth)}, append(ubatchArgs(w.UBatch), opsArgs(req)...)...))
}

// ubatchArgs is --ubatch N for a workload that gives N, nothing for one
// that leaves the passes to the runtime.
func ubatchArgs(u int) []string {
	if u <= 0 {
		return nil
	}
	return []string{"--ubatch", strconv.Itoa(u)}
}

// opsArgs is --ops when the request asks for the operators.
func opsArgs(req app.PredictRequest) []string {
	if req.Ops == nil {
		return nil
	}
	return []string{"--ops"}
}

func (c commands) compare(m study.Measured) string {
	a := []string{"compare", m.Raw}
	for _, f := range [][2]string{{"hardware", m.HardwareRaw}, {"engine", m.Engine}, {"runtime", m.Runtime}, {"model", m.ModelRaw}, {"weights", m.Weights}, {"kv", m.KV}} {
		if f[1] != "" {
			a = append(a, "--"+f[0], f[1])
		}
	}
	return c.line(a)
}

// measuredArg is a measured file as plot takes it: FILE@DEVICE when the
// study gives its device.
func measuredArg(m study.Measured) string {
	if m.HardwareRaw != "" {
		return m.Raw + "@" + m.HardwareRaw
	}
	return m.Raw
}

// figure is the plot command of a figure kind, without its -o.
func (c commands) figure(k *app.FigureKind, req *app.FigureRequest) string {
	st, w := c.st, c.st.Workload
	var a []string
	switch k.Inputs {
	case app.PlanInputs:
		a = append([]string{"plot"}, c.planArgs()...)
	case app.RunsInputs:
		a = []string{"plot", k.Name}
		for _, m := range st.Measured {
			a = append(a, measuredArg(m))
		}
	case app.SetupInputs:
		a = []string{"plot", k.Name, "--model", st.ModelsRaw[0], "--hardware", st.DevicesRaw[0]}
		if len(st.Weights) > 0 {
			a = append(a, "--weights", st.Weights[0])
		}
		if st.Draft != "" && k.Name == "speculative" {
			a = append(a, "--draft", st.DraftRaw)
		}
	default:
		a = []string{"plot", k.Name}
		a = list(a, "model", st.ModelsRaw)
		a = list(a, "hardware", st.DevicesRaw)
		a = list(a, "engine", st.Engines)
		a = list(a, "weights", st.Weights)
		if len(st.KV) > 0 {
			a = append(a, "--kv", st.KV[0])
		}
		a = append(append(a, "--prompt", strconv.Itoa(w.Prompt), "--output-tokens", strconv.Itoa(w.Output), "--batch", strconv.Itoa(w.Batch),
			"--depth", strconv.Itoa(w.Depth)), ubatchArgs(w.UBatch)...)
		if st.Targets.TTFT != "" {
			a = append(a, "--ttft", st.Targets.TTFT)
		}
		if st.Targets.TPOT != "" {
			a = append(a, "--tpot", st.Targets.TPOT)
		}
		if k.Name == "roofline" || k.Name == "tpot-context" || k.Name == "ttft-prompt" {
			for _, m := range st.Measured {
				a = append(a, "--measured", measuredArg(m))
			}
		}
		if req.Series.Facet != "" {
			a = append(a, "--facet", req.Series.Facet)
		}
	}
	// The params the figure was drawn with, where they differ from the
	// kind's defaults.
	for _, p := range k.Params {
		v, ok := req.Params[p.Name]
		switch {
		case !ok || v == p.Default:
		case p.Bool:
			a = append(a, "--"+p.Name+"="+v) // --log-y true would be an argument
		default:
			a = append(a, "--"+p.Name, v)
		}
	}
	return c.line(a)
}
