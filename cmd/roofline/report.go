package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/cmd/roofline/internal/plan"
	"github.com/roofline/roofline/cmd/roofline/internal/study"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/safeio"
)

const reportUsage = `roofline report STUDY.toml -o DIR [--force] [--quiet]

Turns a study file (docs/studies.md: devices, models, formats, a workload,
targets, measured runs, plots) into a report to share: DIR/report.md,
DIR/report.html (one self-contained file with inline SVG figures),
DIR/plots/*.png and *.svg, and DIR/results.csv and DIR/results.json with
every number in the report. The report opens with the answer (which
configurations meet the targets, the headline numbers, how close measured
runs came to the limit), then tables per device and model, the figures, the
assumptions with the source of every profile number, and the commands that
reproduce each part.

Every part is computed by the same commands a user would run (plan,
predict, compare, plot), in process; the report lists them. An existing DIR
is replaced only with --force; the report is built in a temporary directory
and moved into place, so a failure leaves nothing half-written.

Examples:
  roofline report docs/examples/voice-assistant.toml -o voice-report
  roofline report docs/examples/llama-bench-rtx4080.toml -o bench-report --force`

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "turn a study file into a Markdown and HTML report with tables, plots and data",
		UsageText: reportUsage,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the report into `DIR` (required)"},
			&cli.BoolFlag{Name: "force", Usage: "replace DIR if it exists"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		},
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageErr("give one study file: roofline report STUDY.toml -o DIR")
	}
	out := c.String("out")
	if out == "" {
		return usageErr("-o DIR is required")
	}
	if fi, err := os.Stat(out); err == nil {
		if !fi.IsDir() {
			return usageErr("-o %s: exists and is not a directory", out)
		}
		if !c.Bool("force") {
			return usageErr("-o %s: the directory exists; --force replaces it", out)
		}
	}
	file := c.Args().First()
	st, err := study.Load(file)
	if err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	if err := checkStudy(st, cat); err != nil {
		return err
	}
	cat, err = studyCatalog(c, st)
	if err != nil {
		return err
	}
	progress := io.Discard
	if !c.Bool("quiet") && isTerminal(c.App.ErrWriter) {
		progress = c.App.ErrWriter
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), "."+filepath.Base(filepath.Clean(out))+".partial-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	b := &reportBuilder{c: c, st: st, cat: cat, dir: tmp, progress: progress,
		command: "roofline report " + shellQuote(file) + " -o " + shellQuote(out)}
	rep, err := b.build()
	if err != nil {
		return err
	}
	if err := writeReportFiles(tmp, rep); err != nil {
		return err
	}
	if err := replaceDir(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "wrote %s (report.md, report.html, results.csv, results.json, %d figures)\n", out, len(rep.Figures))
	return nil
}

// checkStudy checks every name and file a study refers to, reporting all
// problems at once with file:line.
func checkStudy(st *study.Study, base *profiles.Catalog) error {
	src, err := safeio.ReadFile(st.File, limits.ProfileBytes, "a study file")
	if err != nil {
		return err
	}
	var errs []error
	bad := func(item, format string, a ...any) {
		errs = append(errs, &profiles.FileError{File: st.File, Line: study.LineOfValue(src, item), Msg: fmt.Sprintf(format, a...)})
	}
	cat := base.Clone()
	for i, dir := range st.Profiles {
		if err := cat.AddDir(dir); err != nil {
			bad(st.ProfilesRaw[i], "profiles %q: %v", st.ProfilesRaw[i], err)
		}
	}
	for _, d := range st.Devices {
		if err := cat.CheckDataName("hardware", d, st.File); err != nil {
			bad(d, "devices: %v", err)
		} else if _, err := cat.DevicesMatching(d); err != nil {
			bad(d, "devices: %v", err)
		}
	}
	for _, m := range st.Models {
		if err := cat.CheckDataName("model", m, st.File); err != nil {
			bad(m, "models: %v", err)
		} else if _, err := plan.ResolveModels(cat, []string{m}); err != nil {
			bad(m, "models: %v", err)
		}
	}
	for _, w := range st.Weights {
		if _, err := lookupWeights(w); err != nil && w != "all" {
			bad(w, "weights: %v", err)
		}
	}
	for _, k := range st.KV {
		if _, err := lookupKV(k); err != nil {
			bad(k, "kv: %v", err)
		}
	}
	for _, rt := range st.Runtimes {
		if _, err := cat.Runtime(rt); err != nil {
			bad(rt, "runtimes: %v", err)
		}
	}
	for _, e := range st.Engines {
		found := false
		for _, d := range cat.Devices() {
			if _, err := d.Engine(e); err == nil {
				found = true
			}
		}
		if !found {
			bad(e, "engines: no device has an engine %q (engines are gpu, cpu, npu)", e)
		}
	}
	for _, ctx := range st.Workload.Contexts {
		if v, err := parseTokens(ctx); err != nil || v < 1 {
			bad(ctx, "workload.contexts: %q is not a token count such as 4096 or 4k", ctx)
		}
	}
	for _, f := range []struct{ key, v string }{{"ttft", st.Targets.TTFT}, {"tpot", st.Targets.TPOT}} {
		if f.v != "" {
			if _, err := parseDurationValue(f.v); err != nil {
				bad(f.v, "targets.%s: %v", f.key, err)
			}
		}
	}
	for _, m := range st.Measured {
		if _, err := os.Stat(m.File); err != nil {
			bad(m.Raw, "measured file %q: not found (paths are relative to the study)", m.Raw)
		}
		if m.Hardware != "" {
			if _, err := cat.DeviceFromData(m.Hardware, st.File); err != nil {
				bad(m.Hardware, "measured hardware: %v", err)
			}
		}
		if m.Model != "" {
			if _, err := cat.ModelFromData(m.Model, st.File); err != nil {
				bad(m.Model, "measured model: %v", err)
			}
		}
		if m.Runtime != "" {
			if _, err := cat.Runtime(m.Runtime); err != nil {
				bad(m.Runtime, "measured runtime: %v", err)
			}
		}
	}
	return errors.Join(errs...)
}

// studyCatalog is the catalog with the study's profile directories.
func studyCatalog(c *cli.Context, st *study.Study) (*profiles.Catalog, error) {
	cat, err := catalog(c)
	if err != nil {
		return nil, err
	}
	cat = cat.Clone()
	for _, d := range st.Profiles {
		if err := cat.AddDir(d); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// replaceDir moves the finished report into place, replacing out.
func replaceDir(tmp, out string) error {
	if _, err := os.Stat(out); err == nil {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Rename(old, out) // put the old report back
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, out)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"*?$&|;<>()[]{}\\`!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// reportData is everything the report shows; results.json is this.
type reportData struct {
	Version     string            `json:"roofline_version"`
	Command     string            `json:"command"`
	StudyFile   string            `json:"study_file"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Workload    study.Workload    `json:"workload"`
	Targets     study.Targets     `json:"targets"`
	Plan        reportPlan        `json:"plan"`
	Predictions []reportPredict   `json:"predictions"`
	Measured    []reportMeasured  `json:"measured"`
	Figures     []reportFigure    `json:"figures"`
	Devices     []reportDevice    `json:"devices"`
	Models      []reportModel     `json:"models"`
	Notes       []string          `json:"notes"`
	Commands    map[string]string `json:"-"`
}

type reportPlan struct {
	Command  string            `json:"command"`
	Feasible int               `json:"feasible_configurations"`
	Total    int               `json:"configurations"`
	Configs  []planConfigJSON  `json:"configs"`
	Best     []planConfigJSON  `json:"best"`
	Limits   []planLimitsJSON  `json:"limits"`
	Skipped  []string          `json:"skipped"`
	Pareto   []json.RawMessage `json:"pareto"`
}

type reportPredict struct {
	Command string      `json:"command"`
	Result  predictJSON `json:"result"`
}

type reportMeasured struct {
	File     string           `json:"file"`
	Command  string           `json:"command"`
	Runs     []comparisonJSON `json:"runs"`
	Warnings []string         `json:"warnings"`
}

type reportFigure struct {
	Kind    string `json:"kind"`
	Caption string `json:"caption"`
	Command string `json:"command"`
	PNG     string `json:"png"`
	SVG     string `json:"svg"`
	svg     []byte
}

type reportDevice struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	PowerMode   string            `json:"power_mode,omitempty"`
	Memory      float64           `json:"memory_bytes"`
	Usable      float64           `json:"usable_bytes"`
	Bandwidth   float64           `json:"bandwidth_bytes_per_s"`
	Measured    float64           `json:"measured_bandwidth_bytes_per_s,omitempty"`
	Engines     []reportEngine    `json:"engines"`
	Sources     map[string]string `json:"sources"`
	References  []string          `json:"references"`
	File        string            `json:"file"`
}

type reportEngine struct {
	Name   string             `json:"name"`
	Peaks  map[string]float64 `json:"peak_ops_per_s"`
	PowerW float64            `json:"power_w,omitempty"`
}

type reportModel struct {
	Name       string  `json:"name"`
	Params     float64 `json:"params_total"`
	Active     float64 `json:"params_active"`
	Layers     int     `json:"layers"`
	KVPerToken float64 `json:"kv_bytes_per_token_f16"`
	MaxContext int     `json:"max_context"`
	Source     string  `json:"source"`
}

type reportBuilder struct {
	c        *cli.Context
	st       *study.Study
	cat      *profiles.Catalog
	dir      string
	progress io.Writer
	command  string
	steps    int
	planArgs []string // the plan command, for its figure
}

// invoke runs one roofline command in process; display is the command as
// the report shows it (paths as written in the study).
func (b *reportBuilder) invoke(display string, args ...string) (stdout, stderr []byte, err error) {
	b.steps++
	fmt.Fprintf(b.progress, "roofline: [%d] %s\n", b.steps, display)
	var out, errb bytes.Buffer
	var global []string
	for _, p := range b.c.StringSlice("profiles") {
		global = append(global, "--profiles", p)
	}
	for _, p := range b.st.Profiles {
		global = append(global, "--profiles", p)
	}
	if b.cat.DataPaths() {
		global = append(global, "--allow-paths")
	}
	err = run(append(append([]string{"roofline"}, global...), args...), &out, &errb)
	if err != nil && !errors.As(err, new(nothingFeasible)) {
		return nil, nil, fmt.Errorf("%s: %w", display, err)
	}
	return out.Bytes(), errb.Bytes(), nil
}

// display is a command as the report shows it, with the study's profile
// directories as written.
func (b *reportBuilder) display(args []string) string {
	var q []string
	for _, p := range b.st.ProfilesRaw {
		q = append(q, "--profiles", shellQuote(p))
	}
	if b.cat.DataPaths() {
		q = append(q, "--allow-paths")
	}
	for _, a := range args {
		q = append(q, shellQuote(safeio.RedactText(a)))
	}
	return "roofline " + strings.Join(q, " ")
}

// listFlag appends --name a,b,c when the list is not empty.
func listFlag(args []string, name string, l []string) []string {
	if len(l) == 0 {
		return args
	}
	return append(args, "--"+name, strings.Join(l, ","))
}

func (b *reportBuilder) build() (*reportData, error) {
	st := b.st
	r := &reportData{Version: appVersion(), Command: b.command, StudyFile: st.File, Title: st.Title, Description: st.Description,
		Workload: st.Workload, Targets: st.Targets, Notes: []string{}, Commands: map[string]string{}}
	w := st.Workload

	// 1. The plan: every configuration against the targets.
	pa := []string{"plan"}
	pa = listFlag(pa, "hardware", st.Devices)
	pa = listFlag(pa, "engine", st.Engines)
	pa = listFlag(pa, "runtime", st.Runtimes)
	pa = listFlag(pa, "model", st.Models)
	pa = listFlag(pa, "weights", st.Weights)
	pa = listFlag(pa, "kv", st.KV)
	pa = append(pa, "--prompt", strconv.Itoa(w.Prompt), "--output", strconv.Itoa(w.Output), "--ubatch", strconv.Itoa(w.UBatch))
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
	b.planArgs = pa
	out, _, err := b.invoke(b.display(pa), append(pa, "--format", "json")...)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &r.Plan); err != nil {
		return nil, fmt.Errorf("plan output: %w", err)
	}
	r.Plan.Command = b.display(pa)
	r.Plan.Total = len(r.Plan.Configs)
	for _, cf := range r.Plan.Configs {
		if cf.Feasible {
			r.Plan.Feasible++
		}
	}
	for _, s := range r.Plan.Skipped {
		r.Notes = append(r.Notes, "skipped: "+s)
	}

	// 2. Predictions at the workload, one per device engine, model and format.
	for _, g := range r.Plan.Limits {
		a := []string{"predict", "--model", g.Model, "--hardware", g.Hardware, "--engine", g.Engine, "--runtime", g.Runtime, "--weights", g.Weights, "--kv", g.KV,
			"--prompt", strconv.Itoa(w.Prompt), "--output", strconv.Itoa(w.Output), "--batch", strconv.Itoa(w.Batch),
			"--depth", strconv.Itoa(w.Depth), "--ubatch", strconv.Itoa(w.UBatch)}
		out, _, err := b.invoke(b.display(a), append(a, "--format", "json")...)
		if err != nil {
			return nil, err
		}
		var p reportPredict
		if err := json.Unmarshal(out, &p.Result); err != nil {
			return nil, fmt.Errorf("predict output: %w", err)
		}
		p.Command = b.display(a)
		r.Predictions = append(r.Predictions, p)
	}

	// 3. Measured runs.
	var measuredFiles []string
	for _, m := range st.Measured {
		a := []string{"compare", m.File}
		shown := []string{"compare", m.Raw}
		for _, f := range [][2]string{{"hardware", m.Hardware}, {"engine", m.Engine}, {"runtime", m.Runtime}, {"model", m.Model}, {"weights", m.Weights}, {"kv", m.KV}} {
			if f[1] != "" {
				a, shown = append(a, "--"+f[0], f[1]), append(shown, "--"+f[0], f[1])
			}
		}
		out, errOut, err := b.invoke(b.display(shown), append(a, "--format", "json")...)
		if err != nil {
			return nil, err
		}
		rm := reportMeasured{File: m.Raw, Command: b.display(shown), Warnings: warningLines(errOut, m.File, m.Raw)}
		if err := json.Unmarshal(out, &rm.Runs); err != nil {
			return nil, fmt.Errorf("compare output: %w", err)
		}
		for i := range rm.Runs {
			rm.Runs[i].Source = strings.Replace(rm.Runs[i].Source, m.File, m.Raw, 1)
		}
		r.Measured = append(r.Measured, rm)
		measuredFiles = append(measuredFiles, m.File)
	}

	// 4. Figures.
	if err := b.figures(r, measuredFiles); err != nil {
		return nil, err
	}

	// 5. Assumptions: every device and model used, with sources.
	seenD, seenM := map[string]bool{}, map[string]bool{}
	for _, g := range r.Plan.Limits {
		if !seenD[g.Hardware] {
			seenD[g.Hardware] = true
			d, err := b.cat.Device(g.Hardware)
			if err != nil {
				return nil, err
			}
			r.Devices = append(r.Devices, newReportDevice(d))
		}
		if !seenM[g.Model] {
			seenM[g.Model] = true
			m, err := b.cat.Model(g.Model)
			if err != nil {
				return nil, err
			}
			r.Models = append(r.Models, newReportModel(m))
		}
	}
	return r, nil
}

// warningLines keeps a command's warnings, with the study's path.
func warningLines(stderr []byte, file, raw string) []string {
	out := []string{}
	for _, l := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		if l = strings.TrimPrefix(strings.TrimSpace(l), "roofline: warning: "); l != "" {
			out = append(out, strings.ReplaceAll(l, file, raw))
		}
	}
	return out
}

func newReportDevice(d *hardware.Device) reportDevice {
	rd := reportDevice{Name: d.Name, Description: d.Description, PowerMode: d.PowerMode, Memory: d.Memory, Usable: d.Usable,
		Bandwidth: d.Bandwidth, Measured: d.MeasuredBandwidth, Sources: d.Sources, References: d.References, File: d.File}
	for _, e := range d.Engines {
		re := reportEngine{Name: e.Name, Peaks: map[string]float64{}, PowerW: e.Power}
		for p, v := range e.Peaks {
			re.Peaks[string(p)] = v
		}
		rd.Engines = append(rd.Engines, re)
	}
	if rd.References == nil {
		rd.References = []string{}
	}
	return rd
}

func newReportModel(s *model.Spec) reportModel {
	rm := reportModel{Name: s.Name, Layers: s.Layers, MaxContext: s.MaxContext, Source: s.Source}
	if c, err := model.BuildNamed(s, "f16", "f16", model.Layout{}); err == nil {
		rm.Params, rm.Active, rm.KVPerToken = c.ParamsTotal, c.ParamsActive, c.KVBytesPerToken()
	}
	return rm
}

// figures renders the study's plots (or a default set) through `roofline
// plot`, as SVG and PNG.
func (b *reportBuilder) figures(r *reportData, measured []string) error {
	st := b.st
	kinds := st.Plots
	explicit := len(kinds) > 0
	// The plan's rows: every engine of every device, model and format.
	groups := map[string]bool{}
	for _, g := range r.Plan.Limits {
		groups[g.Hardware+"|"+g.Engine+"|"+g.Model+"|"+g.Weights] = true
	}
	// The series of the other figures: one engine per device unless listed.
	devs, err := plan.ResolveDevices(b.cat, st.Devices)
	if err != nil {
		return err
	}
	series := len(devs) * len(st.Models) * max(1, len(st.Weights)) * max(1, len(st.Engines))
	if !explicit {
		kinds = []string{"plan", "tpot-context", "ttft-prompt", "memory"}
		if len(measured) > 0 {
			kinds = append(kinds, "roofline", "compare")
		}
	}
	if err := os.MkdirAll(filepath.Join(b.dir, "plots"), 0o755); err != nil {
		return err
	}
	w := st.Workload
	for _, k := range kinds {
		var a []string
		caption := ""
		seriesArgs := func() []string {
			s := []string{"plot", k}
			s = listFlag(s, "model", st.Models)
			s = listFlag(s, "hardware", st.Devices)
			s = listFlag(s, "engine", st.Engines)
			s = listFlag(s, "weights", st.Weights)
			if len(st.KV) > 0 {
				s = append(s, "--kv", st.KV[0])
			}
			s = append(s, "--prompt", strconv.Itoa(w.Prompt), "--output", strconv.Itoa(w.Output), "--batch", strconv.Itoa(w.Batch),
				"--depth", strconv.Itoa(w.Depth), "--ubatch", strconv.Itoa(w.UBatch))
			if st.Targets.TTFT != "" {
				s = append(s, "--ttft", st.Targets.TTFT)
			}
			if st.Targets.TPOT != "" {
				s = append(s, "--tpot", st.Targets.TPOT)
			}
			return s
		}
		switch k {
		case "plan":
			a = append([]string{"plot"}, b.planArgs...)
			caption = "Every configuration of the plan: meets every target, or the first constraint it fails."
			if !explicit && len(groups) > 40 {
				r.Notes = append(r.Notes, fmt.Sprintf("no plan figure: %d device × model × format rows (at most 40 are legible); list fewer in the study or set plots", len(groups)))
				continue
			}
		case "compare":
			if len(measured) == 0 {
				return fmt.Errorf("%s: plots asks for compare but the study has no [[measured]] files", st.File)
			}
			a = []string{"plot", "compare"}
			for _, m := range st.Measured {
				a = append(a, m.Raw)
				if m.Hardware != "" {
					a = append(a, "--hardware", m.Hardware)
				}
			}
			caption = "Predicted against measured tokens/s (y = x, ±20 %), and the MBU of each decode run."
		case "chat":
			a = []string{"plot", "chat", "--model", st.Models[0], "--hardware", st.Devices[0]}
			if len(st.Weights) > 0 {
				a = append(a, "--weights", st.Weights[0])
			}
			caption = "Per-turn TTFT and cumulative latency of a conversation under each history strategy."
		default:
			a = seriesArgs()
			if k == "roofline" || k == "tpot-context" || k == "ttft-prompt" {
				for _, m := range st.Measured {
					a = append(a, "--measured", m.Raw)
				}
			}
			if k == "tpot-context" && len(w.Contexts) > 0 {
				// Up to the longest context the study plans for.
				longest := 0
				for _, c := range w.Contexts {
					v, _ := parseTokens(c)
					longest = max(longest, v)
				}
				a = append(a, "--max-context", strconv.Itoa(max(longest, 256)))
			}
			caption = map[string]string{
				"tpot-context": "Time per output token as the KV cache grows; solid expected, dashed the physical limit; × where memory runs out.",
				"ttft-prompt":  "Time to first token against prompt length; △ where prefill turns compute-bound.",
				"batch":        "Aggregate throughput and per-sequence TPOT against batch size.",
				"memory":       "Weights, KV cache, activations and runtime overhead against usable memory.",
				"roofline":     "Attainable FLOP/s against arithmetic intensity, with predicted and measured operating points.",
				"concurrency":  "Per-chat TPOT and TTFT against concurrent chats.",
			}[k]
			if !explicit && series > 8 {
				r.Notes = append(r.Notes, fmt.Sprintf("no %s figure: %d series (devices × models × formats), at most 8 are legible; set plots in the study with fewer", k, series))
				continue
			}
		}
		if k == "chat" && (len(st.Models) > 1 || len(st.Devices) > 1) {
			r.Notes = append(r.Notes, "the chat figure shows the first model on the first device")
		}
		shown := b.display(a)
		exec := b.execPaths(a)
		fig := reportFigure{Kind: k, Caption: caption, Command: shown + " -o " + k + ".png", PNG: "plots/" + k + ".png", SVG: "plots/" + k + ".svg"}
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(b.dir, "plots", k+ext)
			if _, _, err := b.invoke(shown+" -o "+k+ext, append(exec, "-o", path)...); err != nil {
				if !explicit {
					r.Notes = append(r.Notes, fmt.Sprintf("no %s figure: %v", k, err))
					fig.Kind = ""
					break
				}
				return err
			}
		}
		if fig.Kind == "" {
			continue
		}
		svg, err := os.ReadFile(filepath.Join(b.dir, "plots", k+".svg"))
		if err != nil {
			return err
		}
		fig.svg = svg
		r.Figures = append(r.Figures, fig)
	}
	return nil
}

// execPaths maps the study's relative measured paths to real ones.
func (b *reportBuilder) execPaths(a []string) []string {
	out := append([]string(nil), a...)
	for i, s := range out {
		for _, m := range b.st.Measured {
			if s == m.Raw {
				out[i] = m.File
			}
		}
	}
	return out
}
