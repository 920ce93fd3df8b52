package serve

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/roofline/roofline/safeio"
)

// TraceFormat is the layout of a trace file.
type TraceFormat string

// The formats ReadTrace reads, each as its publishers write it.
const (
	// AutoFormat tells the format from the file's first bytes.
	AutoFormat TraceFormat = "auto"
	// Azure is the Azure LLM inference traces (Azure/AzurePublicDataset,
	// AzureLLMInferenceDataset2023.md and the 2024 week-long release):
	// CSV with TIMESTAMP (a wall-clock time with up to 7 fractional
	// digits), ContextTokens and GeneratedTokens.
	Azure TraceFormat = "azure"
	// BurstGPT is HPMLL/BurstGPT's CSV: Timestamp (seconds from the first
	// day's midnight), [Session ID, Elapsed time,] Model, Request tokens,
	// Response tokens, Total tokens, Log Type. A row with 0 response
	// tokens is a failed request of the trace and is skipped.
	BurstGPT TraceFormat = "burstgpt"
	// ShareGPT is the JSON array vllm bench serve reads
	// (ShareGPT_V3_unfiltered_cleaned_split.json): each entry's
	// conversations[0].value is the prompt and conversations[1].value the
	// completion; entries with fewer than two turns are skipped, and, as
	// vLLM's is_valid_sequence, prompts or completions under 4 tokens,
	// prompts over 1024 and pairs over 2048. Token counts are estimated
	// from the text at CharsPerToken characters per token (no tokenizer).
	ShareGPT TraceFormat = "sharegpt"
	// Lengths is a CSV with a header naming prompt_tokens and
	// output_tokens (and optionally timestamp_s), or objects with those
	// keys as JSONL or in a JSON array (whose first entry's keys tell it
	// from ShareGPT).
	Lengths TraceFormat = "lengths"
)

// TraceFormats are the formats by name.
var TraceFormats = []TraceFormat{AutoFormat, Azure, BurstGPT, ShareGPT, Lengths}

// ParseTraceFormat reads a format's name.
func ParseTraceFormat(s string) (TraceFormat, error) {
	for _, f := range TraceFormats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("%q: unknown trace format (auto, azure, burstgpt, sharegpt or lengths)", s)
}

// DefaultCharsPerToken is the characters per token ShareGPT text is
// counted at: about four for English under the Llama and GPT tokenizers.
const DefaultCharsPerToken = 4.0

// Ceilings of trace reading: a line longer than MaxTraceLine is refused,
// as is a ShareGPT entry longer than MaxTraceEntry; at most MaxRequests
// rows are read (later rows are left unread).
const (
	MaxTraceLine  = 1 << 20
	MaxTraceEntry = 16 << 20
)

// TraceFile is what ReadTrace read.
type TraceFile struct {
	Format TraceFormat
	Rows   []Row
	// Timed is true when the rows carry arrival times.
	Timed bool
	// Skipped counts rows left out (failed requests, invalid lengths), with
	// the reason of the first.
	Skipped    int
	SkipReason string
	// Truncated is true when rows remained after the most asked for.
	Truncated bool
	sniffed   bool   // the format was told from the file (auto)
	first     string // where a lengths trace's first object is, which says whether it is timed
}

// ReadTrace reads up to most rows (0: MaxRequests) of a trace from r,
// named file in errors, which name its line.
func ReadTrace(r io.Reader, file string, format TraceFormat, most int, charsPerToken float64) (*TraceFile, error) {
	if most <= 0 || most > MaxRequests {
		most = MaxRequests
	}
	if !(charsPerToken > 0 && charsPerToken <= 100) {
		return nil, fmt.Errorf("%s: characters per token must be in (0, 100], got %g", file, charsPerToken)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(3); string(head) == "\ufeff" {
		br.Discard(3) // a byte-order mark (Windows editors write one) is not the file's
	}
	sniffed := format == AutoFormat
	if sniffed {
		head, _ := br.Peek(4096)
		format = sniff(head)
		if format == "" {
			return nil, &RowError{File: file, Line: 1, Msg: "not a trace roofline reads: want an Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens), a BurstGPT CSV, a ShareGPT JSON array, or a CSV, JSONL or JSON array of prompt_tokens and output_tokens"}
		}
	}
	t := &TraceFile{Format: format, sniffed: sniffed}
	var err error
	switch format {
	case ShareGPT:
		err = t.readJSONArray(br, file, most, charsPerToken)
	case Lengths:
		// The first byte past blank lines tells JSONL and a JSON array
		// from a CSV (the readers skip the blank lines, and count them).
		head, _ := br.Peek(4096)
		switch s := bytes.TrimLeft(head, " \t\r\n"); {
		case len(s) > 0 && s[0] == '{':
			err = t.readJSONL(br, file, most)
		case len(s) > 0 && s[0] == '[':
			err = t.readJSONArray(br, file, most, charsPerToken)
		default:
			err = t.readCSV(br, file, most)
		}
	default:
		err = t.readCSV(br, file, most)
	}
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		msg := "no requests"
		if t.Skipped > 0 {
			msg += fmt.Sprintf(": all %d rows skipped (%s)", t.Skipped, t.SkipReason)
		}
		return nil, &RowError{File: file, Line: 1, Msg: msg}
	}
	return t, nil
}

// sniff tells a trace's format from its first bytes (a byte-order mark
// already dropped).
func sniff(head []byte) TraceFormat {
	s := strings.TrimLeft(string(head), " \t\r\n")
	first, _, _ := strings.Cut(s, "\n")
	low := strings.ToLower(first)
	switch {
	case strings.HasPrefix(s, "["):
		return ShareGPT
	case strings.HasPrefix(s, "{"), strings.Contains(low, "prompt_tokens"):
		return Lengths
	case strings.Contains(low, "contexttokens"):
		return Azure
	case strings.Contains(low, "request tokens"):
		return BurstGPT
	}
	return ""
}

// skip counts a row left out.
func (t *TraceFile) skip(reason string) {
	if t.Skipped == 0 {
		t.SkipReason = reason
	}
	t.Skipped++
}

// rowError is an error at row r's line, or its entry of a JSON array.
func rowError(file string, r Row, msg string) *RowError {
	return &RowError{File: file, Line: r.Line, Entry: r.Entry, Msg: msg}
}

// place names row r's line or entry ("line 4", "entry 4").
func (r Row) place() string {
	if r.Line == 0 && r.Entry > 0 {
		return fmt.Sprintf("entry %d", r.Entry)
	}
	return fmt.Sprintf("line %d", r.Line)
}

// add appends a row, checking its time follows the last one's.
func (t *TraceFile) add(file string, r Row) error {
	if t.Timed && len(t.Rows) > 0 {
		if last := t.Rows[len(t.Rows)-1]; r.At < last.At {
			return rowError(file, r, fmt.Sprintf("timestamps must not go back: %g s is before %s's %g s (times from the first request; sort the trace by time)", r.At, last.place(), last.At))
		}
	}
	t.Rows = append(t.Rows, r)
	return nil
}

// lineLimit refuses a line longer than MaxTraceLine, so that a file of
// one endless line cannot exhaust memory.
type lineLimit struct {
	r    *bufio.Reader
	file string
	run  int
	line int
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.run = 0
			l.line++
			continue
		}
		if l.run++; l.run > MaxTraceLine {
			return 0, &RowError{File: l.file, Line: l.line + 1, Msg: fmt.Sprintf("a line longer than %d bytes", MaxTraceLine)}
		}
	}
	return n, err
}

// readCSV reads Azure, BurstGPT and lengths CSVs by their header's names.
func (t *TraceFile) readCSV(br *bufio.Reader, file string, most int) error {
	cr := csv.NewReader(&lineLimit{r: br, file: file})
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return csvError(file, err)
	}
	head = slices.Clone(head) // records reuse the slice
	cols := map[string]int{}
	for i, h := range head {
		cols[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	var tc, pc, oc int
	need := func(names ...string) (int, error) {
		for _, n := range names {
			if i, ok := cols[n]; ok {
				return i, nil
			}
		}
		return 0, &RowError{File: file, Line: 1, Msg: fmt.Sprintf("%s trace without a %s column (header: %s)", t.Format, names[0], strings.Join(head, ","))}
	}
	switch t.Format {
	case Azure:
		if tc, err = need("timestamp"); err == nil {
			if pc, err = need("contexttokens"); err == nil {
				oc, err = need("generatedtokens")
			}
		}
	case BurstGPT:
		if tc, err = need("timestamp"); err == nil {
			if pc, err = need("request tokens"); err == nil {
				oc, err = need("response tokens")
			}
		}
	default:
		if pc, err = need("prompt_tokens", "input_tokens"); err == nil {
			oc, err = need("output_tokens")
		}
		tc = -1
		if i, ok := cols["timestamp_s"]; ok {
			tc = i
		} else if i, ok := cols["arrival_s"]; ok {
			tc = i
		}
	}
	if err != nil {
		return err
	}
	t.Timed = tc >= 0
	var t0 time.Time
	t0Line := 0 // the line of the first timestamp; 0: none yet
	for len(t.Rows) < most {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		row := Row{Line: line}
		get := func(i int) (string, error) {
			if i >= len(rec) {
				return "", &RowError{File: file, Line: line, Msg: fmt.Sprintf("%d fields, the header has %d", len(rec), len(head))}
			}
			return strings.TrimSpace(rec[i]), nil
		}
		var p, o string
		if p, err = get(pc); err != nil {
			return err
		}
		if o, err = get(oc); err != nil {
			return err
		}
		if row.Prompt, err = tokenField(file, row, head[pc], p); err != nil {
			return err
		}
		if row.Output, err = tokenField(file, row, head[oc], o); err != nil {
			return err
		}
		if tc >= 0 {
			ts, err := get(tc)
			if err != nil {
				return err
			}
			if t.Format == Azure {
				at, err := time.Parse("2006-01-02 15:04:05.9999999", ts)
				if err != nil {
					return &RowError{File: file, Line: line, Msg: fmt.Sprintf("TIMESTAMP %q is not a time such as 2023-11-16 18:15:46.6805900", ts)}
				}
				if t0Line == 0 {
					t0, t0Line = at, line
				}
				// Seconds from whole seconds and nanoseconds apart: Sub
				// saturates at ±292 years, which a hostile file can span.
				row.At = float64(at.Unix()-t0.Unix()) + float64(at.Nanosecond()-t0.Nanosecond())/1e9
				if row.At < 0 {
					// The first row may be skipped (no output), so add's
					// check against the last kept row cannot see it.
					return &RowError{File: file, Line: line, Msg: fmt.Sprintf("timestamps must not go back: %s is before line %d's, the trace's first (sort the trace by time)", ts, t0Line)}
				}
			} else if row.At, err = strconv.ParseFloat(ts, 64); err != nil || math.IsNaN(row.At) || math.IsInf(row.At, 0) || row.At < 0 {
				return &RowError{File: file, Line: line, Msg: fmt.Sprintf("%s %q is not a time in seconds", head[tc], ts)}
			}
		}
		switch {
		case row.Output < 1:
			t.skip("no output tokens: a failed request of the trace")
			continue
		case row.Prompt < 1:
			t.skip("no prompt tokens")
			continue
		}
		if err := t.add(file, row); err != nil {
			return err
		}
	}
	if _, err := cr.Read(); err == nil {
		t.Truncated = true
	}
	return nil
}

// tokenField reads a token count of row r.
func tokenField(file string, r Row, name, s string) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v > MaxLength {
		return 0, rowError(file, r, fmt.Sprintf("%s %q is not a token count 0 … %d", strings.TrimSpace(name), s, MaxLength))
	}
	return int(v), nil
}

func csvError(file string, err error) error {
	var re *RowError
	if errors.As(err, &re) {
		return re
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &RowError{File: file, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// readJSONL reads one object per line with prompt_tokens, output_tokens
// and optionally timestamp_s.
func (t *TraceFile) readJSONL(br *bufio.Reader, file string, most int) error {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), MaxTraceLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if len(t.Rows) >= most {
			t.Truncated = true
			return nil
		}
		var obj lengthsObject
		if err := json.Unmarshal(b, &obj); err != nil {
			err = safeio.JSON(b, 0, err)
			msg := "not a JSON object: " + err.Error()
			if je := (*safeio.JSONError)(nil); errors.As(err, &je) {
				msg = "not a JSON object, " + je.At()
			}
			return &RowError{File: file, Line: line, Msg: msg, Err: err}
		}
		if err := t.addLengths(file, Row{Line: line}, obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &RowError{File: file, Line: line + 1, Msg: fmt.Sprintf("a line longer than %d bytes", MaxTraceLine)}
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// lengthsObject is a row of a lengths JSONL or JSON array.
type lengthsObject struct {
	Prompt    *float64 `json:"prompt_tokens"`
	Output    *float64 `json:"output_tokens"`
	Timestamp *float64 `json:"timestamp_s"`
	// Conversations is set in a ShareGPT entry, to say so.
	Conversations json.RawMessage `json:"conversations"`
}

// addLengths adds the row at r (its line or entry) that obj gives; the
// first object says whether the trace is timed.
func (t *TraceFile) addLengths(file string, r Row, obj lengthsObject) error {
	if obj.Prompt == nil || obj.Output == nil {
		e := rowError(file, r, "an object needs prompt_tokens and output_tokens")
		if obj.Conversations != nil {
			e.Msg = "a ShareGPT conversation, not an object of prompt_tokens and output_tokens"
			e.hint = "ShareGPT is read as one JSON array ([{\"conversations\": ...}, ...]), as vllm bench serve reads it"
		}
		return e
	}
	if len(t.Rows) == 0 && t.Skipped == 0 {
		t.Timed, t.first = obj.Timestamp != nil, r.place()
	} else if !t.Timed && obj.Timestamp != nil {
		// Not dropped in silence: the first object said the trace is
		// untimed.
		return rowError(file, r, fmt.Sprintf("a timestamp_s, but %s has none: give every object one, or none", t.first))
	}
	var err error
	if r.Prompt, err = tokenField(file, r, "prompt_tokens", strconv.FormatFloat(*obj.Prompt, 'f', -1, 64)); err != nil {
		return err
	}
	if r.Output, err = tokenField(file, r, "output_tokens", strconv.FormatFloat(*obj.Output, 'f', -1, 64)); err != nil {
		return err
	}
	if t.Timed {
		if obj.Timestamp == nil || *obj.Timestamp < 0 {
			return rowError(file, r, "every object of a timed trace needs a timestamp_s of 0 or more")
		}
		r.At = *obj.Timestamp
	}
	if r.Prompt < 1 || r.Output < 1 {
		t.skip("no prompt or no output tokens")
		return nil
	}
	return t.add(file, r)
}

// entryLimit refuses more than MaxTraceEntry bytes read for one JSON
// entry (reset between entries).
type entryLimit struct {
	r    io.Reader
	left int
}

func (l *entryLimit) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errEntryTooLong
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= n
	return n, err
}

var errEntryTooLong = fmt.Errorf("an entry longer than %d bytes", MaxTraceEntry)

// readJSONArray streams a JSON array entry by entry: ShareGPT
// conversations, or lengths objects (prompt_tokens, output_tokens), told
// apart by the first entry's keys. A format given (not auto) that the
// first entry is not is an error at it, and so is an array that does not
// end at its ] and the file with it.
func (t *TraceFile) readJSONArray(br *bufio.Reader, file string, most int, cpt float64) error {
	lim := &entryLimit{r: br, left: MaxTraceEntry}
	dec := json.NewDecoder(lim)
	entry := 0
	var start int64 // where the entry being read begins
	what := "a ShareGPT JSON array"
	cutShort := func() error {
		return &RowError{File: file, Entry: entry, Msg: "not " + what + ": the JSON ends before the array's closing ]", Err: safeio.JSON(nil, -1, io.ErrUnexpectedEOF)}
	}
	fail := func(err error) error {
		if errors.Is(err, errEntryTooLong) {
			return &RowError{File: file, Entry: entry, Msg: err.Error()}
		}
		if errors.Is(err, io.EOF) {
			// Nothing after a comma: the array cut short, not an
			// empty input.
			return cutShort()
		}
		err = safeio.JSON(nil, start, err)
		return &RowError{File: file, Entry: entry, Msg: "not " + what + ": " + err.Error(), Err: err}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return &RowError{File: file, Entry: 1, Msg: "not a ShareGPT JSON array (want [ {\"conversations\": [...]}, ... ])"}
	}
	tokens := func(s string) int { return int(math.Ceil(float64(utf8.RuneCountInString(s)) / cpt)) }
	for dec.More() {
		if len(t.Rows) >= most {
			t.Truncated = true
			return nil
		}
		lim.left = MaxTraceEntry
		entry++
		// More stopped at the entry's '{', or at the ',' before it,
		// which Decode reads past.
		start = dec.InputOffset()
		if entry > 1 {
			start++
		}
		decode := dec.Decode
		if entry == 1 {
			// The first entry's keys tell the array's rows apart.
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return fail(err)
			}
			if err := t.arrayOf(file, raw); err != nil {
				return err
			}
			if t.Format == Lengths {
				what = "a lengths JSON array"
			}
			decode = func(v any) error { return json.Unmarshal(raw, v) }
		}
		if t.Format == Lengths {
			var obj lengthsObject
			if err := decode(&obj); err != nil {
				return fail(err)
			}
			if err := t.addLengths(file, Row{Entry: entry}, obj); err != nil {
				return err
			}
			continue
		}
		var e struct {
			Conversations []struct {
				Value string `json:"value"`
			} `json:"conversations"`
		}
		if err := decode(&e); err != nil {
			return fail(err)
		}
		if len(e.Conversations) < 2 {
			t.skip("fewer than two turns")
			continue
		}
		p, o := tokens(e.Conversations[0].Value), tokens(e.Conversations[1].Value)
		// vLLM's is_valid_sequence: min 4 tokens, prompt ≤ 1024, total ≤ 2048.
		if p < 4 || o < 4 || p > 1024 || p+o > 2048 {
			t.skip("outside vLLM's ShareGPT filter (4 … 1024 prompt tokens, 4 or more output tokens, 2048 in all)")
			continue
		}
		t.Rows = append(t.Rows, Row{Prompt: p, Output: o, Entry: entry})
	}
	// The array ends at its ], and the file with it: one cut short
	// between entries, or followed by more (two arrays run together), is
	// not taken whole.
	lim.left = MaxTraceEntry
	entry++
	if _, err := dec.Token(); errors.Is(err, io.EOF) {
		return cutShort()
	} else if err != nil {
		return fail(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &RowError{File: file, Entry: entry, Msg: "not " + what + ": text after the array's closing ]", hint: "a trace is one JSON array: join two into one ([a, b, …]), or read each on its own"}
	}
	return nil
}

// arrayOf sets the format of a JSON array from its first entry: lengths
// objects have prompt_tokens or output_tokens and no conversations. A
// format given that the entry is not is an error at it (auto comes here
// as ShareGPT, the array sniffed).
func (t *TraceFile) arrayOf(file string, first json.RawMessage) error {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(first, &keys) // not an object: decoding it says so
	_, conv := keys["conversations"]
	_, p := keys["prompt_tokens"]
	_, o := keys["output_tokens"]
	lengths := !conv && (p || o)
	switch {
	case lengths && t.Format == ShareGPT && !t.sniffed:
		return &RowError{File: file, Entry: 1, Msg: "a lengths object (prompt_tokens, output_tokens), not a ShareGPT conversation", hint: "--trace-format lengths (or auto) reads a JSON array of lengths objects"}
	case !lengths && t.Format == Lengths:
		return &RowError{File: file, Entry: 1, Msg: "an object of a lengths array needs prompt_tokens and output_tokens", hint: "a ShareGPT array (conversations) is --trace-format sharegpt (or auto)"}
	case lengths:
		t.Format = Lengths
	}
	return nil
}
