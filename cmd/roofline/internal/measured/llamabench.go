package measured

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/units"
)

// benchFields is one llama-bench result keyed by field name; unknown fields
// are ignored (the schema drifts between builds).
type benchFields map[string]string

func (f benchFields) int(key string) (int, bool, error) {
	s, ok := f[key]
	if !ok || s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(v) > 1<<53 || v != math.Trunc(v) {
		return 0, true, fmt.Errorf("%s = %q is not an integer", key, s)
	}
	return int(v), true, nil
}

func (f benchFields) float(key string) (float64, bool, error) {
	s, ok := f[key]
	if !ok || s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, true, fmt.Errorf("%s = %q is not a finite number", key, s)
	}
	return v, true, nil
}

// benchRun turns one llama-bench result into a run. A ppN test (n_prompt =
// N, n_gen = 0) is a prefill run; a tgN test (n_gen = N, n_prompt = 0) is
// a decode run; both start from n_depth cached tokens. The rate is avg_ts,
// the mean over repetitions of tokens / time, as llama-bench prints it in
// every encoding.
func benchRun(c *collector, line int, f benchFields) {
	r := Run{Line: line, Batch: 1, Runtime: "llama.cpp", Model: f["model_filename"], ModelType: f["model_type"], KV: f["type_k"],
		Backend: f["backends"], Build: f["build_commit"], FlashAttn: flashAttn(f["flash_attn"])}
	if n := f["build_number"]; n != "" {
		r.Build += " (" + n + ")"
	}
	var err error
	get := func(key string, dst *int) {
		if err != nil {
			return
		}
		v, ok, e := f.int(key)
		if e != nil {
			err = e
		} else if ok {
			*dst = v
		}
	}
	var nPrompt, nGen, nBatch, nUBatch, ngl int
	ngl = -1
	get("n_prompt", &nPrompt)
	get("n_gen", &nGen)
	get("n_depth", &r.Depth)
	get("n_batch", &nBatch)
	get("n_ubatch", &nUBatch)
	get("n_gpu_layers", &ngl)
	get("n_threads", &r.Threads)
	if err != nil {
		c.bad(line, "%v", err)
		return
	}
	if v, ok, e := f.float("model_size"); e != nil {
		c.bad(line, "%v", e)
		return
	} else if ok {
		r.ModelBytes = v
	}
	if v, ok, e := f.float("model_n_params"); e != nil {
		c.bad(line, "%v", e)
		return
	} else if ok {
		r.ModelParams = v
	}
	ts, ok, e := f.float("avg_ts")
	if e != nil || !ok {
		c.bad(line, "missing or bad avg_ts")
		return
	}
	r.TokensPerS = ts
	if r.StdDevTS, _, err = f.float("stddev_ts"); err != nil {
		c.bad(line, "%v", err)
		return
	}
	if r.Threads < 0 || float64(r.Threads) > limits.Units.Max {
		c.bad(line, "n_threads = %d is not a number of CPU threads", r.Threads)
		return
	}
	r.UBatch = nUBatch
	if r.UBatch == 0 {
		// Builds before n_ubatch existed processed n_batch tokens per pass.
		r.UBatch = nBatch
	}
	r.Weights = WeightsFromModelType(r.ModelType)
	r.Engine = engineFromBackend(r.Backend, ngl)
	switch {
	case nPrompt > 0 && nGen == 0:
		r.Test, r.Prompt = Prefill, nPrompt
	case nGen > 0 && nPrompt == 0:
		r.Test, r.Gen = Decode, nGen
	case nPrompt > 0 && nGen > 0:
		c.bad(line, "pp%d+tg%d is a blended rate of prefill and decode and cannot be split; run -p and -n tests instead", nPrompt, nGen)
		return
	default:
		c.bad(line, "test has neither n_prompt nor n_gen")
		return
	}
	c.add(r)
}

// ftypeNames maps llama.cpp's llama_model_ftype_name strings, as they end
// model_type, to roofline weight formats.
var ftypeNames = map[string]string{
	"all f32": "f32", "f16": "f16", "bf16": "bf16", "q4_0": "q4_0", "q4_1": "q4_1", "q5_0": "q5_0", "q5_1": "q5_1",
	"q8_0": "q8_0", "mxfp4 moe": "mxfp4_moe", "q2_k - medium": "q2_k", "q3_k - small": "q3_k_s", "q3_k - medium": "q3_k_m",
	"q3_k - large": "q3_k_l", "q4_k - small": "q4_k_s", "q4_k - medium": "q4_k_m", "q5_k - small": "q5_k_s",
	"q5_k - medium": "q5_k_m", "q6_k": "q6_k", "iq4_nl - 4.5 bpw": "iq4_nl", "iq4_xs - 4.25 bpw": "iq4_xs",
}

var sizeToken = regexp.MustCompile(`^([0-9]+x)?[0-9.]+[BMKT]([.-]?A[0-9.]+[BMKT])?$|^\?B$`)

// WeightsFromModelType reads the file type at the end of a llama-bench
// model_type ("qwen2 7B Q4_K - Medium" → "q4_k_m"), or "" when unknown.
func WeightsFromModelType(mt string) string {
	fields := strings.Fields(mt)
	for i, f := range fields {
		if sizeToken.MatchString(f) && i+1 < len(fields) {
			return ftypeNames[strings.ToLower(strings.Join(fields[i+1:], " "))]
		}
	}
	return ""
}

// ArchFromModelType is the GGUF architecture at the start of model_type.
func ArchFromModelType(mt string) string {
	if f := strings.Fields(mt); len(f) > 0 {
		return strings.ToLower(f[0])
	}
	return ""
}

func engineFromBackend(backend string, ngl int) string {
	b := strings.ToLower(backend)
	switch {
	case b == "":
		return ""
	case ngl == 0 || b == "cpu" || b == "blas" || b == "cpu,blas" || b == "blas,cpu":
		return "cpu"
	}
	return "gpu"
}

func readBenchJSON(c *collector, text string) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		return &SyntaxError{File: c.file, Line: 1, Msg: "llama-bench json: expected an array of results"}
	}
	lines := lineCounter{text: text}
	// cutShort is an array that ends without its ], said at the line of
	// its last text (after a comma, the last result's); malformed any
	// other JSON error, at the line and column the decoder reached.
	cutShort := func(trim string) {
		end := len(strings.TrimRight(text, trim))
		c.bad(lines.at(int64(max(end-1, 0))), "malformed JSON: the array ends without its closing ] (a run stopped while it was written ends like this)")
	}
	malformed := func(err error, line int) {
		err = safeio.JSON([]byte(text), dec.InputOffset(), err)
		if je := (*safeio.JSONError)(nil); errors.As(err, &je) && je.Line > 0 {
			c.bad(je.Line, "malformed JSON, %s", je.At())
		} else {
			c.bad(line, "malformed JSON: %v", err)
		}
	}
	for dec.More() {
		line := lines.at(dec.InputOffset())
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			if strings.TrimSpace(text[min(int(dec.InputOffset()), len(text)):]) == "" {
				cutShort(" \t\r\n,") // after a comma: nothing follows it
				return nil
			}
			malformed(err, line)
			return nil
		}
		benchRun(c, line, flatten(raw))
	}
	// The array ends at its ], and the file with it: one cut short
	// between results (a run stopped while it was written), or followed
	// by more, keeps the results it holds and says so.
	if _, err := dec.Token(); errors.Is(err, io.EOF) {
		cutShort(" \t\r\n")
		return nil
	} else if err != nil {
		// Not cut short: a character that is not the ] (a stray }).
		malformed(err, lines.at(dec.InputOffset()))
		return nil
	}
	after := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		c.bad(lines.at(after), "malformed JSON: text after the array's closing ] (llama-bench -o json writes one array)")
	}
	return nil
}

func readBenchJSONL(c *collector, text string) error {
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		var raw map[string]any
		if err := d.Decode(&raw); err != nil {
			err = safeio.JSON([]byte(l), d.InputOffset(), err)
			if je := (*safeio.JSONError)(nil); errors.As(err, &je) && je.Line > 0 {
				err = errors.New(je.At())
			}
			c.bad(i+1, "malformed JSON line, %v", err)
			continue
		}
		benchRun(c, i+1, flatten(raw))
	}
	return nil
}

func readBenchCSV(c *collector, text string) error {
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return &SyntaxError{File: c.file, Line: 1, Msg: "llama-bench csv: " + err.Error()}
	}
	if dup := duplicate(header); dup != "" {
		return &SyntaxError{File: c.file, Line: 1, Msg: fmt.Sprintf("duplicate column %q", dup)}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line := csvLine(cr, rec, err)
		if err != nil {
			c.bad(line, "%v", err)
			if _, ok := err.(*csv.ParseError); ok {
				continue
			}
			break
		}
		if len(rec) != len(header) {
			c.bad(line, "%d fields, header has %d", len(rec), len(header))
			continue
		}
		f := benchFields{}
		for i, h := range header {
			f[strings.TrimSpace(h)] = rec[i]
		}
		benchRun(c, line, f)
	}
	return nil
}

var testCell = regexp.MustCompile(`^(pp|tg)\s*(\d+)(?:\s*@\s*d(\d+))?$`)

// readBenchMarkdown reads llama-bench's default table. Columns that are not
// printed take llama-bench's defaults (f16 KV, n_ubatch 512).
func readBenchMarkdown(c *collector, text string) error {
	var header []string
	build := ""
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "build:") {
			build = strings.TrimSpace(strings.TrimPrefix(t, "build:"))
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "|") {
			continue
		}
		cells := splitRow(t)
		if header == nil {
			if contains(cells, "test") && contains(cells, "t/s") {
				header = cells
				if dup := duplicate(header); dup != "" {
					return &SyntaxError{File: c.file, Line: i + 1, Msg: fmt.Sprintf("duplicate column %q", dup)}
				}
			}
			continue
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue // the separator row
		}
		if len(cells) != len(header) {
			c.bad(i+1, "%d cells, header has %d", len(cells), len(header))
			continue
		}
		col := map[string]string{}
		for j, h := range header {
			col[h] = cells[j]
		}
		if contains(cells, "test") && contains(cells, "t/s") {
			continue // a repeated header
		}
		f := benchFields{"model_type": col["model"], "backends": col["backend"], "build_commit": build,
			"type_k": col["type_k"], "n_ubatch": col["n_ubatch"], "n_batch": col["n_batch"], "n_gpu_layers": col["ngl"],
			"flash_attn": col["fa"], "n_threads": col["threads"]}
		if f["type_k"] == "" {
			f["type_k"] = "f16"
		}
		// llama-bench prints a column only where a value differs from its
		// default; flash attention defaulted to off (-fa 0) in the builds
		// this format comes from. Builds that default to auto print the
		// column, or are given --flash-attn.
		if f["flash_attn"] == "" {
			f["flash_attn"] = "0"
		}
		if f["n_ubatch"] == "" {
			f["n_ubatch"] = "512"
		}
		if s := col["size"]; s != "" {
			if b, err := units.Parse(s, units.DimBytes); err == nil {
				f["model_size"] = strconv.FormatFloat(b, 'f', -1, 64)
			}
		}
		if p := strings.TrimSpace(col["params"]); strings.HasSuffix(p, " B") {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(p, " B"), 64); err == nil {
				f["model_n_params"] = strconv.FormatFloat(v*1e9, 'f', -1, 64)
			}
		}
		test := strings.Join(strings.Fields(col["test"]), " ")
		if strings.Contains(test, "+") {
			c.bad(i+1, "%s is a blended rate of prefill and decode and cannot be split", test)
			continue
		}
		m := testCell.FindStringSubmatch(test)
		if m == nil {
			c.bad(i+1, "unrecognised test %q (want ppN, tgN, optionally @ dN)", col["test"])
			continue
		}
		if m[1] == "pp" {
			f["n_prompt"], f["n_gen"] = m[2], "0"
		} else {
			f["n_prompt"], f["n_gen"] = "0", m[2]
		}
		f["n_depth"] = "0"
		if m[3] != "" {
			f["n_depth"] = m[3]
		}
		ts := strings.SplitN(col["t/s"], "±", 2)
		f["avg_ts"] = strings.TrimSpace(ts[0])
		if len(ts) == 2 {
			f["stddev_ts"] = strings.TrimSpace(ts[1])
		}
		benchRun(c, i+1, f)
	}
	if header == nil {
		return &SyntaxError{File: c.file, Line: 1, Msg: "llama-bench markdown: no header row with test and t/s columns"}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func duplicate(header []string) string {
	seen := map[string]bool{}
	for _, h := range header {
		h = strings.TrimSpace(h)
		if seen[h] {
			return h
		}
		seen[h] = true
	}
	return ""
}

// flatten renders a JSON object's scalar fields as strings.
func flatten(raw map[string]any) benchFields {
	f := benchFields{}
	for k, v := range raw {
		switch x := v.(type) {
		case string:
			f[k] = x
		case json.Number:
			f[k] = x.String()
		case bool:
			if x {
				f[k] = "1"
			} else {
				f[k] = "0"
			}
		}
	}
	return f
}

// lineCounter turns increasing byte offsets into 1-based lines, counting
// each newline once so that a file's lines cost linear time, not a count
// from the start for every result.
type lineCounter struct {
	text string
	off  int // counted up to here
	line int // newlines before off
}

// at is the line of the first character at or after off that is not
// space or a comma (where the next value starts).
func (l *lineCounter) at(off int64) int {
	i := int(min(off, int64(len(l.text))))
	for i < len(l.text) && (l.text[i] == ' ' || l.text[i] == '\n' || l.text[i] == '\r' || l.text[i] == '\t' || l.text[i] == ',') {
		i++
	}
	if i < l.off { // not expected: offsets only grow
		l.off, l.line = 0, 0
	}
	l.line += strings.Count(l.text[l.off:i], "\n")
	l.off = i
	return l.line + 1
}
