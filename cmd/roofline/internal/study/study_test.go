package study

import (
	"path/filepath"

	"github.com/roofline/roofline/limits"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `title = "t"
devices = ["rk3588"]
models = ["llama-3.2-3b"]
profiles = ["boards"]
plots = ["plan", "memory"]

[workload]
prompt = 200
depth = 1000
contexts = ["2k", "8k"]
batches = [1, 2]

[targets]
ttft = "1s"
min_throughput = 5.5

[[measured]]
file = "runs/bench.json"
hardware = "rk3588"
`
	s, err := Parse(filepath.Join("studies", "a.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workload
	// Unset keys keep predict's defaults: output 128, batch 1, ubatch 0
	// (each runtime's own passes).
	if w.Prompt != 200 || w.Output != 128 || w.Batch != 1 || w.Depth != 1000 || w.UBatch != 0 || len(w.Contexts) != 2 || len(w.Batches) != 2 {
		t.Errorf("workload %+v", w)
	}
	if s.Targets.TTFT != "1s" || s.Targets.MinThroughput != 5.5 || s.Targets.TPOT != "" {
		t.Errorf("targets %+v", s.Targets)
	}
	if len(s.Measured) != 1 || s.Measured[0].File != filepath.Join("studies", "runs", "bench.json") || s.Measured[0].Raw != "runs/bench.json" {
		t.Errorf("measured %+v", s.Measured)
	}
	if s.Profiles[0] != filepath.Join("studies", "boards") {
		t.Errorf("profiles %v", s.Profiles)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		{`title = "t"
devices = ["a"]
models = ["m"]
colour = "red"`, []string{"a.toml:4: unknown key \"colour\" (check the spelling against docs/studies.md)"}},
		{`devices = []`, []string{"title is required", "a.toml:1: devices is required", "models is required"}},
		{`title = "t"
devices = ["a"]
models = ["m"]
plots = ["pie"]
[workload]
prompt = 0
batches = [0]
[targets]
min_throughput = -1
[[measured]]
hardware = "x"`, []string{"a.toml:4: plots: unknown figure \"pie\"", "a.toml:6: workload.prompt must be 1", "workload.batches must be at least 1", "a.toml:9: targets.min_throughput", "needs file"}},
		{`title = "t`, []string{"a.toml:1:"}},
		{`title = 5`, []string{"a.toml"}},
	}
	for _, c := range cases {
		_, err := Parse("a.toml", []byte(c.src))
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q:\n%v\nwant %q", c.src, err, w)
			}
		}
	}
}

func TestLineOfValue(t *testing.T) {
	src := []byte("title = \"t\"\ndevices = [\n  \"rk3588\",\n  'nosuch',\n]\n")
	if LineOfValue(src, "rk3588") != 3 || LineOfValue(src, "nosuch") != 4 || LineOfValue(src, "x") != 0 {
		t.Error("LineOfValue")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("title = \"t\"\ndevices = [\"rk3588\"]\nmodels = [\"m\"]\n[workload]\nprompt = 5\n[[measured]]\nfile = \"x\"\n"))
	f.Add([]byte("[targets]\nttft = \"1s\"\n"))
	f.Add([]byte("title = \"t\"\ndevices = [\"rk3588\"]\nmodels = [\"m\"]\n[serve]\nrate = [0.5, 2]\nmax_rate = true\nprompt = \"uniform:1:9\"\nchunked_prefill = \"on\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse("f.toml", src)
		if err == nil && (s.Title == "" || len(s.Devices) == 0 || len(s.Models) == 0 || s.Workload.Prompt < 1 || s.Workload.UBatch < 0) {
			t.Errorf("accepted an incomplete study: %+v", s)
		}
		// An accepted [serve] table is a workload serve accepts, within
		// the report's bounds.
		if err == nil && s.Serve != nil {
			sv := s.Serve
			if werr := sv.Request.Workload.Validate(); werr != nil || sv.Request.Workload.Requests > limits.ReportServeRequests || len(sv.Rates) > limits.ReportServeRates {
				t.Errorf("accepted [serve] %+v: %v", sv.Request.Workload, werr)
			}
		}
	})
}

// The figures a study may ask for are the plot command's, from one
// registry; speculative needs a draft; [figure.KIND] tables set a drawn
// figure's facets and params, as the plot command's flags take them.
func TestFigures(t *testing.T) {
	base := "title = \"t\"\ndevices = [\"rk3588\"]\nmodels = [\"llama-3.2-3b\"]\n"
	for _, c := range []struct {
		extra, want string
	}{
		{"figures = [\"concurrency\", \"batch\"]\n", ""},
		{"plots = [\"concurrency\", \"batch\"]\n", ""},
		{"figures = [\"pie\"]\n", `a.toml:4: figures: unknown figure "pie" (figures: roofline, tpot-context`},
		{"figures = [\"memory\", \"memory\"]\n", "memory listed twice"},
		{"figures = [\"memory\"]\nplots = [\"memory\"]\n", "give figures only"},
		{"figures = [\"speculative\"]\n", "names no draft"},
		{"figures = [\"speculative\"]\ndraft = \"llama-3.2-1b\"\n", ""},
		{"[figure.tpot-context]\nfacet = \"Model\"\nmax-context = \"16k\"\n", ""},
		{"figures = [\"memory\"]\n[figure.tpot-context]\nfacet = \"model\"\n", "a.toml:5: [figure.tpot-context] sets a figure the study does not draw (it draws memory)"},
		{"[figure.memory]\nfacet = \"colour\"\n", `a.toml:5: figure.memory.facet: "colour", want one or two of device, engine, model, weights, kv`},
		{"[figure.plan]\nfacet = \"model\"\n", "the plan figure has no facets"},
		{"[figure.memory]\nmax-batch = 3\n", "figure.memory.max-batch: the memory figure has no such setting (it has facet, context)"},
		{"figures = [\"batch\"]\n[figure.batch]\nmax-batch = \"lots\"\n", `"lots" is not a whole number`},
		{"[figure.pie]\nfacet = \"model\"\n", "[figure.pie]: unknown figure"},
		{"[figure.memory]\nfacet = 1.5\n", "want a string, a whole number or true or false"},
		{"[figure.tpot-context]\nlog-y = \"maybe\"\n", `figure.tpot-context.log-y: "maybe": want true or false`},
		{"[figure.memory]\nlog-y = true\n", "the memory figure has no such setting"},
	} {
		st, err := Parse("a.toml", []byte(base+c.extra))
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.extra, err, c.want)
		}
		if c.want == "" && strings.Contains(c.extra, "max-context") {
			if o := st.FigureOptions["tpot-context"]; o.Facet != "model" || o.Params["max-context"] != "16k" {
				t.Errorf("options %+v", o)
			}
		}
	}
	// Token counts in whole-number settings take k, as the flags do.
	st, err := Parse("a.toml", []byte(base+"figures = [\"concurrency\"]\n[figure.concurrency]\nmax-chats = 64\n"))
	if err != nil || st.FigureOptions["concurrency"].Params["max-chats"] != "64" {
		t.Errorf("max-chats: %v %+v", err, st.FigureOptions)
	}
	// log-y = true (a TOML boolean) is the plot command's --log-y.
	st, err = Parse("a.toml", []byte(base+"[figure.tpot-context]\nlog-y = true\n[figure.ttft-prompt]\nlog-y = false\n"))
	if err != nil || st.FigureOptions["tpot-context"].Params["log-y"] != "true" || st.FigureOptions["ttft-prompt"].Params["log-y"] != "false" {
		t.Errorf("log-y: %v %+v", err, st.FigureOptions)
	}
}

// TestStudyReportsEveryError: one unknown key hid the study's other
// errors (the user fixed the key, ran again, and met the next one). Every
// problem of the file now comes at once, each at its line.
func TestStudyReportsEveryError(t *testing.T) {
	src := `title = "x"
devices = ["rk3588"]
models = ["llama-3.2-1b"]
colour = "red"
[workload]
prompt = -5
[targets]
ttft = "fast"
`
	_, err := Parse("bad.toml", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`bad.toml:4: unknown key "colour"`, "bad.toml:6: workload.prompt must be", `bad.toml:8: targets.ttft: "fast"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q missing from:\n%v", want, err)
		}
	}
}
