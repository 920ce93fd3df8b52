package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The done-when property of issue 29: no output of any command holds NaN,
// an infinity, a raw control character or a number of more than 17
// significant digits, whatever the input. The inputs are hostile: every
// column of a runs CSV, a llama-bench table and a per-request file, every
// figure of a hardware profile and every count of a model profile set in
// turn to NaN, ±Inf, 1e308, 1e-300, a negative, a 23-digit number and
// terminal control codes; every quantity flag at the edges of its range;
// and the committed fuzz corpora of the measured-run readers. Each runs
// in process, through runProtected, as main runs it.
func TestOutputsArePrintable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Numbers go where a file has a number; control codes everywhere (a
	// note or a format name is text, echoed as the user wrote it,
	// escaped).
	numbers := []string{"NaN", "Inf", "-Inf", "1e308", "1e-300", "-5", "0", "12345678901234567890123"}
	codes := []string{"\x1b]0;x\a\x1b[2J", "\u202e\xff"}
	hostile := append(append([]string{}, numbers...), codes...)
	if raceDetector || testing.Short() {
		numbers = numbers[:3]
		hostile = append(numbers, codes[0])
	}
	formats := []string{"text", "json", "csv", "markdown"}
	var cases [][]string

	// Measured runs: one column at a time.
	measuredFiles := map[string]string{
		"runs.csv": "test,tokens_per_s,model,weights,prompt,gen,batch,depth,size,note,exclude\n" +
			"decode,100,llama-3.2-1b,q4_0,0,128,1,0,0.7 GiB,a note,\nprefill,5000,llama-3.2-1b,q4_0,512,0,1,0,0.7 GiB,,\n",
		"requests.csv": "prompt_tokens,output_tokens,ttft_s,e2e_s,model,weights\n1000,200,0.05,2.1,llama-3.2-1b,q4_0\n",
	}
	if b, err := os.ReadFile("internal/measured/testdata/rtx4080-qwen2.5-7b.csv"); err == nil {
		lines := strings.SplitN(string(b), "\n", 3)
		measuredFiles["bench.csv"] = lines[0] + "\n" + lines[1] + "\n"
	}
	for name, src := range measuredFiles {
		lines := strings.Split(strings.TrimSpace(src), "\n")
		head := strings.Split(lines[0], ",")
		for col := range head {
			values := codes
			if cells := splitCSV(lines[1]); col < len(cells) && isNumber(cells[col]) {
				values = hostile
			}
			for vi, v := range values {
				rows := []string{lines[0]}
				for _, l := range lines[1:] {
					cells := splitCSV(l)
					if col < len(cells) {
						cells[col] = csvCell(v)
					}
					rows = append(rows, strings.Join(cells, ","))
				}
				f := write(fmt.Sprintf("%s-%d-%d", name, col, vi)+filepath.Ext(name), strings.Join(rows, "\n")+"\n")
				for _, fm := range formats {
					cases = append(cases, []string{"compare", f, "--hardware", "rtx-4090", "--model", "llama-3.2-1b", "--format", fm})
				}
			}
		}
	}
	// The committed fuzz corpora of the readers.
	corpora, _ := filepath.Glob("internal/measured/testdata/fuzz/*/*")
	for i, c := range corpora {
		for j, v := range fuzzValues(t, c) {
			f := write(fmt.Sprintf("corpus-%d-%d", i, j), v)
			cases = append(cases, []string{"compare", f, "--hardware", "rtx-4090", "--model", "llama-3.2-1b", "--weights", "q4_0"})
		}
	}

	// A hardware profile: each figure in turn.
	hw, err := os.ReadFile("../../profiles/hardware/rtx-4090.toml")
	if err != nil {
		t.Fatal(err)
	}
	figure := regexp.MustCompile(`value = "([0-9.]+) ([A-Za-z/]+)"`)
	for i, m := range figure.FindAllStringSubmatchIndex(string(hw), -1) {
		unit := string(hw[m[4]:m[5]])
		for vi, v := range hostile {
			src := string(hw[:m[2]]) + tomlEscape(v+" "+unit) + string(hw[m[5]:])
			f := write(fmt.Sprintf("hw-%d-%d.toml", i, vi), src)
			cases = append(cases, []string{"show", "hardware", f}, []string{"predict", "--hardware", f, "--model", "llama-3.2-1b", "--battery-wh", "50"})
		}
	}
	// A model profile: each count in turn.
	model := fmt.Sprintf(tinyModelTOML, "tiny")
	count := regexp.MustCompile(`(?m)^(\w+) = (\d+)$`)
	for i, m := range count.FindAllStringSubmatchIndex(model, -1) {
		for vi, v := range []string{"-1", "0", "9223372036854775807", "1e308", "nan", "inf"} {
			f := write(fmt.Sprintf("model-%d-%d.toml", i, vi), model[:m[4]]+v+model[m[5]:])
			cases = append(cases, []string{"show", "model", f}, []string{"predict", "--hardware", "rtx-4090", "--model", f})
		}
	}

	// Every quantity flag at the edges of its range, and past them.
	p := []string{"predict", "--hardware", "rk3588", "--model", "llama-3.2-1b"}
	for _, flags := range [][]string{
		{"--bw-efficiency", "0.0001"}, {"--bw-efficiency", "1"}, {"--compute-efficiency", "0.0001"}, {"--bw-efficiency", "1e-300"},
		{"--overhead", "1PiB"}, {"--overhead", "1e300B"}, {"--power", "1mW", "--battery-wh", "1000000"}, {"--power", "1MW", "--battery-wh", "0.001"},
		{"--battery-wh", "1e308"}, {"--duty-cycle", "0.01%", "--battery-wh", "1000000", "--power", "1mW"}, {"--idle-power", "1mW", "--power", "1mW"},
		{"--cold", "--storage", "1kB/s"}, {"--cold", "--storage", "100TB/s"}, {"--prompt", "16M", "--output-tokens", "16M"},
		{"--bw-efficiency", "0.0001", "--compute-efficiency", "0.0001", "--battery-wh", "1000000", "--power", "1MW"},
	} {
		for _, fm := range formats {
			cases = append(cases, append(append(append([]string{}, p...), flags...), "--format", fm))
		}
	}
	plan := []string{"plan", "--hardware", "rtx-4090", "--model", "llama-3.2-1b"}
	for _, flags := range [][]string{{"--tpot", "1us"}, {"--tpot", "86400s"}, {"--ttft", "1e300s"}, {"--min-throughput", "1e12"},
		{"--min-throughput", "0.001"}, {"--min-throughput", "1e300"}, {"--context", "16M"}} {
		cases = append(cases, append(append([]string{}, plan...), flags...), append(append(append([]string{}, plan...), flags...), "--format", "json"))
	}
	cases = append(cases, []string{"chat", "--hardware", "rk3588", "--model", "llama-3.2-1b", "--ttft", "1us", "--tpot", "86400s", "--battery-wh", "1000000", "--power", "1mW"})

	for _, args := range cases {
		var out, errb bytes.Buffer
		code := runProtected(append([]string{"roofline"}, args...), &out, &errb)
		if code == exitInternal {
			t.Errorf("%q: exit %d:\n%s", args, code, errb.String())
		}
		for stream, s := range map[string]string{"stdout": out.String(), "stderr": errb.String()} {
			if why := unprintable(s); why != "" {
				t.Errorf("%q: %s %s", args, stream, why)
			}
		}
	}
	t.Logf("%d commands", len(cases))
}

// unprintable says what in s breaks the property, or "".
func unprintable(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return fmt.Sprintf("holds a byte that is not UTF-8 at %d: %q", i, around(s, i))
		case r != '\n' && r != '\t' && !unicode.IsGraphic(r):
			return fmt.Sprintf("holds %U raw at %d: %q", r, i, around(s, i))
		}
	}
	// An input echoed in quotes ("-Inf GiB" is not a bytes) is the
	// user's text, not a figure.
	s = quoted.ReplaceAllString(s, `""`)
	if m := nonFinite.FindStringIndex(s); m != nil {
		return fmt.Sprintf("prints a non-finite number: %q", around(s, m[0]))
	}
	for _, m := range number.FindAllStringIndex(s, -1) {
		n := s[m[0]:m[1]]
		if !strings.Contains(n, ".") {
			n = strings.TrimRight(n, "0") // 18479396271044952000: 17 digits
		}
		digits := strings.TrimLeft(strings.ReplaceAll(n, ".", ""), "0")
		if len(digits) > 17 {
			return fmt.Sprintf("prints a number of %d significant digits: %q", len(digits), around(s, m[0]))
		}
	}
	return ""
}

var (
	// NaN or an infinity as a figure: not inside quotes (an input echoed
	// in an error, "NaN" is not a finite number) nor part of a word.
	nonFinite = regexp.MustCompile(`(^|[^"\w])[+-]?(NaN|Inf|Infinity)([^"\w]|$)`)
	number    = regexp.MustCompile(`\d+(\.\d+)?`)
	quoted    = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)
)

func around(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

// fuzzValues are the string and []byte values of a "go test fuzz v1"
// corpus file.
func fuzzValues(t *testing.T, file string) []string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n")[1:] {
		l = strings.TrimSpace(l)
		for _, p := range []string{"[]byte(", "string("} {
			if v, ok := strings.CutPrefix(l, p); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// splitCSV splits a line of a CSV without quoted commas or quotes
// (llama-bench quotes every cell).
func splitCSV(l string) []string { return strings.Split(l, ",") }

// csvCell quotes v as a CSV cell.
func csvCell(v string) string { return `"` + strings.ReplaceAll(v, `"`, `""`) + `"` }

// tomlEscape escapes control characters as a TOML basic string must.
func tomlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isNumber reports a CSV cell that holds a number.
func isNumber(cell string) bool {
	_, err := strconv.ParseFloat(strings.Trim(cell, `"`), 64)
	return err == nil
}
