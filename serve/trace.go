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
	// output_tokens (and optionally timestamp_s), or JSONL objects with
	// those keys.
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
	if format == AutoFormat {
		head, _ := br.Peek(4096)
		format = sniff(head)
		if format == "" {
			return nil, &RowError{File: file, Line: 1, Msg: "not a trace roofline reads: want an Azure LLM inference CSV (TIMESTAMP,ContextTokens,GeneratedTokens), a BurstGPT CSV, a ShareGPT JSON array, or a CSV/JSONL of prompt_tokens and output_tokens"}
		}
	}
	t := &TraceFile{Format: format}
	var err error
	switch format {
	case ShareGPT:
		err = t.readShareGPT(br, file, most, charsPerToken)
	case Lengths:
		if head, _ := br.Peek(1); len(head) == 1 && head[0] == '{' {
			err = t.readJSONL(br, file, most)
			break
		}
		fallthrough
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

// sniff tells a trace's format from its first bytes.
func sniff(head []byte) TraceFormat {
	s := strings.TrimLeft(string(bytes.TrimPrefix(head, []byte("\ufeff"))), " \t\r\n")
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

// add appends a row, checking its time follows the last one's.
func (t *TraceFile) add(file string, r Row) error {
	if t.Timed && len(t.Rows) > 0 {
		if last := t.Rows[len(t.Rows)-1]; r.At < last.At {
			return &RowError{File: file, Line: r.Line, Msg: fmt.Sprintf("timestamps must not go back: %g s is before line %d's %g s (times from the first request; sort the trace by time)", r.At, last.Line, last.At)}
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
		if err == io.EOF {
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
		if row.Prompt, err = tokenField(file, line, head[pc], p); err != nil {
			return err
		}
		if row.Output, err = tokenField(file, line, head[oc], o); err != nil {
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

// tokenField reads a token count.
func tokenField(file string, line int, name, s string) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v > MaxLength {
		return 0, &RowError{File: file, Line: line, Msg: fmt.Sprintf("%s %q is not a token count 0 … %d", strings.TrimSpace(name), s, MaxLength)}
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
		var obj struct {
			Prompt    *float64 `json:"prompt_tokens"`
			Output    *float64 `json:"output_tokens"`
			Timestamp *float64 `json:"timestamp_s"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			err = safeio.JSON(b, 0, err)
			msg := "not a JSON object: " + err.Error()
			if je := (*safeio.JSONError)(nil); errors.As(err, &je) {
				msg = "not a JSON object, " + je.At()
			}
			return &RowError{File: file, Line: line, Msg: msg, Err: err}
		}
		if obj.Prompt == nil || obj.Output == nil {
			return &RowError{File: file, Line: line, Msg: "an object needs prompt_tokens and output_tokens"}
		}
		if line == 1 || len(t.Rows) == 0 && t.Skipped == 0 {
			t.Timed = obj.Timestamp != nil
		}
		row := Row{Line: line}
		var err error
		if row.Prompt, err = tokenField(file, line, "prompt_tokens", strconv.FormatFloat(*obj.Prompt, 'f', -1, 64)); err != nil {
			return err
		}
		if row.Output, err = tokenField(file, line, "output_tokens", strconv.FormatFloat(*obj.Output, 'f', -1, 64)); err != nil {
			return err
		}
		if t.Timed {
			if obj.Timestamp == nil || *obj.Timestamp < 0 {
				return &RowError{File: file, Line: line, Msg: "every object of a timed trace needs a timestamp_s of 0 or more"}
			}
			row.At = *obj.Timestamp
		}
		if row.Prompt < 1 || row.Output < 1 {
			t.skip("no prompt or no output tokens")
			continue
		}
		if err := t.add(file, row); err != nil {
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

// readShareGPT streams the JSON array entry by entry.
func (t *TraceFile) readShareGPT(br *bufio.Reader, file string, most int, cpt float64) error {
	lim := &entryLimit{r: br, left: MaxTraceEntry}
	dec := json.NewDecoder(lim)
	entry := 0
	var start int64 // where the entry being read begins
	fail := func(err error) error {
		if errors.Is(err, errEntryTooLong) {
			return &RowError{File: file, Entry: entry, Msg: err.Error()}
		}
		err = safeio.JSON(nil, start, err)
		return &RowError{File: file, Entry: entry, Msg: "not a ShareGPT JSON array: " + err.Error(), Err: err}
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
		var e struct {
			Conversations []struct {
				Value string `json:"value"`
			} `json:"conversations"`
		}
		if err := dec.Decode(&e); err != nil {
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
	return nil
}
