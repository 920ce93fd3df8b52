package measured

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
)

// Test is the phase a run measured.
type Test string

// The two phases, and a whole request.
const (
	Prefill Test = "prefill"
	Decode  Test = "decode"
	// E2E is a whole request: Prompt tokens prefilled and Gen generated
	// per sequence, TokensPerS the Batch·Gen output tokens over the time
	// from the first prompt token to the last output token (NVIDIA's
	// out_tps = output_seqlen × batch_size / total_latency). It mixes
	// both phases, so it is held against the ideal bound, not fitted.
	E2E Test = "e2e"
)

// Run is one measured test.
//
// A prefill run processed Prompt new tokens per sequence for Batch sequences
// on top of Depth cached tokens. A decode run generated Gen tokens per
// sequence one step at a time, the first step attending Depth+1 keys. An
// e2e run did both: Prompt tokens on top of Depth, then Gen generated, the
// first by the prefill. TokensPerS is aggregate over the batch:
// Batch·Prompt (prefill) or Batch·Gen tokens divided by the test's time.
type Run struct {
	File string
	Line int
	Test Test

	// What was run, as far as the file says.
	Hardware    string  // a hardware name (roofline runs CSV only)
	Engine      string  // an engine name, or a backend mapped to one
	Model       string  // a model name or file name
	ModelType   string  // llama-bench model_type, e.g. "llama 7B Q4_0"
	ModelParams float64 // parameters stated by the file
	ModelBytes  float64 // weight bytes stated by the file
	Weights     string  // weight format, when the file names it
	KV          string  // KV-cache format (llama-bench type_k)
	// Runtime is the runtime profile the format implies: llama-bench and
	// llama-batched-bench are llama.cpp, vLLM's benchmark is vllm; ""
	// when the file does not say (a runs CSV names it in its runtime
	// column, kept in Backend).
	Runtime string
	Backend string
	Build   string
	// FlashAttn is "on", "off", or "" when the file does not say.
	FlashAttn string

	// UBatch is the tokens per prefill pass the run states; 0 when it
	// states none (the runtime's default, sim.Setup.Chunk).
	Prompt, Gen, Depth, Batch, UBatch int

	TokensPerS float64 // measured, aggregate
	StdDevTS   float64 // spread of TokensPerS when the file gives it

	// Exclude, when set, says why the run is reported but not scored.
	Exclude string
	// Note is what the file says of the run; Origin, in roofline's runs
	// CSV, the published source it was transcribed from (its source
	// column), which Cited joins to the note.
	Note   string
	Origin string

	// MaxContext and Clocks are the runtime settings the run states
	// (roofline's runs CSV only; runtimes.Settings): the context its
	// model was converted for, and "pinned" or "default" clocks; zero:
	// not stated, the runtime's reference.
	MaxContext int
	Clocks     string
	// BoardClocks are the clocks the run's board ran at below its
	// profile's maxima (a runs CSV's clocks column, ddr=…,npu=…; the run
	// is then pinned): it is priced on the device at them
	// (sim.Options.Clocks). Zero: the maxima.
	BoardClocks hardware.Clocks
	// Threads are the CPU threads the run used (llama-bench's n_threads,
	// a runs CSV's threads column; llama.cpp's -t), 0 when not stated:
	// a CPU engine's cores it is priced on (sim.Options.Threads).
	Threads int

	// Spread is how the run spread its model over devices or memories
	// (roofline's runs CSV only); the zero value is one device.
	Spread Spread
}

// Spread is how a measured run spread its model beyond one device's
// memory, as a runs CSV states it: the counts and names of roofline
// predict's flags of the same names (docs/formats.md).
type Spread struct {
	// Devices, TP and PP spread it over devices like Hardware (0: not
	// stated); EP spreads whole routed experts over the TP devices.
	Devices, TP, PP int
	EP              bool
	// GPULayers is llama.cpp's -ngl (the output layer counted), when
	// GPULayersSet; CPUMoE and NCPUMoE keep routed experts in host
	// memory.
	GPULayers    int
	GPULayersSet bool
	CPUMoE       bool
	NCPUMoE      int
	// Host names the host device of an offload, Link the link between
	// the devices or to the host ("": the defaults).
	Host, Link string
}

// Any reports whether the spread says more than one device as it is.
func (s Spread) Any() bool {
	return s.Devices > 1 || s.TP > 1 || s.PP > 1 || s.EP || s.GPULayersSet || s.CPUMoE || s.NCPUMoE > 0 || s.Host != "" || s.Link != ""
}

// Cited is the run's origin and note: "XD-GPUBENCH row 141 …".
func (r Run) Cited() string { return strings.TrimSpace(r.Origin + " " + r.Note) }

// Source is "file:line".
func (r Run) Source() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// TestName names the test the way llama-bench does: pp512, tg128 @
// d4096, ×B for a batch.
func (r Run) TestName() string {
	s := fmt.Sprintf("tg%d", r.Gen)
	switch r.Test {
	case Prefill:
		s = fmt.Sprintf("pp%d", r.Prompt)
	case E2E:
		s = fmt.Sprintf("pp%d+tg%d", r.Prompt, r.Gen)
	}
	if r.Depth > 0 {
		s += fmt.Sprintf(" @ d%d", r.Depth)
	}
	if r.Batch > 1 {
		s += fmt.Sprintf(" ×%d", r.Batch)
	}
	return s
}

// Tokens is the number of tokens the test processed over the batch.
func (r Run) Tokens() int {
	if r.Test == Prefill {
		return r.Batch * r.Prompt
	}
	return r.Batch * r.Gen
}

// Seconds is the measured duration of the test.
func (r Run) Seconds() float64 { return float64(r.Tokens()) / r.TokensPerS }

// check validates a run's numbers.
func (r Run) check() error {
	switch r.Test {
	case Prefill:
		if r.Prompt < 1 {
			return errors.New("prefill test without prompt tokens")
		}
	case Decode:
		if r.Gen < 1 {
			return errors.New("decode test without generated tokens")
		}
	case E2E:
		if r.Prompt < 1 || r.Gen < 1 {
			return errors.New("e2e test without prompt or generated tokens")
		}
	default:
		return fmt.Errorf("unknown test %q (want prefill, decode or e2e)", r.Test)
	}
	if r.Batch < 1 || r.Depth < 0 || r.UBatch < 0 {
		return fmt.Errorf("batch %d, depth %d, ubatch %d: batch must be ≥ 1, depth and ubatch ≥ 0 (ubatch 0: the runtime's default)", r.Batch, r.Depth, r.UBatch)
	}
	// Token counts past the ceiling would overflow the prediction (a
	// negative rate) rather than describe a run.
	for _, f := range []struct {
		name string
		v    int
	}{{"prompt", r.Prompt}, {"gen", r.Gen}, {"depth", r.Depth}, {"batch", r.Batch}, {"ubatch", r.UBatch}, {"context", r.Depth + r.Prompt + r.Gen}} {
		if f.v > limits.Tokens || f.v < 0 {
			return fmt.Errorf("%s %s tokens exceeds the limit of %s", f.name, limits.Echo(f.v), limits.Count(limits.Tokens))
		}
	}
	if !(r.TokensPerS > 0) || math.IsInf(r.TokensPerS, 0) {
		return fmt.Errorf("rate %v tokens/s: must be a positive number (zero or negative times are not measurements)", r.TokensPerS)
	}
	if r.TokensPerS > limits.TokensPerS {
		return fmt.Errorf("rate %.3g tokens/s exceeds the limit of %.0e: not a measurement", r.TokensPerS, limits.TokensPerS)
	}
	if err := limits.Rate.Check(r.TokensPerS); err != nil {
		return fmt.Errorf("rate %w: not a measurement", err)
	}
	for _, f := range []struct {
		name string
		v    float64
		max  float64
	}{{"stddev", r.StdDevTS, limits.TokensPerS}, {"model size", r.ModelBytes, limits.Memory.Max}, {"model parameters", r.ModelParams, limits.Params}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("%s %v: must be a finite number ≥ 0", f.name, f.v)
		}
		if f.v > f.max {
			return fmt.Errorf("%s %.3g exceeds the limit of %.3g: not a measurement", f.name, f.v, f.max)
		}
	}
	return nil
}

// SyntaxError is a bad row: reported, skipped.
type SyntaxError struct {
	File string
	Line int
	Msg  string
	Err  error // what it wraps (a *safeio.JSONError and its hint), if anything
}

func (e *SyntaxError) Unwrap() error { return e.Err }

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Result is what one file yielded.
type Result struct {
	Format string
	Runs   []Run
	Bad    []error // *SyntaxError, one per skipped row, the first MaxBadListed
	// MoreBad counts the skipped rows past those listed in Bad.
	MoreBad int
	// Warnings say what was read other than as written: values a file
	// could not give (NaN, Infinity) read as missing.
	Warnings []string
}

// MaxBadListed bounds the bad rows a Result lists; the rest are counted,
// so that a large file of garbage costs no more memory than its runs.
const MaxBadListed = 100

// collector gathers runs and bad rows for one file.
type collector struct {
	file string
	res  Result
	rows int  // runs and bad rows so far
	full bool // more than limits.Runs rows
}

func (c *collector) count() bool {
	c.rows++
	if c.rows > limits.Runs {
		c.full = true
	}
	return !c.full
}

func (c *collector) bad(line int, format string, a ...any) {
	if !c.count() {
		return
	}
	if len(c.res.Bad) >= MaxBadListed {
		c.res.MoreBad++
		return
	}
	c.res.Bad = append(c.res.Bad, &SyntaxError{File: c.file, Line: line, Msg: fmt.Sprintf(format, a...)})
}

func (c *collector) add(r Run) {
	if !c.count() {
		return
	}
	r.File = c.file
	if r.Batch == 0 {
		r.Batch = 1
	}
	if err := r.check(); err != nil {
		c.bad(r.Line, "%v", err)
		return
	}
	c.res.Runs = append(c.res.Runs, r)
}

// Read detects the format of data and reads its runs.
func Read(file string, data []byte) (*Result, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	if strings.TrimSpace(text) == "" {
		return nil, &SyntaxError{File: file, Msg: "empty file"}
	}
	format, read := detect(text)
	if read == nil {
		return nil, &SyntaxError{File: file, Line: 1, Msg: "unknown format: expected llama-bench (json, jsonl, csv, md), llama-batched-bench, vLLM benchmark JSON, a plain requests CSV/JSON or a roofline runs CSV (docs/formats.md)"}
	}
	c := &collector{file: file}
	c.res.Format = format
	if err := read(c, text); err != nil {
		return nil, err
	}
	if c.full {
		return nil, &SyntaxError{File: file, Msg: fmt.Sprintf("more than %s rows, the limit for a measured file: split it", limits.Count(limits.Runs))}
	}
	if len(c.res.Runs) == 0 {
		msg := "no usable run in the file"
		if n := len(c.res.Bad) + c.res.MoreBad; n > 0 {
			msg += fmt.Sprintf(" (%d bad rows, first: %v)", n, c.res.Bad[0])
		}
		return &c.res, &SyntaxError{File: file, Msg: msg}
	}
	return &c.res, nil
}

type reader func(c *collector, text string) error

func detect(text string) (string, reader) {
	t := strings.TrimSpace(text)
	first := firstLine(t)
	switch {
	case strings.HasPrefix(t, "[") && strings.Contains(t, `"avg_ts"`):
		return "llama-bench json", readBenchJSON
	case strings.HasPrefix(t, "{") && strings.Contains(first, `"avg_ts"`):
		return "llama-bench jsonl", readBenchJSONL
	case strings.Contains(first, "n_prompt") && strings.Contains(first, "avg_ts"):
		return "llama-bench csv", readBenchCSV
	case strings.Contains(t, "| T_PP s") || (strings.Contains(t, "N_KV") && strings.Contains(t, "S_TG")):
		return "llama-batched-bench", readBatchedBench
	case hasMarkdownHeader(t, "test", "t/s"):
		return "llama-bench markdown", readBenchMarkdown
	case (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && (strings.Contains(t, "_ttft_ms") || strings.Contains(t, `"ttfts"`)):
		return "vllm benchmark json", readVLLM
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		return "requests json", readRequestsJSON
	}
	header := firstDataLine(t)
	switch {
	case strings.Contains(header, "tokens_per_s") && strings.Contains(header, "test"):
		return "roofline runs csv", readRunsCSV
	case strings.Contains(header, "tokens_per_s") || hasColumn(header, "test") && (hasColumn(header, "hardware") || hasColumn(header, "model")):
		// A runs CSV short of a required column: its reader names the
		// column, where "unknown format" would name every format.
		return "roofline runs csv", readRunsCSV
	case strings.Contains(header, "prompt_tokens") && strings.Contains(header, "ttft"):
		return "requests csv", readRequestsCSV
	}
	return "", nil
}

// hasColumn reports a CSV header line with column name (any case).
func hasColumn(header, name string) bool {
	for _, h := range strings.Split(header, ",") {
		if strings.EqualFold(strings.TrimSpace(h), name) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// firstDataLine skips '#' comment lines.
func firstDataLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return t
		}
	}
	return ""
}

func hasMarkdownHeader(s string, cols ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := splitRow(l)
		found := 0
		for _, want := range cols {
			for _, c := range cells {
				if c == want {
					found++
					break
				}
			}
		}
		if found == len(cols) {
			return true
		}
	}
	return false
}

// splitRow splits a Markdown table row into trimmed cells.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	parts := strings.Split(l, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// csvLine is the line a CSV record (or its parse error) starts on.
func csvLine(cr *csv.Reader, rec []string, err error) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.StartLine
	}
	if len(rec) > 0 {
		l, _ := cr.FieldPos(0)
		return l
	}
	return 0
}

// flashAttn normalises a flash-attention setting: llama-bench writes
// false/true or 0/1, newer builds -1 or "auto" (on where supported).
func flashAttn(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "off", "no":
		return "off"
	case "1", "true", "on", "yes", "-1", "auto":
		return "on"
	}
	return ""
}
