package measured

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
	"github.com/roofline/roofline/units"
)

var batchedHeaderKV = regexp.MustCompile(`(\w+)\s*=\s*(-?\d+)`)

// readBatchedBench reads llama-batched-bench tables: each row gives a
// prefill run (PP tokens for B sequences, S_PP = B·PP / T_PP) and a decode
// run (TG tokens per sequence after the PP-token prompt, S_TG = B·TG / T_TG).
func readBatchedBench(c *collector, text string) error {
	ubatch, shared := 512, false
	var header []string
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "main:") {
			for _, m := range batchedHeaderKV.FindAllStringSubmatch(t, -1) {
				v, _ := strconv.Atoi(m[2])
				switch m[1] {
				case "n_ubatch":
					ubatch = v
				case "is_pp_shared":
					shared = v != 0
				}
			}
			continue
		}
		if !strings.HasPrefix(t, "|") {
			continue
		}
		cells := splitRow(t)
		if header == nil {
			if contains(cells, "PP") && contains(cells, "TG") && contains(cells, "B") {
				header = cells
				if dup := duplicate(header); dup != "" {
					return &SyntaxError{File: c.file, Line: i + 1, Msg: fmt.Sprintf("duplicate column %q", dup)}
				}
			}
			continue
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue
		}
		if len(cells) != len(header) {
			c.bad(i+1, "%d cells, header has %d", len(cells), len(header))
			continue
		}
		col := map[string]string{}
		for j, h := range header {
			col[h] = cells[j]
		}
		var pp, tg, b int
		var spp, stg float64
		var err error
		geti := func(k string, dst *int) {
			if err == nil {
				*dst, err = strconv.Atoi(col[k])
				if err != nil {
					err = fmt.Errorf("%s = %q is not an integer", k, col[k])
				}
			}
		}
		getf := func(k string, dst *float64) {
			if err == nil && col[k] != "" {
				*dst, err = strconv.ParseFloat(col[k], 64)
				if err != nil || math.IsNaN(*dst) || math.IsInf(*dst, 0) {
					err = fmt.Errorf("%s = %q is not a finite number", k, col[k])
				}
			}
		}
		geti("PP", &pp)
		geti("TG", &tg)
		geti("B", &b)
		getf("S_PP t/s", &spp)
		getf("S_TG t/s", &stg)
		if err != nil {
			c.bad(i+1, "%v", err)
			continue
		}
		note := ""
		if shared {
			note = "is_pp_shared = 1: one prompt is shared by the batch"
		}
		if pp > 0 && !shared {
			c.add(Run{Line: i + 1, Runtime: "llama.cpp", Test: Prefill, Prompt: pp, Batch: b, UBatch: ubatch, TokensPerS: spp, Note: note})
		}
		if tg > 0 {
			c.add(Run{Line: i + 1, Runtime: "llama.cpp", Test: Decode, Gen: tg, Depth: pp, Batch: b, UBatch: ubatch, TokensPerS: stg, Note: note})
		}
	}
	if header == nil {
		return &SyntaxError{File: c.file, Line: 1, Msg: "llama-batched-bench: no table header with PP, TG and B"}
	}
	return nil
}

// readVLLM reads a vLLM serving-benchmark result (--save-result). Summary
// metrics end in _ms (milliseconds); per-request lists (ttfts, itls) are in
// seconds. The prefill run is the mean input length at the mean TTFT; the
// decode run is the mean output length at the mean TPOT (which excludes
// the first token), at the benchmark's max concurrency.
func readVLLM(c *collector, text string) error {
	// Offsets count in the text decoded: NaN read as null is a byte
	// longer, Infinity four shorter; the lines stay.
	text = c.readNonFinite(text)
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return jsonSyntax(c.file, "vLLM JSON", text, 0, err)
	}
	num := func(k string) (float64, bool) {
		if v, ok := raw[k].(json.Number); ok {
			f, err := v.Float64()
			return f, err == nil
		}
		return 0, false
	}
	// list keeps the requests in place: a value that is missing or not
	// a number is NaN, which mean and the per-request sums skip.
	list := func(k string) []float64 {
		arr, _ := raw[k].([]any)
		out := make([]float64, len(arr))
		for i, v := range arr {
			out[i] = math.NaN()
			if n, ok := v.(json.Number); ok {
				if f, err := n.Float64(); err == nil {
					out[i] = f
				}
			}
		}
		return out
	}
	completed, _ := num("completed")
	inLens, outLens := list("input_lens"), list("output_lens")
	meanIn, meanOut := mean(inLens), mean(outLens)
	if v, ok := num("total_input_tokens"); ok && completed > 0 {
		meanIn = v / completed
	}
	if v, ok := num("total_output_tokens"); ok && completed > 0 {
		meanOut = v / completed
	}
	ttft, ok := num("mean_ttft_ms")
	ttft /= 1000
	if !ok {
		ttft = mean(list("ttfts")) // seconds
	}
	tpot, ok := num("mean_tpot_ms")
	tpot /= 1000
	if !ok {
		// Per request: (latency − ttft) / (output − 1), from the lists.
		lat, tt := list("latencies"), list("ttfts")
		var s []float64
		for i := range lat {
			if i < len(tt) && i < len(outLens) && outLens[i] > 1 {
				if v := (lat[i] - tt[i]) / (outLens[i] - 1); !math.IsNaN(v) {
					s = append(s, v)
				}
			}
		}
		tpot = mean(s)
	}
	batch := 1
	for _, k := range []string{"max_concurrency", "max_concurrent_requests"} {
		if v, ok := num(k); ok && v >= 1 {
			batch = int(v)
			break
		}
	}
	model, _ := raw["model_id"].(string)
	prompt, gen := int(math.Round(meanIn)), int(math.Round(meanOut))
	note := "means over requests; a TTFT far below the ideal bound usually means the prompts were prefix-cached"
	if batch > 1 {
		note += fmt.Sprintf("; max concurrency %d taken as the batch", batch)
	}
	if prompt > 0 && ttft > 0 {
		c.add(Run{Line: 1, Runtime: "vllm", Test: Prefill, Model: model, Prompt: prompt, Batch: 1, TokensPerS: float64(prompt) / ttft, Note: note})
	} else {
		c.bad(1, "no TTFT (mean_ttft_ms or ttfts) with input lengths")
	}
	if gen > 1 && tpot > 0 {
		c.add(Run{Line: 1, Runtime: "vllm", Test: Decode, Model: model, Gen: gen - 1, Depth: prompt, Batch: batch, TokensPerS: float64(batch) / tpot, Note: note})
	} else {
		c.bad(1, "no TPOT (mean_tpot_ms or latencies with ttfts) with output lengths above 1")
	}
	return nil
}

// mean is the mean of v's numbers (NaN are missing), 0 when none.
func mean(v []float64) float64 {
	s, n := 0.0, 0
	for _, x := range v {
		if !math.IsNaN(x) {
			s, n = s+x, n+1
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// request is one row of the plain per-request format.
type request struct {
	line                 int
	prompt, output       int
	ttft, e2e            float64 // s
	batch, depth, ubatch int
	model, weights, kv   string
	hardware, engine     string
}

// addRequest turns one request into a prefill run (TTFT) and a decode run
// (TPOT = (E2E − TTFT) / (output − 1)).
func addRequest(c *collector, q request) {
	if q.ttft <= 0 || q.e2e <= 0 || q.e2e < q.ttft {
		c.bad(q.line, "ttft %.6g s and e2e %.6g s: both must be positive and e2e ≥ ttft", q.ttft, q.e2e)
		return
	}
	base := Run{Line: q.line, Model: q.model, Weights: q.weights, KV: q.kv, Hardware: q.hardware, Engine: q.engine,
		Batch: max(q.batch, 1), UBatch: q.ubatch, Depth: q.depth}
	p := base
	p.Test, p.Prompt = Prefill, q.prompt
	p.TokensPerS = float64(p.Batch*q.prompt) / q.ttft
	c.add(p)
	if q.output > 1 {
		d := base
		d.Test, d.Gen, d.Depth = Decode, q.output-1, q.depth+q.prompt
		tpot := (q.e2e - q.ttft) / float64(q.output-1)
		d.TokensPerS = float64(d.Batch) / tpot
		c.add(d)
	}
}

var requestAliases = map[string][]string{
	"prompt_tokens": {"prompt_tokens", "input_tokens", "prompt_len"},
	"output_tokens": {"output_tokens", "gen_tokens", "output_len"},
}

// requestColumns are a plain requests file's columns (CSV) or keys (JSON):
// the required, then the optional; requestAliases spell two of them
// otherwise.
var requestColumns = [2][]string{{"prompt_tokens", "output_tokens"},
	{"ttft_s", "ttft_ms", "e2e_s", "e2e_ms", "batch", "depth", "ubatch", "model", "weights", "kv", "hardware", "engine"}}

func readRequestsCSV(c *collector, text string) error {
	return c.namedRows(text, requestColumns[0], requestColumns[1],
		func(line int, get func(string) string) {
			q, err := parseRequest(line, get)
			if err != nil {
				c.bad(line, "%v", err)
				return
			}
			addRequest(c, q)
		})
}

// namedRows reads a CSV with a header row, checks its columns, and calls
// row for every record with its line and a lookup by column name; records
// that do not parse are reported and skipped.
func (c *collector) namedRows(text string, required, optional []string, row func(line int, get func(string) string)) error {
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	at := max(csvLine(cr, header, err), 1) // after comment lines
	if err != nil {
		return &SyntaxError{File: c.file, Line: at, Msg: err.Error()}
	}
	idx, err := columns(header, required, optional)
	if err != nil {
		return &SyntaxError{File: c.file, Line: at, Msg: err.Error()}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		line := csvLine(cr, rec, err)
		if err != nil {
			c.bad(line, "%v", err)
			continue
		}
		row(line, func(k string) string {
			if i, ok := idx[k]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		})
	}
}

// parseRequest reads one request from named fields; times in _s or _ms.
func parseRequest(line int, get func(string) string) (request, error) {
	q := request{line: line, model: get("model"), weights: get("weights"), kv: get("kv"), hardware: get("hardware"), engine: get("engine")}
	ints := map[string]*int{"prompt_tokens": &q.prompt, "output_tokens": &q.output, "batch": &q.batch, "depth": &q.depth, "ubatch": &q.ubatch}
	for k, dst := range ints {
		s := get(k)
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return q, fmt.Errorf("%s = %q is not an integer", k, s)
		}
		*dst = v
	}
	times := []struct {
		key   string
		dst   *float64
		scale float64
	}{{"ttft_s", &q.ttft, 1}, {"ttft_ms", &q.ttft, 1e-3}, {"e2e_s", &q.e2e, 1}, {"e2e_ms", &q.e2e, 1e-3}}
	for _, t := range times {
		s := get(t.key)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return q, fmt.Errorf("%s = %q is not a finite number", t.key, s)
		}
		*t.dst = v * t.scale
	}
	if q.prompt < 1 || q.output < 1 {
		return q, fmt.Errorf("prompt_tokens and output_tokens must be at least 1")
	}
	return q, nil
}

func columns(header, required, optional []string) (map[string]int, error) {
	if dup := duplicate(header); dup != "" {
		return nil, fmt.Errorf("duplicate column %q", dup)
	}
	idx := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		for canon, al := range requestAliases {
			for _, a := range al {
				if h == a {
					h = canon
				}
			}
		}
		idx[h] = i
	}
	for _, r := range required {
		if _, ok := idx[r]; !ok {
			return nil, fmt.Errorf("missing column %q (header: %s)", r, strings.Join(header, ","))
		}
	}
	known := map[string]bool{}
	for _, k := range append(append([]string{}, required...), optional...) {
		known[k] = true
	}
	for h := range idx {
		if !known[h] {
			return nil, fmt.Errorf("unknown column %q (known: %s)", h, strings.Join(append(required, optional...), ", "))
		}
	}
	return idx, nil
}

func readRequestsJSON(c *collector, text string) error {
	text = c.readNonFinite(text) // as readVLLM
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return jsonSyntax(c.file, "requests JSON", text, 0, err)
	}
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case map[string]any:
		items, _ = x["requests"].([]any)
	}
	if items == nil {
		return &SyntaxError{File: c.file, Line: 1, Msg: "requests JSON: expected an array of requests or {\"requests\": [...]}"}
	}
	known := map[string]bool{}
	for _, k := range slices.Concat(requestColumns[0], requestColumns[1]) {
		known[k] = true
	}
	for _, al := range requestAliases {
		for _, a := range al {
			known[a] = true
		}
	}
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			c.bad(1, "request %d is not an object", i+1)
			continue
		}
		// As a CSV's unknown column: a misspelt key (ttft_sec) would
		// leave its value unread and the run priced without it.
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if !known[k] {
				return &SyntaxError{File: c.file, Line: 1, Msg: fmt.Sprintf("requests JSON: request %d: unknown key %q (known: %s)",
					i+1, k, strings.Join(slices.Concat(requestColumns[0], requestColumns[1]), ", "))}
			}
		}
		f := flatten(obj)
		for canon, al := range requestAliases {
			for _, a := range al {
				if s, ok := f[a]; ok {
					f[canon] = s
				}
			}
		}
		q, err := parseRequest(i+1, func(k string) string { return f[k] })
		if err != nil {
			c.bad(1, "request %d: %v", i+1, err)
			continue
		}
		q.line = 1
		addRequest(c, q)
	}
	return nil
}

// runsColumns are the runs CSV's columns: the required, then the optional.
var runsColumns = [2][]string{{"test", "tokens_per_s"},
	{"source", "runtime", "hardware", "engine", "model", "weights", "kv", "flash_attn", "prompt", "gen", "depth", "batch", "ubatch", "size", "exclude", "note",
		"devices", "tp", "pp", "ep", "gpu_layers", "cpu_moe", "n_cpu_moe", "host", "link", "max_context", "clocks", "threads"}}

// readRunsCSV reads roofline's own runs format: one test per row.
func readRunsCSV(c *collector, text string) error {
	return c.namedRows(text, runsColumns[0], runsColumns[1],
		func(line int, get func(string) string) {
			r := Run{Line: line, Test: Test(get("test")), Backend: get("runtime"), FlashAttn: flashAttn(get("flash_attn")),
				Hardware: get("hardware"), Engine: get("engine"), Model: get("model"),
				Weights: get("weights"), KV: get("kv"), Exclude: get("exclude"), Note: strings.TrimSpace(get("note")), Origin: strings.TrimSpace(get("source")),
				Spread: Spread{Host: get("host"), Link: get("link")}}
			if err := readSpread(&r.Spread, get); err != nil {
				c.bad(line, "%v", err)
				return
			}
			if s := get("max_context"); s != "" {
				v, err := strconv.Atoi(s)
				if err != nil || v < 1 || v > limits.Tokens {
					c.bad(line, "max_context = %q: want the tokens the model was converted for, from 1 to %s", s, limits.Count(limits.Tokens))
					return
				}
				r.MaxContext = v
			}
			if s := get("threads"); s != "" {
				v, err := strconv.Atoi(s)
				if err != nil || v < 1 || float64(v) > limits.Units.Max {
					c.bad(line, "threads = %q: want the CPU threads the run used (llama.cpp's -t), a whole number from 1", s)
					return
				}
				r.Threads = v
			}
			switch r.Clocks = get("clocks"); {
			case r.Clocks == "", r.Clocks == "pinned", r.Clocks == "default":
			case strings.Contains(r.Clocks, "="):
				clk, err := hardware.ParseClocks(r.Clocks)
				if err != nil {
					c.bad(line, "clocks = %q: %v", r.Clocks, err)
					return
				}
				r.Clocks, r.BoardClocks = "pinned", clk
			default:
				c.bad(line, "clocks = %q: want pinned (every clock at its maximum, as a vendor's benchmark script sets them), default (the board's governors), or the clocks the board ran at (ddr=1968MHz,npu=800MHz)", r.Clocks)
				return
			}
			// size is the model file's size as its source prints it
			// (llama-bench: "2.35 GiB"): the weights are priced at it, as
			// compare prices a llama-bench file's.
			if s := get("size"); s != "" {
				b, err := units.Parse(s, units.DimBytes)
				if err != nil || !(b > 0) {
					c.bad(line, "size = %q is not a size in bytes (e.g. \"2.35 GiB\")", s)
					return
				}
				r.ModelBytes = b
			}
			for k, dst := range map[string]*int{"prompt": &r.Prompt, "gen": &r.Gen, "depth": &r.Depth, "batch": &r.Batch, "ubatch": &r.UBatch} {
				if s := get(k); s != "" {
					v, err := strconv.Atoi(s)
					if err != nil {
						c.bad(line, "%s = %q is not an integer", k, s)
						return
					}
					*dst = v
				}
			}
			v, err := strconv.ParseFloat(get("tokens_per_s"), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				c.bad(line, "tokens_per_s = %q is not a finite number", get("tokens_per_s"))
				return
			}
			r.TokensPerS = v
			c.add(r)
		})
}

// readSpread reads a runs CSV's spread columns: counts of 0 or more (a
// device count of 1 or more), booleans as 0/1, true/false or yes/no.
func readSpread(sp *Spread, get func(string) string) error {
	for _, f := range []struct {
		key string
		dst *int
		min int
	}{{"devices", &sp.Devices, 1}, {"tp", &sp.TP, 1}, {"pp", &sp.PP, 1}, {"gpu_layers", &sp.GPULayers, 0}, {"n_cpu_moe", &sp.NCPUMoE, 0}} {
		s := get(f.key)
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < f.min || v > limits.Tokens {
			return fmt.Errorf("%s = %q: want a whole number from %d to %s", f.key, s, f.min, limits.Count(limits.Tokens))
		}
		*f.dst = v
	}
	sp.GPULayersSet = get("gpu_layers") != ""
	for _, f := range []struct {
		key string
		dst *bool
	}{{"ep", &sp.EP}, {"cpu_moe", &sp.CPUMoE}} {
		switch strings.ToLower(get(f.key)) {
		case "", "0", "false", "no":
		case "1", "true", "yes":
			*f.dst = true
		default:
			return fmt.Errorf("%s = %q: want 0 or 1 (true or false)", f.key, get(f.key))
		}
	}
	return nil
}

// jsonSyntax is a file's JSON that does not decode, at its line and
// column, with safeio's hint.
func jsonSyntax(file, what, text string, offset int64, err error) error {
	err = safeio.JSON([]byte(text), offset, err)
	var je *safeio.JSONError
	if !errors.As(err, &je) || je.Line == 0 {
		return &SyntaxError{File: file, Line: 1, Msg: what + ": " + err.Error(), Err: err}
	}
	return &SyntaxError{File: file, Line: je.Line, Msg: what + ", " + je.At(), Err: err}
}
