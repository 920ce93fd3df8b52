package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/serve"
)

const serveBase = "title = \"t\"\ndevices = [\"rk3588\"]\nmodels = [\"qwen2.5-1.5b\"]\n[workload]\nprompt = 200\noutput = 100\n"

// TestParseServe: [serve]'s keys are serve's flags with _ for -, their
// values as the flags take them; what the table leaves out is serve's
// default, the study's lengths and targets.
func TestParseServe(t *testing.T) {
	for _, c := range []struct {
		name, table, targets string
		check                func(t *testing.T, s *Serve)
	}{
		{"defaults", "rate = 0.5", "", func(t *testing.T, s *Serve) {
			w := s.Request.Workload
			// The study's 200 + 100 tokens, 1,000 requests (serve's and
			// plan --rate's), seed 1, serve's targets 1 s and 200 ms.
			if w.Arrival != serve.Poisson || w.Rate != 0.5 || w.Requests != 1000 || w.Seed != 1 || w.Prompt.A != 200 || w.Output.A != 100 {
				t.Errorf("workload %+v", w)
			}
			if s.Request.Targets != (serve.Targets{TTFT: 1, TPOT: 0.2}) || s.TargetsFrom != "serve's defaults" || s.MaxRate || s.Request.SearchRuns != 0 {
				t.Errorf("targets %+v from %s, search %v %d", s.Request.Targets, s.TargetsFrom, s.MaxRate, s.Request.SearchRuns)
			}
			// The run's work: one run at three step times.
			if s.work() != 3000 {
				t.Errorf("work %d, want 3 × 1000", s.work())
			}
		}},
		{"rates and search", "rate = [0.1, 2]\nmax_rate = true\nsearch_runs = 10\nrequests = 500", "[targets]\nttft = \"2s\"\n", func(t *testing.T, s *Serve) {
			if len(s.Rates) != 2 || s.Rates[1] != 2 || !s.MaxRate || s.Request.SearchRuns != 10 || !s.Request.SearchInterval || s.Request.AtMaxRate {
				t.Errorf("rates %v, max rate %v, runs %d", s.Rates, s.MaxRate, s.Request.SearchRuns)
			}
			// [targets] gives TTFT 2 s; TPOT is serve's 200 ms.
			if s.Request.Targets != (serve.Targets{TTFT: 2, TPOT: 0.2}) || s.TargetsFrom != "[targets]" {
				t.Errorf("targets %+v from %s", s.Request.Targets, s.TargetsFrom)
			}
			// 2 rates × 3 + 10 search runs × 3, of 500 requests: 18,000.
			if s.work() != 18000 {
				t.Errorf("work %d, want 18000", s.work())
			}
		}},
		{"max rate alone", "max_rate = true\nttft = \"500ms\"", "", func(t *testing.T, s *Serve) {
			if len(s.Rates) != 0 || !s.Request.AtMaxRate || s.Request.SearchRuns != ServeSearchRuns || s.Request.Targets.TTFT != 0.5 || s.TargetsFrom != "[serve]" {
				t.Errorf("%+v", s)
			}
		}},
		{"closed loop and scheduler", `arrival = "closed"
users = 4
think = "10s"
prompt = "uniform:1100:1300"
output_tokens = 64
shared_prefix = "1k"
max_seqs = 4
max_tokens = "2k"
chunked_prefill = "off"
prefix_caching = true
async_scheduling = "off"
on_kv_full = "reserve"
slot_context = "divided"
kv_tokens = 8192
memory_share = 0.5
policy = "continuous"
block_size = 32
seed = 7`, "", func(t *testing.T, s *Serve) {
			w, ch := s.Request.Workload, s.Request.Scheduler
			if w.Arrival != serve.Closed || w.Users != 4 || w.Think != 10 || w.Prompt.Kind != serve.Uniform || w.Output.A != 64 || w.SharedPrefix != 1024 || w.Seed != 7 {
				t.Errorf("workload %+v", w)
			}
			if ch.MaxSeqs != 4 || ch.MaxTokens != 2048 || *ch.Chunked || !*ch.PrefixCaching || ch.Async == nil || *ch.Async || ch.OnFull != runtimes.Reserve || !*ch.DividedContext ||
				ch.Policy != runtimes.Continuous || ch.BlockSize != 32 || s.Request.KVTokens != 8192 || s.Request.MemoryShare != 0.5 {
				t.Errorf("scheduler %+v, kv %d, share %g", ch, s.Request.KVTokens, s.Request.MemoryShare)
			}
			// The reproducing flags say the table as serve takes it.
			args := strings.Join(s.Args, " ")
			for _, want := range []string{"--arrival closed", "--users 4", "--think 10s", "--prompt uniform:1100:1300", "--output-tokens 64", "--shared-prefix 1k",
				"--chunked-prefill off", "--prefix-caching on", "--async-scheduling off", "--on-kv-full reserve", "--slot-context divided", "--memory-share 0.5", "--seed 7", "--ttft 1s", "--tpot 200ms"} {
				if !strings.Contains(args, want) {
					t.Errorf("args %q lack %q", args, want)
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := Parse("a.toml", []byte(serveBase+c.targets+"[serve]\n"+c.table+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, st.Serve)
		})
	}
	if st, err := Parse("a.toml", []byte(serveBase)); err != nil || st.Serve != nil {
		t.Errorf("a study without [serve]: %v, %+v", err, st.Serve)
	}
}

// TestParseServeErrors: every bad value of [serve] at its line, with
// serve's own validation of the workload.
func TestParseServeErrors(t *testing.T) {
	// [serve] is line 7, its first key line 8.
	for _, c := range []struct{ table, want string }{
		{"rate = 1\ncolour = \"red\"", `a.toml:9: unknown key "serve.colour"`},
		{"rate = 1\noutput-tokens = 5", `a.toml:9: unknown key "serve.output-tokens"`},
		{"rate = -1", "a.toml:8: serve.rate must be a rate above 0 and at most 1e+06 requests/s, got -1"},
		{"rate = 0", "a.toml:8: serve.rate must be a rate above 0"},
		{"rate = 2e6", "a.toml:8: serve.rate must be a rate above 0 and at most 1e+06"},
		{"rate = nan", "a.toml:8: serve.rate = NaN: a number must be finite"},
		{"rate = [1, inf]", "a.toml:8: serve.rate = +Inf: a number must be finite"},
		{"rate = \"fast\"", "a.toml:8: serve.rate: fast is not a rate"},
		{"rate = [1, 2, 3, 4, 5, 6, 7, 8, 9]", "a.toml:8: serve.rate: give 1 … 8 rates, got 9"},
		{"requests = 10", "a.toml:7: [serve]: rate is required for poisson arrivals"},
		{"rate = 1\nrequests = 200000", "a.toml:9: serve.requests must be 1 … 100000, got 200000"},
		{"rate = 1\nrequests = 0", "a.toml:9: serve.requests must be 1 … 100000, got 0"},
		{"max_rate = true\nsearch_runs = 50", "a.toml:9: serve.search_runs must be 4 … 20, got 50"},
		{"rate = 1\nsearch_runs = 10", "a.toml:9: serve.search_runs sets the max-rate search: add max_rate = true"},
		{"arrival = \"closed\"\nrate = 1", "a.toml:9: serve.rate: a closed loop has no arrival rate"},
		{"arrival = \"closed\"\nmax_rate = true", "a.toml:9: serve.max_rate: a closed loop has no arrival rate to search"},
		{"arrival = \"trace\"\nrate = 1", `a.toml:8: serve.arrival = "trace" needs trace = "FILE"`},
		{"rate = 1\ntrace_format = \"azure\"", `a.toml:9: serve.trace_format needs trace = "FILE"`},
		{"rate = 1\ntrace = \"no-such-trace.csv\"", "a.toml:9: serve.trace: "},
		{"rate = 1\ntrace = \"x.csv\"\ntrace_format = \"parquet\"", `a.toml:10: serve.trace_format "parquet": unknown trace format`},
		{"rate = 1\ntrace = \"x.csv\"\nchars_per_token = nan", "a.toml:10: serve.chars_per_token"},
		{"arrival = \"bursty\"\nrate = 1", `a.toml:8: serve.arrival "bursty": unknown arrival process`},
		{"arrival = \"gamma\"\nrate = 1\ncv = -2", "a.toml:10: serve.cv must be a coefficient of variation above 0"},
		{"rate = 1\nprompt = \"uniform:300:100\"", "a.toml:9: serve.prompt uniform:300:100: want whole bounds"},
		{"rate = 1\noutput_tokens = 0", "a.toml:9: serve.output_tokens 0: a length must be 1"},
		{"rate = 1\nprompt = 1.5", "a.toml:9: serve.prompt want a token count or a distribution"},
		{"rate = 1\nshared_prefix = 300", "a.toml:9: serve.shared_prefix 300 tokens must be shorter than every prompt"},
		{"rate = 1\npolicy = \"lifo\"", `a.toml:9: serve.policy "lifo": want continuous or fifo or static`},
		{"rate = 1\nchunked_prefill = \"maybe\"", "a.toml:9: serve.chunked_prefill maybe: want true or false"},
		{"rate = 1\nmax_seqs = 0", "a.toml:9: serve.max_seqs must be 1"},
		{"rate = 1\nkv_tokens = \"lots\"", `a.toml:9: serve.kv_tokens: "lots" is not a whole token count such as 512, 4k (4096) or 1M`},
		// A count past the limit is told the limit (2^24), as
		// --kv-tokens is: 50,000,000 is a token count, too large.
		{"rate = 1\nkv_tokens = 50000000", `a.toml:9: serve.kv_tokens: "50000000" exceeds the limit of 16777216 tokens (2^24)`},
		{"rate = 1\nubatch = 0", "a.toml:9: serve.ubatch 0: want a pass of 1 token or more"},
		{"rate = 1\nmemory_share = 1.5", "a.toml:9: serve.memory_share 1.5: want a share in (0, 1]"},
		{"rate = 1\nfront_end = \"5ms,1ms\"", `a.toml:9: serve.front_end "5ms,1ms": want runtime, off, or LATENCY,REQUEST,TOKEN[,BATCH]`},
		{"rate = 1\nfront_end = \"5ms,2s,0s\"", `a.toml:9: serve.front_end "5ms,2s,0s": each part must be 0 … 1 s`},
		{"rate = 1\nthink = \"soon\"", "a.toml:9: serve.think: \"soon\" is not a duration"},
		{"rate = 1\nttft = \"0s\"", "a.toml:9: serve.ttft: "},
		{"rate = 1\nseed = -1", "a.toml:9: serve.seed must be 0 … "},
	} {
		_, err := Parse("a.toml", []byte(serveBase+"[serve]\n"+c.table+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n%v\nwant %q", c.table, err, c.want)
		}
	}
	// Its figures are drawn from its runs: serve-rate needs the search,
	// and a [figure.serve-*] table has nothing to set.
	for _, c := range []struct{ top, table, want string }{
		{"figures = [\"memory\", \"serve-rate\"]\n", "rate = 1", "a.toml:1: figures lists serve-rate, which draws the [serve] table's max-rate search"},
		{"figures = [\"serve-cdf\"]\n", "rate = 1\n[figure.serve-cdf]\nrate = \"2\"", "a.toml:10: [figure.serve-cdf]: the study's serving figures are drawn from its [serve] table"},
	} {
		_, err := Parse("a.toml", []byte(c.top+serveBase+"[serve]\n"+c.table+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n%v\nwant %q", c.table, err, c.want)
		}
	}
}

// TestParseServeTrace: [serve]'s trace is read when the study is, from the
// study's directory: its rows' lengths, and with arrival = "trace" their
// times; a bad row is told at the study's trace line with the trace's own
// file and line; trace arrivals keep their times, so no rate search.
func TestParseServeTrace(t *testing.T) {
	dir := t.TempDir()
	trace := "timestamp_s,prompt_tokens,output_tokens\n0,100,20\n0.5,300,40\n2,50,10\n"
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(trace), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("timestamp_s,prompt_tokens,output_tokens\n0,100,20\n0.5,-3,40\n"), 0o644)
	study := filepath.Join(dir, "a.toml")
	st, err := Parse(study, []byte(serveBase+"[serve]\narrival = \"trace\"\ntrace = \"t.csv\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := st.Serve.Request.Workload
	// Three rows: 100 + 20, 300 + 40, 50 + 10 tokens at 0, 0.5 and 2 s.
	if w.Arrival != serve.Trace || !w.FromFile || len(w.Rows) != 3 || w.Rows[1].Prompt != 300 || w.Rows[1].Output != 40 || w.Rows[2].At != 2 {
		t.Errorf("workload %+v", w)
	}
	if st.Serve.Request.Trace != "" || !strings.Contains(strings.Join(st.Serve.Args, " "), "--trace "+filepath.Join(dir, "t.csv")) {
		t.Errorf("trace %q read once; args %v", st.Serve.Request.Trace, st.Serve.Args)
	}
	for _, c := range []struct{ table, want string }{
		{"rate = 1\ntrace = \"bad.csv\"", "a.toml:9: serve.trace: " + filepath.Join(dir, "bad.csv") + ":3"},
		{"arrival = \"trace\"\ntrace = \"t.csv\"\nmax_rate = true", "a.toml:10: serve.max_rate: trace arrivals keep the trace's own times"},
	} {
		_, err := Parse(study, []byte(serveBase+"[serve]\n"+c.table+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n%v\nwant %q", c.table, err, c.want)
		}
	}
}
