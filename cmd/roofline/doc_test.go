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

Exit codes: 0 success; 1 an error (unknown name, bad profile, impossible
configuration); 2 a usage error (bad flag, bad value, missing argument).
Messages go to stderr, prefixed ` + "`roofline:`" + `, ` + "`roofline: warning:`" + ` or
` + "`roofline: hint:`" + `; on an error nothing is written to stdout.

Text output is for people (aligned tables, scaled units: GB/s are decimal,
GiB binary). JSON and CSV are for programs: SI base units (s, B, FLOP, B/s),
full precision, stable keys. A name is accepted wherever a file is, and a path
to a ` + "`.toml`" + ` profile wherever a name is.

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
