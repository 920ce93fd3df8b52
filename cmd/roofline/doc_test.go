package main

import (
	"io"
	"os"
	"strings"
	"testing"
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
| 1 | an error: unknown name, bad profile or data file, an input past a limit (docs/profiles.md), impossible configuration |
| 2 | a usage error: bad flag, bad value, missing argument, an output that exists without ` + "`--force`" + `; an unknown runtime, a runtime profile that cannot be read, a runtime or format that cannot run on the engine |
| 3 | an answer that finds nothing, printed in full: ` + "`plan`" + ` found no configuration that meets the targets; ` + "`predict`" + ` or ` + "`chat`" + `: the model does not fit in usable memory (the answer says DOES NOT FIT on its first line; JSON has ` + "`fits: false`" + `) |
| 70 | an internal error (a bug): roofline prints "internal error, please report it" and the stack; please report it with the command |

Messages go to stderr, prefixed ` + "`roofline:`" + `, ` + "`roofline: warning:`" + ` or
` + "`roofline: hint:`" + `; on an error (exit 1, 2 or 70) nothing is written to stdout. URLs in
messages and in output are shown without their user information and query
values (` + "`https://xxxxx@host/m.gguf?token=xxxxx`" + `).

Output files (` + "`plot -o`" + ` and ` + "`--data`" + `, ` + "`calibrate -o`" + `) are written through a temporary
file and renamed, mode 0644; an existing one is replaced only with
` + "`--force`" + `, and never a directory, link or device. ` + "`report -o DIR`" + ` builds the
directory beside DIR and moves it into place (mode 0755); ` + "`--force`" + `
replaces only a directory roofline wrote that holds nothing else
(docs/studies.md). An interrupt (Ctrl-C, SIGTERM) removes what was being
written.

Numbers are decimal: ` + "`--prompt 010`" + ` is ten, and ` + "`0x10`" + `, ` + "`NaN`" + ` or ` + "`Inf`" + ` are refused.

Text output is for people (aligned tables, scaled units: GB/s are decimal,
GiB binary). JSON and CSV are for programs: SI base units (s, B, FLOP, B/s),
full precision, stable keys. A name is accepted wherever a file is, and a path
to a ` + "`.toml`" + ` profile wherever a name is — on the command line. Names
written in measured-run files (a model or hardware column) are only names:
roofline opens no path and fetches no URL such a file mentions unless
` + "`--allow-paths`" + ` is given, and then a relative path is relative to the file.
A study is a file you pass and write for roofline: its devices and models
take local paths as ` + "`--model`" + ` and ` + "`--hardware`" + ` do, relative to the study, and
URLs only with ` + "`--allow-paths`" + ` (docs/studies.md).

` + "`--format`" + ` takes text, markdown (or md), json or csv, in any case; each
command lists the ones it writes. A table is the same in text, Markdown and
CSV: CSV has the columns' keys, values in SI units at full precision.

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
| ` + "`…_margin`" + ` | target / prediction − 1: above 0 the target is met with that share to spare |
| ` + "`…_power_w`, `power_w`, `…_wh`, `joules_per_…`, `hours_of_use`" + ` | watts, watt-hours, joules, hours |
| ` + "`duty_cycle`" + ` | the share of the time a device spends answering, in (0, 1] |

An undefined figure (a TPOT with one output token) is ` + "`null`" + ` in JSON and
empty in CSV.

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
