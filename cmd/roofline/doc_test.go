package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/profiles"
	"github.com/urfave/cli/v2"
)

// docs/cli.md is generated from the app's own help, so the reference cannot
// drift from the flags. Regenerate with: go test ./cmd/roofline -run TestDocumentation -update
func TestDocumentation(t *testing.T) {
	md, err := newApp(io.Discard, io.Discard).ToMarkdown()
	if err != nil {
		t.Fatal(err)
	}
	got := cliHeader + md
	const path = "../../docs/cli.md"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/cli.md is stale: run go test ./cmd/roofline -run TestDocumentation -update")
	}
}

const cliHeader = `# CLI reference

Generated from the program's own help by ` + "`go test ./cmd/roofline -run TestDocumentation -update`" + `; do not edit by hand.

Exit codes:

| code | meaning |
|---|---|
| 0 | success |
| 1 | an error: unknown name (of a model, device or runtime; a malformed Ollama tag too), an input file that is not there (whichever command or flag names it: ` + "`compare FILE`, `--trace`, `--runtime`, `show runtime FILE`" + `), bad profile (a runtime's too) or data file, an input past a limit (docs/profiles.md), impossible configuration; a model the Hugging Face Hub does not give (gated or private without ` + "`HF_TOKEN`" + `, no network) or a local Ollama store roofline refuses (a manifest pointing outside its blobs) |
| 2 | a usage error: bad flag, bad value, missing argument, an output that exists without ` + "`--force`" + `; a runtime, engine or format that cannot run with the others given; ` + "`--weights`" + ` that contradicts the quantization an Ollama tag spells |
| 3 | an answer that finds nothing, printed in full: ` + "`plan`" + ` found no configuration that meets the targets; ` + "`predict`" + ` or ` + "`chat`" + `: the model does not fit in usable memory (the answer says DOES NOT FIT on its first line; JSON has ` + "`fits: false`" + `) |
| 70 | an internal error (a bug): roofline prints "internal error, please report it" and the stack, or, out of memory under a cgroup's ` + "`memory.max`" + ` or ` + "`ulimit -v`" + `, the memory used and the limit (the runtime's soft memory limit is set below either, docs/profiles.md); please report it with the command |

Messages go to stderr, prefixed ` + "`roofline:`" + `, ` + "`roofline: warning:`" + ` or
` + "`roofline: hint:`" + `; on an error (exit 1, 2 or 70) nothing is written to stdout. URLs in
messages and in output are shown without their user information and any
query or fragment value (` + "`https://xxxxx@host/m.gguf?token=xxxxx`" + `, ` + "`?xxxxx`" + `).
Text that came from outside (a runs file's note, a server's reply, a
study's title, a profile's description) is printed with every character
a terminal would act on escaped as Go quotes it: ` + "`\\x1b`" + ` for ESC,
` + "`\\u202e`" + ` for a right-to-left override, ` + "`\\xff`" + ` for a byte that is
not UTF-8; ` + "`report.md`" + ` shows a study's text as written, never as HTML,
an image or a link.

Output files (` + "`plot -o`" + ` and ` + "`--data`" + `, ` + "`calibrate -o`" + `) are written through a temporary
file and moved into place, mode 0644: a new one is created exclusively (one
another process creates meanwhile is left as it made it, and roofline exits
2), an existing one is replaced only with ` + "`--force`" + `, and never a directory,
link or device. ` + "`report -o DIR`" + ` builds the
directory beside DIR and moves it into place (mode 0755); ` + "`--force`" + `
replaces only a directory roofline wrote that holds nothing else
(docs/studies.md). An interrupt (Ctrl-C, SIGTERM) removes what was being
written.

Input conventions, the same in every command:

- ` + "`-`" + ` reads standard input wherever a file is read, in any position:
  measured runs (` + "`compare -`" + `, ` + "`calibrate -`" + `, ` + "`plot compare -`" + `, ` + "`--measured -`" + `), a
  profile (` + "`--model -`" + `, ` + "`--hardware -`" + `, ` + "`--runtime -`" + `, ` + "`--draft -`" + `, ` + "`show model -`" + `: TOML,
  or a config.json for a model), a study (` + "`report -`" + `). Standard input feeds
  one input per command line.
- Flags may come before or after arguments, the global ` + "`--profiles`" + ` and
  ` + "`--allow-paths`" + ` too; ` + "`--`" + ` ends the flags. ` + "`--profiles`" + ` also comes from the
  environment: ` + "`ROOFLINE_PROFILES=dir1,dir2`" + `.
- Numbers are decimal: ` + "`--prompt 010`" + ` is ten, and ` + "`0x10`" + `, ` + "`NaN`" + ` or ` + "`Inf`" + ` are refused.
- Token counts (` + "`--prompt`" + `, ` + "`--output-tokens`" + `, ` + "`--depth`" + `, ` + "`--ubatch`" + `, ` + "`--context`" + `, the
  chat and plot token flags, a study's contexts) take ` + "`k`" + ` = 1024 and ` + "`M`" + ` = 1024², as
  context lengths are written: ` + "`8k`" + ` is 8192, ` + "`128k`" + ` 131072, ` + "`1M`" + ` 1048576, ` + "`1.5k`" + `
  1536; a count must come out whole. Counts of anything else (` + "`--batch`" + ` in every
  command, ` + "`--users`" + `, ` + "`--requests`" + `, ` + "`--max-chats`" + `, ` + "`--max-batch`" + `) are whole decimals:
  ` + "`--batch 4k`" + ` is refused with the number to write (4096).
- Quantities carry their unit, as in profiles (one parser): durations ` + "`1s`" + `,
  ` + "`200ms`" + `; power ` + "`15W`" + `; sizes ` + "`512MiB`" + `, ` + "`11.7GB`" + `; rates ` + "`90MB/s`" + `. A bare number
  other than 0 is refused (is ` + "`--tpot 200`" + ` seconds or milliseconds?). Shares
  are percentages (` + "`10%`" + `); a flag that names its unit takes a plain number
  (` + "`--battery-wh 50`" + `, ` + "`--min-throughput`" + ` in tokens/s, the efficiencies from 0.0001 to 1).
  Every quantity has a physical range (docs/profiles.md, Limits): ` + "`--tpot 1e300s`" + `
  or ` + "`--bw-efficiency 1e-300`" + ` is a usage error naming the flag and its range.
- A bare name is a name: ` + "`-m llama-3.2-1b`" + ` is the built-in model even where a
  directory ` + "`llama-3.2-1b/`" + ` lies in the working directory; a path is written as
  one (` + "`./ckpt`" + `, ` + "`/models/ckpt`" + `, ` + "`m.gguf`" + `, ` + "`x.toml`" + `), in flags and studies alike.
- A list flag names each item once: two spellings of one device, model or
  format (` + "`rtx-4090,RTX-4090`" + `, an alias such as ` + "`rtx-4090,geforce-rtx-4090`" + `, a profile
  file of a built-in's name, ` + "`q4_k_m,q4-k-m`" + `) are a usage error naming both; a glob or
  ` + "`all`" + ` may take in a device or model another item names.
- An output file is ` + "`-o/--out FILE`" + ` in every command that writes one (report,
  calibrate, plot), replaced only with ` + "`--force`" + `.

Renamed in this release; the old spellings still work, with a warning on
stderr, until the next one: ` + "`--output N`" + ` (predict, plan, plot) is
` + "`--output-tokens N`" + ` (` + "`-n`" + `); ` + "`calibrate --output FILE`" + ` is ` + "`-o/--out FILE`" + `; ` + "`chat --concurrent N`" + `
is ` + "`--max-chats N`" + `, as in ` + "`plot concurrency`" + `; a power, size or rate without its
unit (` + "`--power 15`" + `) is read in W, B or B/s.

Text output is for people (aligned tables, scaled units: GB/s are decimal,
GiB binary). JSON and CSV are for programs: SI base units (s, B, FLOP, B/s),
full precision, stable keys. A name is accepted wherever a file is, and a path
to a ` + "`.toml`" + ` profile wherever a name is — on the command line. Names
written in measured-run files (a model or hardware column) are only names:
roofline opens no path and fetches no URL such a file mentions unless
` + "`--allow-paths`" + ` is given, and then a relative path is relative to the file.
A study is a data file too: its devices and models are names, and take
paths (relative to the study) and URLs as ` + "`--model`" + ` and ` + "`--hardware`" + ` do only with
` + "`--allow-paths`" + `; the measured-run files and profile directories it lists are
read (docs/studies.md).

` + "`--format`" + ` takes text, markdown (or md), json or csv, in any case, in every
command that prints an answer (list, show, predict, chat, serve, plan,
compare, calibrate, version): each writes text, Markdown and JSON, and
predict, serve, plan and compare CSV too (report, plot and completion write
files or a script and take none). A table is the same in text, Markdown and
CSV: CSV has the columns' keys, values in SI units at full precision;
serve's CSV is its requests, one row each. Predict's and plan's CSV carry
their JSON's intervals (predict: the ends, ` + "`interval_level`" + `,
` + "`intervals_widened`" + `, ` + "`read_share`" + `; plan: the margins at the ends,
` + "`confidence`" + `, ` + "`intervals_widened`" + `), after the other columns. Serve's
ranges are whole runs at the interval's ends, not one request's, and are
in its JSON (` + "`interval`" + `, ` + "`max_rate`" + `) only; compare prices no interval.

JSON and CSV keys are one vocabulary across commands:

| key | meaning |
|---|---|
| ` + "`hardware`, `engine`, `runtime`, `model`, `weights`, `kv`" + ` | names: the device, its compute engine, the inference runtime, the model, the weight and KV-cache formats |
| ` + "`prompt`, `output`, `batch`, `depth`, `ubatch`, `context`" + ` | token counts and sequences of the workload |
| ` + "`…_s`" + ` | a time in seconds (` + "`ttft_s`, `tpot_s`, `e2e_s`, `load_s`" + `) |
| ` + "`…_bytes`" + `, ` + "`…_bytes_per_s`" + ` | bytes, bytes per second |
| ` + "`…_tokens_per_s`" + ` | tokens per second (aggregate over a batch unless said) |
| ` + "`…_ops_per_s`" + `, ` + "`…_flops_per_s`" + `, ` + "`…_flop_per_byte`" + ` | operation rates (FLOP/s, or OP/s for integer precisions); arithmetic intensity |
| ` + "`bandwidth_efficiency`, `compute_efficiency`" + ` | the shares of datasheet bandwidth and of the dense peak a prediction assumes, in (0, 1] |
| ` + "`mbu`, `mfu`" + ` | the shares a measured run achieved |
| ` + "`…_margin`" + ` | target / prediction − 1: above 0 the target is met with that share to spare; ` + "`…_margin_low`" + `, ` + "`…_margin_high`" + ` at the slow and fast ends of the interval at ` + "`confidence`" + ` (plan) |
| ` + "`…_interval_s`" + ` (JSON), ` + "`…_low_s`" + `, ` + "`…_high_s`" + ` (CSV: ` + "`ttft`" + `, ` + "`tpot`" + `, ` + "`e2e`" + `, and ` + "`throughput_low_tokens_per_s`" + `, ` + "`throughput_high_tokens_per_s`" + `) | the ends of a prediction's interval, at ` + "`interval_level`" + ` (0.8) |
| ` + "`intervals_widened`" + ` | the intervals (` + "`tpot`" + `, ` + "`e2e`" + `, ` + "`throughput`" + `) widened for an MoE decode held partly out of scope: they cover more than their level ("80% widened" in text); a list in JSON, space-separated in CSV, empty when none |
| ` + "`read_share`" + ` | the share of the device's measured read a GPU's decode streams at (JSON: ` + "`inputs.efficiency.read_share`" + `), as the class or calibration gives it; it applies only where the device has a ` + "`measured_bandwidth`" + ` |
| ` + "`…_power_w`, `power_w`, `…_wh`, `joules_per_…`, `hours_of_use`" + ` | watts, watt-hours, joules, hours |
| ` + "`duty_cycle`" + ` | the share of the time a device spends answering, in (0, 1] |

An undefined figure (a TPOT with one output token) is ` + "`null`" + ` in JSON and
empty in CSV.

Operators (` + "`predict --ops`" + `): JSON adds ` + "`operators`" + `, an attribution of the
predicted time, not a measurement (docs/method.md §6, "Operators"):

| key | meaning |
|---|---|
| ` + "`operators.attribution`" + ` | the rule, in words |
| ` + "`operators.prefill`" + `, ` + "`operators.decode`" + ` | the prefill (every pass: ` + "`time_s`" + ` is TTFT) and the mean decode step (` + "`time_s`" + ` is TPOT; ` + "`null`" + ` with one output token) |
| ` + "`operators.steps[]`" + ` | single decode steps (` + "`time_s`" + ` is the step's ITL); ` + "`step`" + ` says which: ` + "`first`" + `, ` + "`last`" + `, ` + "`longest`" + ` (the largest context the model and memory hold) or ` + "`asked`" + ` (` + "`--ops-at`" + `) |
| ` + "`phase`, `context`, `batch`, `units`, `time_s`, `ideal_time_s`" + ` | a view: prefill, decode or step; the keys a step's queries attend (prefill: cached at its end; decode: the last step's); sequences; passes or steps; its time and ideal bound, which its operators' add up to |
| ` + "`operators[]`" + ` | the view's rows in the order a pass runs them: ` + "`operator`" + ` (` + "`embedding`, `norms`, `q_proj`, `k_proj`, `v_proj`, `qkv_proj`, `q_a_proj`, `q_b_proj`, `kv_a_proj`, `kv_b_proj`, `flash_attention` or `qk_matmul`, `softmax`, `sv_matmul`, `o_proj`, `router`, `gate_proj`, `up_proj`, `gate_up_proj`, `down_proj`, `experts_gate`, `experts_up`, `experts_gate_up`, `experts_down`, `shared_gate`, `shared_up`, `shared_gate_up`, `shared_down`, `final_norm`, `lm_head`" + `, and the rows that are no operator: ` + "`step_overhead`" + ` or ` + "`pass_overhead`" + ` (the fitted fixed cost of a step or pass: sampling, launches, synchronisation), ` + "`layer_overhead`" + `, ` + "`host_ops`" + ` (a runtime's work on the CPU)), ` + "`group`" + ` (its layer kind: ` + "`sliding 4096`" + `, ` + "`global`" + `, ` + "`dense`" + `, ` + "`MoE`" + `, ` + "`layers`" + ` when all are alike; empty outside the blocks), ` + "`layers`" + `, ` + "`window`" + ` (the tokens its attention reads at most; 0: the whole context), ` + "`kv_tokens`" + ` (attention in a step: the tokens of each sequence's cache it reads), ` + "`class`" + ` (` + "`dense`, `experts`, `attention`, `fixed`, `host`" + `), ` + "`types`" + ` (its weights' storage types), ` + "`reads_embedding_table`" + ` (a tied head) |
| ` + "`flops`, `read_bytes.{weights,kv,activations,scores}`, `written_bytes.{activations,scores}`, `intensity_flop_per_byte`" + ` | its work in the view (per step for ` + "`decode`" + `) |
| ` + "`bound`" + ` | ` + "`memory`" + ` or ` + "`compute`" + `: the term its class spends its time on (an operator with none of that term gets 0 s: hidden under the others'), or ` + "`fixed`" + ` |
| ` + "`time_s`, `memory_time_s`, `compute_time_s`, `ideal_time_s`, `share`" + ` | its expected time and the parts from memory and compute terms, its share of the ideal bound, and ` + "`time_s`" + ` over the view's |

CSV with ` + "`--ops`" + ` is those rows, one per operator and view (keys ` + "`phase`, `step`, `context`, `batch`, `group`, `operator`, …, `weight_bytes`, `kv_bytes`, `activation_read_bytes`, `score_read_bytes`, `activation_written_bytes`, `score_written_bytes`, …" + `). ` + "`show model --ops`" + ` adds ` + "`operators[]`" + ` with ` + "`params`, `weight_bytes`, `streamed_bytes_per_token`, `linear_flops_per_token`, `head_flops_per_token`, `kv_bytes_per_token`, `attention_flops_per_context_token`" + ` per operator: bytes and FLOPs with no device. ` + "`compare --ops`" + ` adds to each run
` + "`operators`" + `: ` + "`predicted_s`" + ` and ` + "`measured_s`" + ` (per decode step, or the whole prefill)
and per operator (summed over its layer kinds, largest share first)
` + "`predicted_s`, `share`, `scaled_to_measured_s`" + ` (every operator scaled by the same
factor) and ` + "`alone_explains_gap_factor`" + ` (the factor on its time that alone would
explain the gap; ` + "`null`" + ` when none could): an attribution, not a measurement.

`

// The README's quick-start commands are the ones CI runs; check they parse.
func TestReadmeQuickStart(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(l, "<!-- quickstart -->"):
			in = true
		case strings.Contains(l, "<!-- /quickstart -->"):
			in = false
		case in && strings.HasPrefix(l, "go run ./cmd/roofline "):
			cmds = append(cmds, strings.TrimPrefix(l, "go run ./cmd/roofline "))
		}
	}
	if len(cmds) != 1 {
		t.Fatalf("README quick start has %d roofline commands, want 1", len(cmds))
	}
	out, errOut, code := runCLI(strings.Fields(cmds[0])...)
	if code != 0 || !strings.Contains(out, "TTFT") {
		t.Fatalf("quick start failed: %d %s", code, errOut)
	}
}

// TestReadmeExamples runs every roofline command of the README's code
// blocks, in order, as written, with the built-in profiles, in a scratch
// directory where docs/ is the repository's and a user's file is a
// fixture from testdata: runs.jsonl and the llama-bench output piped into
// compare are the llama.cpp documentation's llama-bench sample (jsonl);
// the Hugging Face Hub is an in-process one holding the repository named.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	bench, err := filepath.Abs("internal/measured/testdata/m2ultra-llama2-7b-q4_0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Abs("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bench)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(docs, filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	// The Hub of the README's Hugging Face example, in process.
	var asked int
	hub := hubServer(t, "bartowski/Llama-3.2-3B-Instruct-GGUF", "abc0000000000000000000000000000000000001", "",
		map[string][]byte{"Llama-3.2-3B-Instruct-Q4_K_M.gguf": ggufBytes(t, "llama-3.2-3b", "q4_k_m"), "Llama-3.2-3B-Instruct-Q8_0.gguf": ggufBytes(t, "llama-3.2-3b", "q8_0")}, &asked)
	t.Setenv("HF_ENDPOINT", hub.URL)
	t.Setenv("HF_HUB_OFFLINE", "0")
	t.Setenv("HF_HOME", filepath.Join(dir, "hf"))
	cmds := readmeCommands(string(readme))
	if len(cmds) < 12 {
		t.Fatalf("found %d roofline commands in README.md, want every one of its examples (at least 12)", len(cmds))
	}
	pipes := 0
	for _, line := range cmds {
		args, stdin := line, ""
		if before, after, ok := strings.Cut(line, "| roofline "); ok {
			if !strings.HasPrefix(before, "llama-bench ") {
				t.Fatalf("README pipes %q into roofline: no fixture for it", before)
			}
			args, stdin = "roofline "+after, bench
			pipes++
		}
		args = strings.TrimPrefix(strings.TrimPrefix(args, "go run ./cmd/roofline "), "roofline ")
		t.Run(args, func(t *testing.T) {
			if stdin != "" {
				f, err := os.Open(stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				saved := os.Stdin
				os.Stdin = f
				defer func() { os.Stdin = saved }()
			}
			out, errOut, code := runCLI(shellWords(t, args)...)
			if code != 0 || out == "" {
				t.Errorf("roofline %s: exit %d, stdout %d bytes, stderr:\n%s", args, code, len(out), errOut)
			}
			if strings.Contains(errOut, "deprecated") {
				t.Errorf("roofline %s uses a deprecated spelling:\n%s", args, errOut)
			}
		})
	}
	if pipes != 1 {
		t.Errorf("README has %d llama-bench pipes, want the one of the quick tour", pipes)
	}
}

// readmeCommands are the command lines of the README's code blocks that
// run roofline: continuation lines joined, trailing comments dropped.
func readmeCommands(md string) []string {
	var cmds []string
	in := false
	var cur string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		cur += l
		if strings.HasSuffix(cur, "\\") {
			cur = strings.TrimSuffix(cur, "\\")
			continue
		}
		line := cur
		cur = ""
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.Join(strings.Fields(line), " ")
		if strings.HasPrefix(line, "roofline ") || strings.HasPrefix(line, "go run ./cmd/roofline ") || strings.Contains(line, "| roofline ") {
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// shellWords splits a command line as sh would for the README's words:
// spaces separate, single quotes group.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// The README's first paragraph counts the built-in models and devices
// ("a model (29 built in", "a device (87 built in", every power mode a
// device of its own, as `roofline list hardware` lists them): the counts
// follow the catalog, so a profile added without the README fails here.
func TestReadmeCounts(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := profiles.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	for _, c := range []struct {
		what string
		n    int
	}{{"a model", len(cat.Models())}, {"a device", len(cat.Devices())}} {
		if want := fmt.Sprintf("%s (%d built in", c.what, c.n); !strings.Contains(text, want) {
			t.Errorf("README does not say %q: the catalog holds %d", want, c.n)
		}
	}
}

// TestCLIHeaderNamesTheCommands: the hand-written head of docs/cli.md
// names the commands that take --format, those of them that write CSV and
// those that write an output file (-o/--out), as the commands' own flags
// say: TestDocumentation keeps the generated reference in step with the
// help, not this prose (which said every command takes --format, and CSV
// only predict, plan and compare, while serve writes CSV and report, plot
// and completion take no --format).
func TestCLIHeaderNamesTheCommands(t *testing.T) {
	var format, csv, out []string
	has := func(c *cli.Command, name string) (cli.Flag, bool) {
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), name) {
				return f, true
			}
		}
		return nil, false
	}
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		// A command takes a flag when it or every one of its subcommands does.
		cmds := c.Subcommands
		if len(cmds) == 0 {
			cmds = []*cli.Command{c}
		}
		takes := func(name string) (usage string, all, any bool) {
			all = true
			for _, s := range cmds {
				f, ok := has(s, name)
				all, any = all && ok, any || ok
				if ok {
					usage += f.String()
				}
			}
			return usage, all, any
		}
		if u, all, _ := takes("format"); all {
			format = append(format, c.Name)
			if strings.Contains(u, "csv") {
				csv = append(csv, c.Name)
			}
		}
		if _, _, any := takes("out"); any {
			out = append(out, c.Name)
		}
	}
	and := func(s []string) string {
		if len(s) < 2 {
			return strings.Join(s, "")
		}
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	for _, want := range []string{
		"in every command that prints an answer (" + strings.Join(format, ", ") + ")",
		"and " + and(csv) + " CSV too",
		"`-o/--out FILE` in every command that writes one (" + strings.Join(out, ", ") + ")",
	} {
		if !strings.Contains(strings.Join(strings.Fields(cliHeader), " "), want) {
			t.Errorf("docs/cli.md's head does not say %q", want)
		}
	}
}
