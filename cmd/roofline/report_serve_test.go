package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
)

// servingStudy asks the household assistant's boards how they hold
// requests arriving at random: two rates and the largest rate meeting the
// targets, on every device engine and format of the plan.
const servingStudy = "../../docs/examples/household-server.toml"

// TestReportServing: a study's [serve] table gives the report a serving
// section (golden: report-serving.md holds it), results.json's serving
// runs with the commands that reproduce them — and serve run by one of
// them answers the same percentiles —, results.csv's serve rows, and the
// serve-rate, serve-cdf and serve-time figures drawn from the runs.
func TestReportServing(t *testing.T) {
	out := runReport(t, servingStudy)
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	start, end := strings.Index(md, "## Serving under load"), strings.Index(md, "## Figures")
	if start < 0 || end < start {
		t.Fatalf("report.md has no serving section:\n%s", md)
	}
	golden(t, "report-serving.md", md[start:end])

	var r render.ReportJSON
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "results.json"))), &r); err != nil {
		t.Fatal(err)
	}
	if r.Serving == nil || len(r.Serving.Configs) != len(r.Predictions) || r.Serving.TargetsFrom != "[targets]" {
		t.Fatalf("serving %+v for %d predictions", r.Serving, len(r.Predictions))
	}
	for _, c := range r.Serving.Configs {
		if len(c.Runs) != 2 || c.Runs[0].Result.MaxRate == nil || c.Runs[1].Result.MaxRate != nil {
			t.Errorf("%s %s %s: %d runs, the first searching: %v", c.Hardware, c.Engine, c.Weights, len(c.Runs), c.Runs[0].Result.MaxRate != nil)
		}
		if m := c.Runs[0].Result.MaxRate; m != nil && (m.Fast == nil || m.Slow == nil || *m.Slow > m.MaxRate || *m.Fast < m.MaxRate) {
			t.Errorf("%s %s: max rate %g outside its range %v – %v", c.Hardware, c.Weights, m.MaxRate, m.Slow, m.Fast)
		}
	}
	// The figures, from the runs, and no plot command for them.
	kinds := map[string]bool{}
	for _, f := range r.Figures {
		kinds[f.Kind] = true
		if strings.HasPrefix(f.Kind, "serve-") && !strings.HasPrefix(f.Command, "roofline serve ") {
			t.Errorf("figure %s: command %q", f.Kind, f.Command)
		}
	}
	for _, k := range []string{"serve-rate", "serve-cdf", "serve-time"} {
		if _, err := os.Stat(filepath.Join(out, "plots", k+".svg")); err != nil || !kinds[k] {
			t.Errorf("figure %s missing", k)
		}
	}
	// results.csv holds each run's p99 TTFT and each search's rate.
	rows := must(csv.NewReader(strings.NewReader(string(must(os.ReadFile(filepath.Join(out, "results.csv")))))).ReadAll())
	find := func(section, hw, eng, weights, metric string) (float64, bool) {
		for _, row := range rows {
			if row[0] == section && row[1] == hw && row[2] == eng && row[4] == weights && row[8] == metric {
				return atof(t, row[9]), true
			}
		}
		return 0, false
	}
	for _, c := range r.Serving.Configs {
		if v, ok := find("serve rate=0.2", c.Hardware, c.Engine, c.Weights, "ttft_p99"); !ok || !near(v, *c.Runs[1].Result.Result.TTFT.P99, 1e-9) {
			t.Errorf("%s %s %s: ttft_p99 %g, %v in results.csv", c.Hardware, c.Engine, c.Weights, v, ok)
		}
		if v, ok := find("serve max-rate", c.Hardware, c.Engine, c.Weights, "max_rate"); !ok || !near(v, c.Runs[0].Result.MaxRate.MaxRate, 1e-9) && v != 0 {
			t.Errorf("%s %s %s: max_rate %g, %v in results.csv", c.Hardware, c.Engine, c.Weights, v, ok)
		}
	}
	// serve, run as the report says, answers the same.
	run := r.Serving.Configs[0].Runs[1]
	args := strings.Fields(strings.TrimPrefix(run.Commands[0], "roofline "))
	stdout, errOut, code := runCLI(append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", run.Commands[0], code, errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatal(err)
	}
	if *j.Result.TTFT.P99 != *run.Result.Result.TTFT.P99 || *j.Result.TPOT.P50 != *run.Result.Result.TPOT.P50 {
		t.Errorf("%s: p99 TTFT %g, p50 TPOT %g; the report's %g, %g", run.Commands[0], *j.Result.TTFT.P99, *j.Result.TPOT.P50, *run.Result.Result.TTFT.P99, *run.Result.Result.TPOT.P50)
	}
}

// TestReportServingTrace: a study's [serve] replays a trace's own arrival
// times and lengths (the trace next to the study): the section says so,
// results.csv's runs are "serve trace", and the command the report gives
// (serve --trace, no --rate) answers the same percentiles.
func TestReportServingTrace(t *testing.T) {
	dir := t.TempDir()
	// 40 requests, one every 2 s, of 100-490 prompt and 20-59 output tokens.
	var b strings.Builder
	b.WriteString("timestamp_s,prompt_tokens,output_tokens\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d,%d\n", 2*i, 100+10*i, 20+i)
	}
	os.WriteFile(filepath.Join(dir, "requests.csv"), []byte(b.String()), 0o644)
	study := filepath.Join(dir, "s.toml")
	os.WriteFile(study, []byte("title = \"t\"\ndevices = [\"jetson-orin-nano-super-8gb\"]\nengines = [\"gpu\"]\nmodels = [\"qwen2.5-1.5b\"]\nweights = [\"q4_k_m\"]\n[serve]\narrival = \"trace\"\ntrace = \"requests.csv\"\n"), 0o644)
	out := runReport(t, study)
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	for _, want := range []string{"### At the trace's own arrival times", "40 requests, arrivals as " + filepath.Join(dir, "requests.csv") + " recorded them", "0.5/s offered"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if csv := string(must(os.ReadFile(filepath.Join(out, "results.csv")))); !strings.Contains(csv, "\nserve trace,jetson-orin-nano-super-8gb,gpu,qwen2.5-1.5b,q4_k_m,") {
		t.Error("results.csv has no serve trace rows")
	}
	var r render.ReportJSON
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "results.json"))), &r); err != nil {
		t.Fatal(err)
	}
	run := r.Serving.Configs[0].Runs[0]
	cmd := run.Commands[0]
	if strings.Contains(cmd, "--rate") || strings.Contains(cmd, "--prompt") || !strings.Contains(cmd, "--trace "+filepath.Join(dir, "requests.csv")) {
		t.Errorf("command %q", cmd)
	}
	stdout, errOut, code := runCLI(append(strings.Fields(strings.TrimPrefix(cmd, "roofline ")), "--format", "json")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
	}
	var j render.ServeJSON
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatal(err)
	}
	if j.Result.Completed != 40 || *j.Result.TTFT.P99 != *run.Result.Result.TTFT.P99 {
		t.Errorf("%s: %d completed, p99 TTFT %g; the report's %g", cmd, j.Result.Completed, *j.Result.TTFT.P99, *run.Result.Result.TTFT.P99)
	}
}

// TestReportServingErrors: a bad [serve] table is refused at its line
// before any work, and a study that asks more serving work than a report
// does, or a scheduler the runtime refuses, at its line once the plan
// knows its configurations; nothing is left behind.
func TestReportServingErrors(t *testing.T) {
	dir := t.TempDir()
	head := "title = \"t\"\ndevices = [\"jetson-orin-nano-super-8gb\", \"rk3588\"]\nmodels = [\"qwen2.5-1.5b\"]\n[serve]\n"
	for _, c := range []struct{ table, want string }{
		{"rate = 1\nusers_ = 3\n", `s.toml:6: unknown key "serve.users_"`},
		{"rate = -0.5\n", "s.toml:5: serve.rate must be a rate above 0 and at most 1e+06 requests/s, got -0.5"},
		{"rate = nan\n", "s.toml:5: serve.rate = NaN: a number must be finite"},
		{"max_rate = true\nrequests = 100000\nsearch_runs = 20\n", "s.toml:4: [serve]: 5 configurations × 6.30 M requests each"},
		{"rate = 1\nmax_seqs = 16\nmax_tokens = 8\n", "s.toml:7: serve.max_tokens a step of 8 tokens cannot decode 16 requests"},
		// What serve refuses, so that the report's commands run: another
		// arrival process's knob, a KV pool of 0 tokens.
		{"rate = 1\ncv = 3\n", `s.toml:6: serve.cv applies to arrival = "gamma"; these arrivals are poisson`},
		{"rate = 1\nusers = 4\n", `s.toml:6: serve.users applies to arrival = "closed"; these arrivals are poisson`},
		{"arrival = \"gamma\"\nrate = 1\nthink = \"1s\"\n", `s.toml:7: serve.think applies to arrival = "closed"; these arrivals are gamma`},
		{"rate = 1\nkv_tokens = 0\n", "s.toml:6: serve.kv_tokens 0: want a KV pool above 0 tokens"},
	} {
		study := filepath.Join(dir, "s.toml")
		os.WriteFile(study, []byte(head+c.table), 0o644)
		out := filepath.Join(dir, "out")
		if _, errOut, code := runCLI("report", study, "-o", out); code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, want 1 and %q in:\n%s", c.table, code, c.want, errOut)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				t.Errorf("%q left %s behind", c.table, e.Name())
			}
		}
	}
}

// TestReportServingWidened: where a study's run has an MoE decode whose
// interval is widened (sim.Interval.Widened), the serving section says
// "80% widened" for it, as predict and serve do; it said "80%" for every
// study.
func TestReportServingWidened(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "s.toml")
	os.WriteFile(study, []byte("title = \"t\"\ndevices = [\"rtx-4090\"]\nengines = [\"gpu\"]\nmodels = [\"qwen2.5-1.5b\", \"qwen3-30b-a3b\"]\nweights = [\"q4_k_m\"]\nruntimes = [\"llama.cpp\"]\n[serve]\nrequests = 20\nrate = 1.0\n"), 0o644)
	out := runReport(t, study)
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	start := strings.Index(md, "## Serving under load")
	if start < 0 {
		t.Fatalf("report.md has no serving section:\n%s", md)
	}
	md = md[start:]
	for _, want := range []string{"the prediction's 80% interval", "80% widened", "qwen3-30b-a3b q4_k_m on rtx-4090"} {
		if !strings.Contains(md, want) {
			t.Errorf("the serving section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "qwen2.5-1.5b q4_k_m on rtx-4090") {
		t.Errorf("the dense model's interval is said to be widened:\n%s", md)
	}
}
