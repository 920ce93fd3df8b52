package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// needsUsersFile are the help examples that name a file or directory of
// the user's (or a Hugging Face repository roofline reads from the Hub):
// in a scratch directory without them, each must fail cleanly, naming
// what is missing.
var needsUsersFile = []string{"bench.json", "bench-*.json", "vllm-result.json", "runs.csv", "orin.toml", "./my-", "./Llama-3.2-1B",
	"./Qwen3-4B", "~/models/", "https://", "bartowski/"}

// TestHelpExamples runs every example of every command's help (the
// "Examples:" of docs/cli.md), as written, in a scratch directory where
// docs/ is the repository's, offline. One that needs only roofline and
// its built-in profiles must answer (exit 0, or 3 where the answer finds
// nothing and is printed in full); one that names a user's file must
// fail cleanly: exit 1 or 2, nothing on stdout, the file named.
func TestHelpExamples(t *testing.T) {
	docs, err := filepath.Abs("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(docs, filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("HF_HUB_OFFLINE", "1")
	t.Setenv("HF_HOME", filepath.Join(dir, "hf"))
	var examples []string
	var walk func(cs []*cli.Command)
	walk = func(cs []*cli.Command) {
		for _, c := range cs {
			_, ex, ok := strings.Cut(c.UsageText, "\nExamples:\n")
			for l := range strings.SplitSeq(ex, "\n") {
				if l = strings.TrimSpace(l); ok && strings.HasPrefix(l, "roofline ") {
					examples = append(examples, strings.TrimPrefix(l, "roofline "))
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(newApp(io.Discard, io.Discard).Commands)
	if len(examples) < 40 {
		t.Fatalf("found %d examples in the commands' help, want every one (at least 40)", len(examples))
	}
	for _, args := range examples {
		t.Run(args, func(t *testing.T) {
			out, errOut, code := runCLI(shellWords(t, args)...)
			missing := ""
			for _, f := range needsUsersFile {
				if strings.Contains(args, f) {
					missing = f
				}
			}
			switch {
			case strings.Contains(errOut, "internal error"):
				t.Errorf("roofline %s: %s", args, errOut)
			case missing != "":
				if (code != 1 && code != 2) || out != "" {
					t.Errorf("roofline %s without the user's %s: exit %d, stdout %d bytes, stderr:\n%s", args, missing, code, len(out), errOut)
				}
			case code == 3 && out != "":
			case code != 0:
				t.Errorf("roofline %s: exit %d, stderr:\n%s", args, code, errOut)
			case out == "" && !strings.Contains(errOut, "wrote "):
				t.Errorf("roofline %s wrote nothing; stderr:\n%s", args, errOut)
			}
		})
	}
}

// TestInputFileNotThere: an input file or directory that is not there
// (a measured-run file, a study, a trace, a profile directory) is named
// with "no such file or directory" and a hint to check the path, which
// says where a relative one is read from: not the file system's bare
// "stat bench.json: no such file or directory", which named neither the
// argument nor what to do.
func TestInputFileNotThere(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"compare", "bench.json", "--hardware", "apple-m2-ultra"}, "roofline: bench.json: no such file or directory\n", 1},
		{[]string{"calibrate", "runs.csv", "--hardware", "rtx-4090"}, "roofline: runs.csv: no such file or directory\n", 1},
		{[]string{"plot", "compare", "bench.json", "-o", "c.svg"}, "roofline: bench.json: no such file or directory\n", 1},
		{[]string{"plot", "roofline", "--model", "llama-3.1-8b", "--hardware", "rtx-4090", "--measured", "bench.json", "-o", "r.svg"}, "roofline: bench.json: no such file or directory\n", 1},
		{[]string{"report", "study.toml", "-o", "out"}, "roofline: study.toml: no such file or directory\n", 1},
		// One rule, exit 1, whichever command or flag names the file
		// (serve --trace and show runtime exited 2, as usage errors).
		{[]string{"serve", "--model", "llama-3.2-3b", "--hardware", "rtx-4090", "--trace", "t.csv", "--arrival", "trace"}, "roofline: --trace: t.csv: no such file or directory\n", 1},
		{[]string{"show", "runtime", "my-runtime.toml"}, "roofline: my-runtime.toml: no such file or directory\n", 1},
		{[]string{"predict", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--runtime", "my-runtime.toml"}, "roofline: --runtime: my-runtime.toml: no such file or directory\n", 1},
		{[]string{"plan", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--runtime", "my-runtime.toml"}, "roofline: --runtime: my-runtime.toml: no such file or directory\n", 1},
		{[]string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--runtime", "my-runtime.toml"}, "roofline: --runtime: my-runtime.toml: no such file or directory\n", 1},
		{[]string{"compare", "bench.json", "--hardware", "rtx-4090", "--runtime", "my-runtime.toml"}, "roofline: --runtime: my-runtime.toml: no such file or directory\n", 1},
		{[]string{"--profiles", "./my-profiles", "list", "hardware"}, "roofline: --profiles ./my-profiles: no such file or directory\n", 1},
	} {
		out, errOut, code := runCLI(c.args...)
		hint := "roofline: hint: check the path: a relative one is read from the current directory, " + dir + "\n"
		if code != c.code || out != "" || !strings.HasPrefix(errOut, c.want+hint) {
			t.Errorf("roofline %s: exit %d, stdout %d bytes, stderr:\n%s\nwant exit %d and\n%s%s", strings.Join(c.args, " "), code, len(out), errOut, c.code, c.want, hint)
		}
		// Nothing half-written: no figure (c.svg, r.svg), no report
		// directory (out), nothing else.
		if es, err := os.ReadDir(dir); err != nil || len(es) > 0 {
			t.Errorf("roofline %s left %d entries in its directory (%v)", strings.Join(c.args, " "), len(es), err)
		}
	}
}

// TestJSONCutShort: JSON that ends inside a value (a file cut short:
// `{"x":`) names the file, its line and column and says what to look
// for; it had been encoding/json's bare "unexpected EOF" or "unexpected
// end of JSON input", on line 1 whatever the line.
func TestJSONCutShort(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"cut.json":  `{"x":`,
		"cut2.json": "[{\"prompt_tokens\": 5,\n \"output_tokens\": 3},\n {\"prompt_tokens\":",
		"cut.jsonl": "{\"prompt_tokens\": 5, \"output_tokens\": 3}\n{\"prompt_tokens\":\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const hint = "roofline: hint: a { or [ is not closed, or a value is missing after a ':' or ','"
	serve := []string{"serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--trace"}
	for _, c := range []struct {
		args []string
		want string
	}{
		// `{"x":` is five bytes: it ends at column 6.
		{[]string{"compare", "cut.json", "--hardware", "rtx-4090"}, "roofline: cut.json:1: requests JSON, column 6: the JSON ends inside a value\n"},
		{[]string{"calibrate", "cut.json", "--hardware", "rtx-4090"}, "roofline: cut.json:1: requests JSON, column 6: the JSON ends inside a value\n"},
		// Line 3 is ` {"prompt_tokens":`, 18 bytes: column 19.
		{[]string{"compare", "cut2.json", "--hardware", "rtx-4090"}, "roofline: cut2.json:3: requests JSON, column 19: the JSON ends inside a value\n"},
		{append(serve, "cut.json"), "roofline: cut.json:1: not a JSON object, column 6: the JSON ends inside a value\n"},
		// Line 2 is `{"prompt_tokens":`, 17 bytes: column 18.
		{append(serve, "cut.jsonl"), "roofline: cut.jsonl:2: not a JSON object, column 18: the JSON ends inside a value\n"},
		{append(serve, "cut2.json"), "roofline: cut2.json: entry 2: not a lengths JSON array: the JSON ends inside a value\n"},
		{[]string{"show", "model", "cut.json"}, "roofline: cut.json: config.json: line 1, column 6: the JSON ends inside a value\n"},
	} {
		out, errOut, code := runCLI(c.args...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, c.want+hint) {
			t.Errorf("roofline %s: exit %d, stdout %d bytes, stderr:\n%s\nwant exit 1 and\n%s%s", strings.Join(c.args, " "), code, len(out), errOut, c.want, hint)
		}
	}
}

// TestJSONArrayItemPlace: a syntax error in a later item of a JSON
// array, read item by item (llama-bench's -o json, a ShareGPT trace),
// is told at its own line and column; encoding/json's Decoder counts
// only the items' bytes, and its short offset put it lines early. A
// type error's hint is a line of its own, never an empty "roofline:
// hint: " (as it was printed once).
func TestJSONArrayItemPlace(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		// Line 4 begins with the stray ',' (column 1).
		"bench.json": "[\n {\"build_commit\": \"x\", \"avg_ts\": 1},\n {\"build_commit\": \"x\",\n,\"avg_ts\": 2}\n]\n",
		// Line 2 is ` {"conversations": [{"from": "human", "value": 5}]}`:
		// the 5 is its 48th byte, 0-based byte 49 of the file (after
		// "[\n", 2 bytes), and json points past it, at byte 50.
		"sg.json": "[\n {\"conversations\": [{\"from\": \"human\", \"value\": 5}]}\n]\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, _ := runCLI("compare", "bench.json", "--hardware", "rtx-4090")
	if want := "bench.json:4: malformed JSON, column 1: invalid character ','"; !strings.Contains(errOut, want) {
		t.Errorf("compare bench.json: stderr\n%s\nwant %q", errOut, want)
	}
	_, errOut, code := runCLI("serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--trace", "sg.json")
	if want := "roofline: sg.json: entry 1: not a ShareGPT JSON array: byte 50: conversations.value: a number where a string belongs\nroofline: hint: a string is written in double quotes: \"text\"\n"; code != 1 || errOut != want {
		t.Errorf("serve --trace sg.json: exit %d, stderr\n%s\nwant exit 1 and\n%s", code, errOut, want)
	}
}

// TestTraceTypeWords: a trace whose field has the wrong JSON type is told
// in JSON's words, what is there and what belongs, not Go's spelling of
// the field's type ("[]struct { From string …; Value string … }",
// "float64").
func TestTraceTypeWords(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"conv.json":  "[\n {\"conversations\": 5}\n]\n",
		"value.json": "[\n {\"conversations\": [{\"from\": \"human\", \"value\": [\"a\"]}, {\"from\": \"gpt\", \"value\": \"b\"}]}\n]\n",
		"len.jsonl":  "{\"prompt_tokens\": [1], \"output_tokens\": 3}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ file, want string }{
		// conv.json's 5 is 0-based byte 21 (after "[\n" and ` {"conversations": `,
		// 2 + 19 bytes); json points past it, at 22. len.jsonl's [ is column 19.
		{"conv.json", "roofline: conv.json: entry 1: not a ShareGPT JSON array: byte 22: conversations: a number where an array belongs\n"},
		{"value.json", "roofline: value.json: entry 1: not a ShareGPT JSON array: byte 50: conversations.value: an array where a string belongs\n"},
		{"len.jsonl", "roofline: len.jsonl:1: not a JSON object, column 19: prompt_tokens: an array where a number belongs\n"},
	} {
		out, errOut, code := runCLI("serve", "--model", "llama-3.2-1b", "--hardware", "rtx-4090", "--rate", "1", "--trace", c.file)
		if code != 1 || out != "" || errOut != c.want {
			t.Errorf("serve --trace %s: exit %d, stderr\n%s\nwant exit 1 and\n%s", c.file, code, errOut, c.want)
		}
	}
}

// TestConfigTextConfigPlace: a config.json whose text_config (a
// multimodal model's language model) has a field of the wrong type is
// told at the file's line, under text_config; it counted lines from the
// sub-object (line 5 for the file's 14). A file named config.json is
// named once, by its path.
func TestConfigTextConfigPlace(t *testing.T) {
	gemma, err := os.ReadFile(filepath.Join("..", "..", "model", "testdata", "hf", "gemma-3-4b.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	// Line 14: `    "num_hidden_layers": "34",`, the string at columns 26-29.
	if err := os.WriteFile(file, []byte(strings.Replace(string(gemma), `"num_hidden_layers": 34`, `"num_hidden_layers": "34"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("show", "model", file)
	// The path names the file once (it said FILE: config.json: line 14).
	want := "roofline: " + file + ": line 14, column 29: text_config.num_hidden_layers: a string where a whole number belongs\n" +
		"roofline: hint: numbers, true and false are written without quotes: 34, not \"34\"\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("show model %s: exit %d, stderr\n%s\nwant exit 1 ending\n%s", file, code, errOut, want)
	}
}
