package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
)

var reportStudies = []string{"../../docs/examples/voice-assistant.toml", "../../docs/examples/llama-bench-rtx4080.toml", "../../docs/examples/voice-assistant-boards.toml", servingStudy}

func runReport(t *testing.T, study string, extra ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report")
	_, errOut, code := runCLI(append([]string{"report", study, "-o", out}, extra...)...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", study, code, errOut)
	}
	return out
}

// TestReportGolden pins report.md of the llama-bench study; -update
// regenerates it.
func TestReportGolden(t *testing.T) {
	out := runReport(t, reportStudies[1])
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report-llama-bench-rtx4080.md", strings.ReplaceAll(string(md), out, "DIR"))
}

func TestReportFiles(t *testing.T) {
	for _, s := range reportStudies {
		out := runReport(t, s)
		// A web server can serve it as it is: directories 0755, files
		// 0644 (under the usual umask 022).
		for p, want := range map[string]os.FileMode{out: 0o755, filepath.Join(out, "plots"): 0o755, filepath.Join(out, "report.html"): 0o644,
			filepath.Join(out, "results.json"): 0o644, filepath.Join(out, "plots", "memory.svg"): 0o644} {
			if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v; want %v", p, fi.Mode().Perm(), want)
			}
		}
		for _, f := range []string{"report.md", "report.html", "results.csv", "results.json"} {
			if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
				t.Errorf("%s: %s missing or empty", s, f)
			}
		}
		var r render.ReportJSON
		js, _ := os.ReadFile(filepath.Join(out, "results.json"))
		if err := json.Unmarshal(js, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Figures) == 0 || len(r.Predictions) == 0 || len(r.Devices) == 0 {
			t.Errorf("%s: %d figures, %d predictions, %d devices", s, len(r.Figures), len(r.Predictions), len(r.Devices))
		}
		for _, f := range r.Figures {
			for _, p := range []string{f.PNG, f.SVG} {
				if _, err := os.Stat(filepath.Join(out, p)); err != nil {
					t.Errorf("%s: figure %s missing", s, p)
				}
			}
		}
		rows, err := csv.NewReader(strings.NewReader(string(must(os.ReadFile(filepath.Join(out, "results.csv")))))).ReadAll()
		if err != nil || len(rows) < 10 {
			t.Fatalf("%s: results.csv: %d rows, %v", s, len(rows), err)
		}
		// Every prediction's TTFT is in results.csv.
		for _, p := range r.Predictions {
			found := false
			for _, row := range rows {
				if row[0] == "predict" && row[1] == p.Result.Inputs.Hardware && row[2] == p.Result.Inputs.Engine && row[3] == p.Result.Inputs.Model &&
					row[4] == p.Result.Inputs.Weights && row[8] == "ttft" && near(atof(t, row[9]), p.Result.TTFT, 1e-9) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: TTFT of %s %s %s not in results.csv", s, p.Result.Inputs.Hardware, p.Result.Inputs.Model, p.Result.Inputs.Weights)
			}
		}
	}
}

// TestReportSelfContained: the HTML must load nothing from anywhere. Its
// links (the sources' URLs, <a href="https://…">) load nothing until a
// reader follows one.
func TestReportSelfContained(t *testing.T) {
	for _, s := range reportStudies {
		out := runReport(t, s)
		h := string(must(os.ReadFile(filepath.Join(out, "report.html"))))
		links := regexp.MustCompile(`<a href="https?://[^"<>]*">`)
		if !links.MatchString(h) {
			t.Errorf("%s: no source is a link", s)
		}
		// Namespace declarations name, not fetch; links load nothing;
		// nothing else may point out.
		stripped := regexp.MustCompile(`xmlns(:\w+)?="[^"]*"`).ReplaceAllString(links.ReplaceAllString(h, "<a>"), "")
		for _, bad := range []string{"<script", "<link", "<iframe", "<img", "<object", "<embed", "src=", "href=", "url(", "@import"} {
			if strings.Contains(strings.ToLower(stripped), bad) {
				t.Errorf("%s: report.html contains %q", s, bad)
			}
		}
		// Sources cite URLs in the text and links; no other tag may hold one.
		for _, tag := range regexp.MustCompile(`<[^>]*>`).FindAllString(stripped, -1) {
			if strings.Contains(tag, "//") {
				t.Errorf("%s: tag %q points somewhere", s, tag)
			}
		}
		r := must(os.ReadFile(filepath.Join(out, "results.json")))
		var rd render.ReportJSON
		json.Unmarshal(r, &rd)
		if n := strings.Count(h, "<svg"); n != len(rd.Figures) {
			t.Errorf("%s: %d inline SVGs for %d figures", s, n, len(rd.Figures))
		}
	}
}

// TestReportChromium opens the three-board, six-model example's
// report.html in headless Chromium when it is installed (chromium(t)):
// the DOM Chromium builds must hold the title, the answer's table with
// its verdicts and intervals, and every default figure — plan,
// tpot-context, ttft-prompt and memory, faceted where more than eight
// series would share a panel — each as an inline SVG with drawn text.
func TestReportChromium(t *testing.T) {
	bin := chromium(t)
	out := runReport(t, reportStudies[2])
	dom := runChromium(t, bin, "--dump-dom", "file://"+filepath.Join(out, "report.html"))
	d := string(dom)
	var r render.ReportJSON
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "results.json"))), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d, "<h1>Voice assistant on a Jetson Orin Nano Super, an RK3588 or a Raspberry Pi 5") {
		t.Errorf("Chromium's DOM lacks the title (%d bytes)", len(d))
	}
	answer := d[strings.Index(d, "<h2>Answer</h2>"):]
	answer = answer[:strings.Index(answer, "<h3>")]
	if rows := strings.Count(answer, "<tr>") - 1; rows != len(r.Plan.Best) || rows != 18 {
		t.Errorf("the answer's table has %d rows; want one per device and model (18)", rows)
	}
	for _, want := range []string{"of them 80% sure", "meets: ", "% under</td>"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer lacks %q", want)
		}
	}
	var kinds []string
	for _, f := range r.Figures {
		kinds = append(kinds, f.Kind)
		i := strings.Index(d, `<figure id="figure-`+f.Kind+`">`)
		if i < 0 {
			t.Errorf("figure %s is not in Chromium's DOM", f.Kind)
			continue
		}
		fig := d[i : i+strings.Index(d[i:], "</figure>")]
		if !strings.Contains(fig, "<svg") || strings.Count(fig, "<text") < 10 {
			t.Errorf("figure %s: no SVG with its text in the DOM", f.Kind)
		}
	}
	if got := strings.Join(kinds, ","); got != "plan,tpot-context,ttft-prompt,memory" {
		t.Errorf("figures %s; want every default one", got)
	}
	if len(r.Notes) > 0 && strings.Contains(strings.Join(r.Notes, "\n"), "no ") && strings.Contains(strings.Join(r.Notes, "\n"), " figure:") {
		t.Errorf("a default figure was skipped: %v", r.Notes)
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.toml", `title = "t"
devices = ["rk3588", "nosuch-board"]
models = ["lama-3.2-3b"]
weights = ["q4_k_x"]

[targets]
ttft = "fast"

[[measured]]
file = "missing.json"
`)
	out := filepath.Join(dir, "out")
	_, errOut, code := runCLI("report", bad, "-o", out)
	for _, want := range []string{"bad.toml:2: devices:", "nosuch-board", "bad.toml:3: models:", "did you mean llama-3.2-3b", "bad.toml:4: weights:", "bad.toml:7: targets.ttft", "bad.toml:10: measured file \"missing.json\""} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, want 1 and %q in:\n%s", code, want, errOut)
		}
	}
	// A failure after work began (an explicit figure that cannot be drawn)
	// leaves no directory, partial or final.
	noMeasured := write("nomeasured.toml", `title = "t"
devices = ["rk3588"]
models = ["llama-3.2-3b"]
plots = ["compare"]
`)
	if _, errOut, code := runCLI("report", noMeasured, "-o", out); code != 1 || !strings.Contains(errOut, "no [[measured]] files") {
		t.Errorf("compare without runs: exit %d, %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("left %s behind", e.Name())
		}
	}
	// An existing directory roofline did not write is never replaced.
	good := write("good.toml", "title = \"t\"\ndevices = [\"rk3588\"]\nmodels = [\"qwen2.5-0.5b\"]\nplots = [\"memory\"]\n")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "old.txt"), []byte("x"), 0o644)
	for _, force := range []string{"--quiet", "--force"} {
		if _, errOut, code := runCLI("report", good, "-o", out, force); code != 2 || !strings.Contains(errOut, "roofline did not write it") {
			t.Errorf("%s on a directory of mine: exit %d, %s", force, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "old.txt")); err != nil {
		t.Error("a refused report removed the user's file")
	}
	// One roofline wrote needs --force, which replaces it and says so.
	os.RemoveAll(out)
	if _, errOut, code := runCLI("report", good, "-o", out); code != 0 {
		t.Fatalf("first report: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runCLI("report", good, "-o", out); code != 2 || !strings.Contains(errOut, "--force replaces it") {
		t.Errorf("existing report: exit %d, %s", code, errOut)
	}
	stdout, errOut, code := runCLI("report", good, "-o", out, "--force")
	if code != 0 || !strings.Contains(stdout, "replaced "+out+" (") {
		t.Fatalf("--force: exit %d, %s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Error("--force wrote no report")
	}
	// A file of the user's in it, or the study itself, blocks --force.
	os.WriteFile(filepath.Join(out, "notes.md"), []byte("mine"), 0o644)
	if _, errOut, code := runCLI("report", good, "-o", out, "--force"); code != 2 || !strings.Contains(errOut, "notes.md") {
		t.Errorf("a foreign file: exit %d, %s", code, errOut)
	}
	os.Rename(filepath.Join(out, "notes.md"), filepath.Join(out, "study.toml"))
	os.WriteFile(filepath.Join(out, "study.toml"), must(os.ReadFile(good)), 0o644)
	if _, errOut, code := runCLI("report", filepath.Join(out, "study.toml"), "-o", out, "--force"); code != 2 || !strings.Contains(errOut, "which this command reads") {
		t.Errorf("the study inside -o: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "study.toml")); err != nil {
		t.Error("the study file is gone")
	}
	for _, args := range [][]string{{"report"}, {"report", good}, {"report", filepath.Join(dir, "none.toml"), "-o", filepath.Join(dir, "x")}} {
		if _, _, code := runCLI(args...); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
}

// TestReportProfiles: a study's own profile directory, relative to the
// study, is loaded and shown in every reproducing command.
func TestReportProfiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "boards"), os.DirFS("testdata/profiles")); err != nil {
		t.Fatal(err)
	}
	study := filepath.Join(dir, "s.toml")
	os.WriteFile(study, []byte("title = \"t\"\nprofiles = [\"boards\"]\ndevices = [\"test-board\"]\nmodels = [\"qwen2.5-0.5b\"]\n"), 0o644)
	out := runReport(t, study)
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	if !strings.Contains(md, "roofline --profiles boards predict --model qwen2.5-0.5b --hardware test-board") {
		t.Errorf("report.md does not reproduce with the study's profiles:\n%s", md)
	}
}

// largeStudy is every built-in device and model over 8 contexts and 9
// batches: 2,210 device engine × model × format groups, 159,120
// configurations, about 250 MB of results.
const largeStudy = `title = "Everything"
devices = ["all"]
models = ["all"]

[workload]
contexts = ["1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"]
batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]

[targets]
ttft = "1s"
tpot = "100ms"
`

// BenchmarkReport times the example reports and the large study.
func BenchmarkReport(b *testing.B) {
	large := filepath.Join(b.TempDir(), "large.toml")
	os.WriteFile(large, []byte(largeStudy), 0o644)
	for _, s := range append(reportStudies, large) {
		b.Run(filepath.Base(s), func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				out := filepath.Join(dir, "r")
				if _, errOut, code := runCLI("report", s, "-o", out, "--force"); code != 0 {
					b.Fatal(errOut)
				}
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestReportPaths: with --allow-paths a study names models and devices by
// everything --model and --hardware take — a checkpoint directory, a
// config.json, a GGUF file, a profile TOML — relative to the study, not to
// the working directory; each is loaded once, before any work, and the
// report's commands say them as written. Without the flag each path is
// refused at its line, with the flag as the hint. A directory is a path
// written as one (./Llama-3.1-8B): the bare name is the built-in alias.
func TestReportPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "boards"), os.DirFS("testdata/profiles")); err != nil {
		t.Fatal(err)
	}
	cfg := must(os.ReadFile(filepath.Join("..", "..", "model", "testdata", "hf", "llama-3.1-8b.json")))
	os.Mkdir(filepath.Join(dir, "Llama-3.1-8B"), 0o755)
	os.WriteFile(filepath.Join(dir, "Llama-3.1-8B", "config.json"), cfg, 0o644)
	os.Mkdir(filepath.Join(dir, "cfg"), 0o755)
	os.WriteFile(filepath.Join(dir, "cfg", "my-8b.json"), cfg, 0o644)
	writeGGUF(t, dir, "llama-3.2-1b", "q4_k_m")
	study := filepath.Join(dir, "s.toml")
	os.WriteFile(study, []byte(`title = "paths"
devices = ["boards/test-board.toml", "rk3588"]
models = ["./Llama-3.1-8B", "cfg/my-8b.json", "./llama-3.2-1b-q4_k_m.gguf"]
plots = ["memory"]

[[measured]]
file = "runs.csv"
hardware = "boards/test-board.toml"
model = "cfg/my-8b.json"
`), 0o644)
	os.WriteFile(filepath.Join(dir, "runs.csv"), []byte("test,prompt,gen,tokens_per_s\ndecode,0,128,5\n"), 0o644)

	// Without --allow-paths: every path refused at its line (the
	// measured-run file itself is read: it is part of the study).
	_, errOut, code := runCLI("report", study, "-o", filepath.Join(dir, "refused"))
	for _, want := range []string{
		`s.toml:2: devices: hardware "boards/test-board.toml" in ` + study + ` is a path or URL`,
		`s.toml:3: models: model "cfg/my-8b.json" in ` + study + ` is a path or URL`, `s.toml:3: models: model "./llama-3.2-1b-q4_k_m.gguf"`,
		`s.toml:3: models: model "./Llama-3.1-8B"`,
		`s.toml:8: measured hardware: hardware "boards/test-board.toml"`, `s.toml:9: measured model: model "cfg/my-8b.json"`,
		"roofline: hint: --allow-paths lets measured-run files and studies name models and devices by path or URL",
	} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, want 1 and %q in:\n%s", code, want, errOut)
		}
	}

	out := runReport(t, study, "--allow-paths")
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	for _, want := range []string{
		"roofline --allow-paths plan --hardware boards/test-board.toml,rk3588 --model ./Llama-3.1-8B,cfg/my-8b.json,./llama-3.2-1b-q4_k_m.gguf",
		"predict --model cfg/my-8b.json --hardware boards/test-board.toml",
		"predict --model ./llama-3.2-1b-q4_k_m.gguf --hardware rk3588",
		"compare runs.csv --hardware boards/test-board.toml --model cfg/my-8b.json",
		"| Llama-3.1-8B |", "| my-8b |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
	// Sources and files as the study writes them, never resolved against
	// its directory.
	res := string(must(os.ReadFile(filepath.Join(out, "results.json"))))
	for _, want := range []string{`"source": "cfg/my-8b.json"`, `"source": "./Llama-3.1-8B/config.json"`,
		`"source": "GGUF header of ./llama-3.2-1b-q4_k_m.gguf"`, `"file": "boards/test-board.toml"`} {
		if !strings.Contains(res, want) {
			t.Errorf("results.json lacks %s", want)
		}
	}
	for _, l := range strings.Split(res+md, "\n") {
		if strings.Contains(l, dir) && !strings.Contains(l, "s.toml") {
			t.Errorf("the study's directory in the report: %s", l)
		}
	}

	// A bad path fails before any work, at its line; a URL is refused
	// without the flag, its credentials never printed.
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"model_type": "mamba", "hidden_size": 10}`), 0o644)
	os.WriteFile(study, []byte(`title = "paths"
devices = ["boards/missing.toml"]
models = ["bad.json"]
`), 0o644)
	o := filepath.Join(dir, "out")
	_, errOut, code = runCLI("report", study, "-o", o, "--allow-paths")
	for _, want := range []string{"s.toml:2: devices:", "missing.toml", "s.toml:3: models:", "mamba"} {
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, want 1 and %q in:\n%s", code, want, errOut)
		}
	}
	os.WriteFile(study, []byte(`title = "paths"
devices = ["rk3588"]
models = ["https://user:secret@example.com/m.gguf"]
`), 0o644)
	_, errOut, code = runCLI("report", study, "-o", o)
	if code != 1 || !strings.Contains(errOut, `s.toml:3: models: model "https://xxxxx@example.com/m.gguf" in `) || strings.Contains(errOut, "secret") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(o); err == nil {
		t.Error("a refused study wrote its directory")
	}
	// A name that is also a directory beside the study is a name.
	os.Mkdir(filepath.Join(dir, "llama-3.2-1b"), 0o755)
	os.WriteFile(filepath.Join(dir, "llama-3.2-1b", "config.json"), []byte("not JSON: never read"), 0o644)
	os.WriteFile(study, []byte(`title = "names"
devices = ["rk3588"]
models = ["llama-3.2-1b"]
figures = []
`), 0o644)
	runReport(t, study)
}

// TestReportAnswer: the Answer table has a row per device and model of
// the plan's best, whose verdict and interval say what results.json's
// numbers say: the verdict word, the target that binds (the smaller margin
// at the slow end) and by how much, its slow and fast ends. A margin m in
// JSON is target / prediction − 1; the text says 1 − 1/(1 + m) under.
func TestReportAnswer(t *testing.T) {
	out := runReport(t, reportStudies[0])
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	var r render.ReportJSON
	if err := json.Unmarshal(must(os.ReadFile(filepath.Join(out, "results.json"))), &r); err != nil {
		t.Fatal(err)
	}
	answer := md[strings.Index(md, "## Answer"):]
	answer = answer[:strings.Index(answer, "\n### ")]
	rows := map[string][]string{}
	for _, l := range strings.Split(answer, "\n") {
		if c := strings.Split(strings.Trim(l, "| "), " | "); len(c) == 8 && c[0] != "device" {
			rows[c[0]+" "+c[1]] = c
		}
	}
	under := func(m float64) string {
		d := 1 - 1/(1+m)
		if d >= 0 {
			return fmt.Sprintf("%.0f%% under", 100*d)
		}
		return fmt.Sprintf("%.0f%% over", -100*d)
	}
	if len(r.Plan.Best) == 0 || len(rows) != len(r.Plan.Best) {
		t.Fatalf("%d rows for %d best configurations:\n%s", len(rows), len(r.Plan.Best), answer)
	}
	verdicts := map[string]int{}
	for _, b := range r.Plan.Best {
		row := rows[b.Hardware+" "+b.Model]
		if row == nil {
			t.Errorf("no row for %s %s", b.Hardware, b.Model)
			continue
		}
		verdicts[b.Verdict]++
		if b.Limit == "memory" {
			if !strings.HasPrefix(row[6], "does not fit") {
				t.Errorf("%s %s: verdict %q for a configuration that does not fit", b.Hardware, b.Model, row[6])
			}
			continue
		}
		name, m, lo, hi := "TTFT", b.TTFTMargin, b.TTFTMarginLow, b.TTFTMarginHigh
		if b.TPOTMarginLow != nil && (lo == nil || *b.TPOTMarginLow < *lo) {
			name, m, lo, hi = "TPOT", b.TPOTMargin, b.TPOTMarginLow, b.TPOTMarginHigh
		}
		if want := fmt.Sprintf("%s: %s %s target", b.Verdict, name, under(*m)); row[6] != want {
			t.Errorf("%s %s: verdict %q; want %q", b.Hardware, b.Model, row[6], want)
		}
		a, z := under(*lo), under(*hi)
		num := func(s string) string { return strings.TrimSuffix(strings.Fields(s)[0], "%") }
		if !strings.Contains(row[7], num(a)) || !strings.Contains(row[7], num(z)) || !strings.Contains(row[7], strings.Fields(a)[1]) {
			t.Errorf("%s %s: interval %q; want its ends %s and %s", b.Hardware, b.Model, row[7], a, z)
		}
		if !strings.Contains(row[5], " of ") {
			t.Errorf("%s %s: memory %q, not needed of usable", b.Hardware, b.Model, row[5])
		}
	}
	// The example is meant to show verdicts of more than one kind.
	if len(verdicts) < 2 {
		t.Errorf("verdicts %v: the example shows one kind only", verdicts)
	}
	if !strings.Contains(answer, "of them 80% sure") {
		t.Error("the answer does not say how sure its verdicts are")
	}
}

// TestReportFigures: the three-board, six-model example draws every
// default figure, faceted, and says so on stderr; a study chooses its
// figures and their facets and settings, which the reproducing command
// carries; a default figure that cannot be drawn is skipped with the
// reason on stderr.
func TestReportFigures(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	_, errOut, code := runCLI("report", reportStudies[2], "-o", out)
	if want := "roofline: figures: plan, tpot-context (6 panels), ttft-prompt (6 panels), memory (6 panels)\n"; code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	if _, errOut, _ := runCLI("report", reportStudies[2], "-o", out+"2", "--quiet"); errOut != "" {
		t.Errorf("--quiet: stderr %q", errOut)
	}

	dir := t.TempDir()
	study := filepath.Join(dir, "s.toml")
	os.WriteFile(study, []byte(`title = "t"
devices = ["jetson-orin-nano-super-8gb", "rk3588"]
models = ["llama-3.2-1b", "qwen2.5-0.5b"]
weights = ["q4_k_m"]
figures = ["tpot-context", "memory"]

[figure.tpot-context]
facet = "model"
max-context = "8k"
`), 0o644)
	out = filepath.Join(dir, "out")
	_, errOut, code = runCLI("report", study, "-o", out)
	if code != 0 || errOut != "roofline: figures: tpot-context (2 panels), memory\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	md := string(must(os.ReadFile(filepath.Join(out, "report.md"))))
	if !strings.Contains(md, "roofline plot tpot-context --model llama-3.2-1b,qwen2.5-0.5b --hardware jetson-orin-nano-super-8gb,rk3588 --weights q4_k_m") ||
		!strings.Contains(md, "--facet model --max-context 8k -o tpot-context.png") {
		t.Errorf("the figure's command lacks its facet and settings:\n%s", md)
	}

	// Every Jetson module in its base mode and its Super profile (the
	// names ending in gb: 6 × 2 engines) × 4 models: a plan of more than
	// 40 rows is skipped by default, with the reason on stderr; the
	// series figures are faceted by device.
	os.WriteFile(study, []byte(`title = "t"
devices = ["jetson-*gb"]
models = ["llama-3.2-1b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b"]
weights = ["q4_k_m"]
`), 0o644)
	_, errOut, code = runCLI("report", study, "-o", filepath.Join(dir, "jetsons"))
	if code != 0 || !strings.Contains(errOut, "roofline: figures: tpot-context (") ||
		!strings.Contains(errOut, "roofline: no plan figure: ") || !strings.Contains(errOut, "rows, at most 40 are legible") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
