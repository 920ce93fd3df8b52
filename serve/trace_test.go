package serve

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// Samples in each publisher's layout: the Azure 2023 trace's header and
// timestamp form (AzurePublicDataset AzureLLMInferenceDataset2023.md),
// BurstGPT's six columns (HPMLL/BurstGPT README: a row of 0 response
// tokens is a failure) and its session variant, ShareGPT as vllm bench
// serve reads it, and the plain lengths CSV and JSONL.
const (
	azureSample = "TIMESTAMP,ContextTokens,GeneratedTokens\n" +
		"2023-11-16 18:15:46.6805900,374,44\n" +
		"2023-11-16 18:15:50.9951690,396,109\n" +
		"2023-11-16 18:16:46.6805900,2000,500\n"
	burstSample = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"5,ChatGPT,472,18,490,Conversation log\n" +
		"45,ChatGPT,1087,0,1087,Conversation log\n" +
		"45,GPT-4,417,276,693,API log\n" +
		"118,GPT-4,300,20,320,API log\n"
	burstSessions = "Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
		"0.5,abc,1.2,ChatGPT,100,20,120,Conversation log\n"
	lengthsCSV  = "prompt_tokens,output_tokens\n100,20\n200,40\n"
	lengthsJSON = `{"prompt_tokens": 100, "output_tokens": 20, "timestamp_s": 0}
{"prompt_tokens": 300, "output_tokens": 7, "timestamp_s": 1.5}
`
)

const lengthsArray = `[{"prompt_tokens": 100, "output_tokens": 20},
 {"prompt_tokens": 300, "output_tokens": 7}]`

var shareGPTSample = `[
 {"id": "a", "conversations": [{"from": "human", "value": "` + strings.Repeat("x", 400) + `"}, {"from": "gpt", "value": "` + strings.Repeat("y", 803) + `"}]},
 {"id": "b", "conversations": [{"from": "human", "value": "too short"}]},
 {"id": "c", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "` + strings.Repeat("z", 100) + `"}]},
 {"id": "d", "conversations": [{"from": "human", "value": "` + strings.Repeat("é", 80) + `"}, {"from": "gpt", "value": "` + strings.Repeat("w", 40) + `"}]}
]`

func TestReadTrace(t *testing.T) {
	cases := []struct {
		name, src string
		format    TraceFormat
		rows      []Row
		timed     bool
		skipped   int
	}{
		// Azure: seconds after the first request (100 ns ticks).
		{"azure", azureSample, Azure, []Row{{0, 374, 44, 2, 0}, {4.314579, 396, 109, 3, 0}, {60, 2000, 500, 4, 0}}, true, 0},
		// BurstGPT: the failed row (0 response tokens) is skipped; equal
		// seconds arrive together.
		{"burstgpt", burstSample, BurstGPT, []Row{{5, 472, 18, 2, 0}, {45, 417, 276, 4, 0}, {118, 300, 20, 5, 0}}, true, 1},
		{"burstgpt sessions", burstSessions, BurstGPT, []Row{{0.5, 100, 20, 2, 0}}, true, 0},
		// ShareGPT: ⌈chars / 4⌉ tokens; entries with one turn, or under
		// 4 tokens ("hi": 1), are skipped; é counts as one character.
		{"sharegpt", shareGPTSample, ShareGPT, []Row{{0, 100, 201, 0, 1}, {0, 20, 10, 0, 4}}, false, 2},
		{"lengths csv", lengthsCSV, Lengths, []Row{{0, 100, 20, 2, 0}, {0, 200, 40, 3, 0}}, false, 0},
		{"lengths jsonl", lengthsJSON, Lengths, []Row{{0, 100, 20, 1, 0}, {1.5, 300, 7, 2, 0}}, true, 0},
		// The same objects in a JSON array, by entry: the first entry's
		// keys tell it from ShareGPT (it was read as ShareGPT, every
		// entry skipped as "fewer than two turns").
		{"lengths json array", lengthsArray, Lengths, []Row{{0, 100, 20, 0, 1}, {0, 300, 7, 0, 2}}, false, 0},
		// A byte-order mark and blank lines before the first object: it
		// was read as a CSV ("bare \" in non-quoted-field").
		{"lengths jsonl after a byte-order mark", "\ufeff\n\n" + lengthsJSON, Lengths, []Row{{0, 100, 20, 3, 0}, {1.5, 300, 7, 4, 0}}, true, 0},
		{"sharegpt after a byte-order mark", "\ufeff" + shareGPTSample, ShareGPT, []Row{{0, 100, 201, 0, 1}, {0, 20, 10, 0, 4}}, false, 2},
		// Space after the closing ] is no more text.
		{"lengths json array and a newline", lengthsArray + "\n\n", Lengths, []Row{{0, 100, 20, 0, 1}, {0, 300, 7, 0, 2}}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := ReadTrace(strings.NewReader(c.src), "t", AutoFormat, 0, DefaultCharsPerToken)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != c.format || tr.Timed != c.timed || tr.Skipped != c.skipped || len(tr.Rows) != len(c.rows) {
				t.Fatalf("format %s timed %v skipped %d rows %+v", tr.Format, tr.Timed, tr.Skipped, tr.Rows)
			}
			for i, r := range tr.Rows {
				w := c.rows[i]
				if r.Prompt != w.Prompt || r.Output != w.Output || r.Line != w.Line || r.Entry != w.Entry || !near(r.At, w.At, 1e-9) && r.At != w.At {
					t.Errorf("row %d: %+v, want %+v", i, r, w)
				}
			}
		})
	}
	// At most so many rows: the rest is left unread.
	tr, err := ReadTrace(strings.NewReader(azureSample), "t", AutoFormat, 2, DefaultCharsPerToken)
	if err != nil || len(tr.Rows) != 2 || !tr.Truncated {
		t.Errorf("2 rows of 3: %+v, %v", tr, err)
	}
}

// Bad traces are errors at their file and line (or entry), with a hint
// where one helps.
func TestReadTraceErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
		format          TraceFormat // "": auto
		hint            string      // "": any
	}{
		{"unsorted", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:50.0,1,1\n2023-11-16 18:15:49.0,1,1\n", "f.csv:3: timestamps must not go back", "", ""},
		// The first row is skipped (no output): the second still may not
		// go back before it, even by 2027 years (which time.Sub saturates).
		{"before a skipped first row", "TIMESTAMP,ContextTokens,GeneratedTokens\n2027-01-01 0:00:00,1,0\n0000-01-01 0:00:00,1,1\n", "f.csv:3: timestamps must not go back: 0000-01-01 0:00:00 is before line 2's", "", ""},
		{"bad time", "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,1\n", `f.csv:2: TIMESTAMP "yesterday" is not a time`, "", ""},
		{"negative tokens", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,ChatGPT,-3,1,1,x\n", `f.csv:2: Request tokens "-3" is not a token count`, "", ""},
		{"fractional tokens", lengthsCSV + "1.5,2\n", `f.csv:4: prompt_tokens "1.5" is not a token count`, "", ""},
		{"short row", "prompt_tokens,output_tokens\n5\n", "f.csv:2: 1 fields, the header has 2", "", ""},
		{"missing column", "prompt_tokens,tokens_out\n1,2\n", "f.csv:1: lengths trace without a output_tokens column", "", ""},
		{"unknown", "hello,world\n1,2\n", "f.csv:1: not a trace roofline reads", "", ""},
		{"bad json", "[ {\"conversations\": 3} ]", "f.csv: entry 1: not a ShareGPT JSON array", "", ""},
		{"jsonl without lengths", `{"prompt_tokens": 3}` + "\n", "f.csv:1: an object needs prompt_tokens and output_tokens", "", ""},
		{"all failed", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1,ChatGPT,3,0,3,x\n", "f.csv:1: no requests: all 1 rows skipped", "", ""},
		{"endless line", "prompt_tokens,output_tokens\n" + strings.Repeat("1", MaxTraceLine+10), "f.csv:2: a line longer than", "", ""},
		// A lengths array with a quoted count was read as ShareGPT and
		// ended "no requests: all 1 rows skipped (fewer than two turns)".
		// Byte 23 is the value's last byte ('[' is byte 0; the value "12"
		// spans 20-23 of `[{"prompt_tokens": "12"`).
		{"lengths array, a quoted count", `[{"prompt_tokens": "12", "output_tokens": 5}]`, `f.csv: entry 1: not a lengths JSON array: byte 23: prompt_tokens: a string where a number belongs`, "", "without quotes"},
		{"lengths array, an entry without output_tokens", `[{"prompt_tokens": 1, "output_tokens": 1}, {"prompt_tokens": 3}]`, "f.csv: entry 2: an object needs prompt_tokens and output_tokens", "", ""},
		{"lengths array, a fractional count", `[{"prompt_tokens": 1, "output_tokens": 1.5}]`, `f.csv: entry 1: output_tokens "1.5" is not a token count`, "", ""},
		{"lengths array, time going back", `[{"prompt_tokens": 1, "output_tokens": 1, "timestamp_s": 2}, {"prompt_tokens": 1, "output_tokens": 1, "timestamp_s": 1}]`, "f.csv: entry 2: timestamps must not go back: 1 s is before entry 1's 2 s", "", ""},
		{"lengths array read as sharegpt", lengthsArray, "f.csv: entry 1: a lengths object (prompt_tokens, output_tokens), not a ShareGPT conversation", ShareGPT, "--trace-format lengths"},
		{"sharegpt read as lengths", shareGPTSample, "f.csv: entry 1: an object of a lengths array needs prompt_tokens and output_tokens", Lengths, "--trace-format sharegpt"},
		{"sharegpt as jsonl", `{"conversations": [{"value": "hi"}, {"value": "hello"}]}` + "\n", "f.csv:1: a ShareGPT conversation, not an object of prompt_tokens and output_tokens", "", "one JSON array"},
		// A timestamp_s after a first object without one was dropped in
		// silence (the trace read as untimed; --arrival trace then said
		// it "records no arrival times"), where the other way round was
		// an error already.
		{"lengths array, a time after none", `[{"prompt_tokens": 1, "output_tokens": 1}, {"prompt_tokens": 1, "output_tokens": 1, "timestamp_s": 3}]`, "f.csv: entry 2: a timestamp_s, but entry 1 has none: give every object one, or none", "", ""},
		{"lengths jsonl, a time after none", "{\"prompt_tokens\": 1, \"output_tokens\": 1}\n{\"prompt_tokens\": 1, \"output_tokens\": 1, \"timestamp_s\": 3}\n", "f.csv:2: a timestamp_s, but line 1 has none: give every object one, or none", "", ""},
		// An array cut short between entries, or followed by more text
		// (two arrays run together), was read as far as it went and taken
		// whole: the missing entries, or the second array, silently gone.
		{"lengths array without its closing ]", `[{"prompt_tokens": 1, "output_tokens": 1}`, "f.csv: entry 2: not a lengths JSON array: the JSON ends before the array's closing ]", "", "cut short"},
		{"sharegpt without its closing ]", shareGPTSample[:len(shareGPTSample)-1], "f.csv: entry 5: not a ShareGPT JSON array: the JSON ends before the array's closing ]", "", "cut short"},
		{"empty array without its closing ]", "[\n", "f.csv: entry 1: not a ShareGPT JSON array: the JSON ends before the array's closing ]", "", "cut short"},
		// Cut short after a comma (the twin of llama-bench's, dfb19d7):
		// it said "byte 43: no JSON value: the input is empty".
		{"lengths array cut after a comma", `[{"prompt_tokens": 1, "output_tokens": 1},` + "\n", "f.csv: entry 2: not a lengths JSON array: the JSON ends before the array's closing ]", "", "cut short"},
		{"sharegpt cut after a comma", shareGPTSample[:strings.LastIndex(shareGPTSample, "}")+1] + ",", "f.csv: entry 5: not a ShareGPT JSON array: the JSON ends before the array's closing ]", "", "cut short"},
		{"lengths array and more", lengthsArray + "\n" + lengthsArray, "f.csv: entry 3: not a lengths JSON array: text after the array's closing ]", "", "one JSON array"},
		{"sharegpt and more", shareGPTSample + ` x`, "f.csv: entry 5: not a ShareGPT JSON array: text after the array's closing ]", "", "one JSON array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			format := c.format
			if format == "" {
				format = AutoFormat
			}
			_, err := ReadTrace(strings.NewReader(c.src), "f.csv", format, 0, DefaultCharsPerToken)
			var re *RowError
			if err == nil || !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a *RowError containing %q", err, c.want)
			}
			if !strings.Contains(re.Hint(), c.hint) || c.hint != "" && re.Hint() == "" {
				t.Errorf("hint %q, want one containing %q", re.Hint(), c.hint)
			}
		})
	}
}

// A trace of ten million lines is read as far as asked and no further:
// memory holds the rows asked for, not the file.
func TestReadTraceLongFile(t *testing.T) {
	r := &endlessCSV{head: "prompt_tokens,output_tokens\n", row: "100,20\n"}
	tr, err := ReadTrace(r, "big.csv", AutoFormat, 1000, DefaultCharsPerToken)
	if err != nil || len(tr.Rows) != 1000 || !tr.Truncated {
		t.Fatalf("%v, %d rows", err, len(tr.Rows))
	}
	if r.read > 1<<20 {
		t.Errorf("read %d bytes for 1000 rows", r.read)
	}
}

// endlessCSV is a header and then rows without end (10 M lines and more).
type endlessCSV struct {
	head, row string
	buf       bytes.Buffer
	read      int
}

func (e *endlessCSV) Read(p []byte) (int, error) {
	if e.read == 0 {
		e.buf.WriteString(e.head)
	}
	for e.buf.Len() < len(p) {
		e.buf.WriteString(e.row)
	}
	n, _ := e.buf.Read(p)
	e.read += n
	return n, nil
}

var _ io.Reader = (*endlessCSV)(nil)

// FuzzReadTrace feeds the trace reader arbitrary bytes in every format: it
// returns rows or a *RowError, never panics, and every row it returns is a
// request the simulation can take.
func FuzzReadTrace(f *testing.F) {
	for _, s := range []string{azureSample, burstSample, burstSessions, shareGPTSample, lengthsCSV, lengthsJSON, lengthsArray, "", "[", "{", "\ufeffprompt_tokens,output_tokens\n1,1\n", "\ufeff\n" + lengthsJSON, `[{"prompt_tokens": "1"}]`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		tf := TraceFormats[int(format)%len(TraceFormats)]
		tr, err := ReadTrace(bytes.NewReader(data), "fuzz", tf, 100, DefaultCharsPerToken)
		if err != nil {
			if tr != nil {
				t.Fatalf("rows beside an error: %v", err)
			}
			return
		}
		for i, r := range tr.Rows {
			if r.Prompt < 1 || r.Output < 1 || r.Prompt > MaxLength || r.Output > MaxLength || r.At < 0 || r.At != r.At {
				t.Fatalf("row %d: %+v", i, r)
			}
			if tr.Timed && i > 0 && r.At < tr.Rows[i-1].At {
				t.Fatalf("rows out of order: %+v", tr.Rows)
			}
		}
	})
}

// FuzzParseDist: any text gives a distribution that validates, or an
// error; a valid one draws lengths within its bounds.
func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"512", "uniform:128:1024", "normal:512:128", "lognormal:512:256", "uniform:5:1", "x", "normal:1e308:1", "lognormal:1:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDist(s)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("%q parsed to %+v, which does not validate: %v", s, d, err)
		}
		src, _ := newSource(Workload{Arrival: Poisson, Rate: 1, Requests: 20, Prompt: d, Output: d}, 1<<20)
		for range 20 {
			_, p, o, _ := src.pop()
			if p < 1 || o < 1 || p+o > 1<<20 {
				t.Fatalf("%q drew %d + %d", s, p, o)
			}
		}
	})
}
