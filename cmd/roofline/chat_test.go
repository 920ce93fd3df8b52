package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/sim"
)

// chatExamples are the worked examples of docs/chat.md, on edge boards.
var chatExamples = []struct {
	heading, text string
	args          []string
}{
	{"A voice assistant on a Jetson Orin Nano Super", `Llama-3.2-3B at q4_k_m, a 500-token system prompt, ten turns of 50 tokens
in and 150 out, loaded from the developer kit's NVMe; the 1B model of the same
family as a draft; a 50 Wh battery.`,
		[]string{"chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
			"--battery-wh", "50", "--draft", "llama-3.2-1b"}},
	{"The same on an RK3588 NPU booting from a microSD card", `Qwen2.5-1.5B at w8a8 on the NPU, twelve turns, the model loaded from a
UHS-I card; Qwen2.5-0.5B as the draft.`,
		[]string{"chat", "--model", "qwen2.5-1.5b", "--hardware", "rk3588", "--engine", "npu", "--turns", "12", "--storage", "sd",
			"--battery-wh", "37", "--draft", "qwen2.5-0.5b"}},
	{"Outgrowing the context", `TinyLlama's 2,048-token context holds three turns of 500 tokens after a
500-token system prompt; from the fourth turn the oldest turns are dropped.`,
		[]string{"chat", "--model", "tinyllama-1.1b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_0", "--turns", "6",
			"--user-tokens", "200", "--reply-tokens", "300", "--strategy", "keep-kv", "--max-chats", "4"}},
}

// TestChatDoc keeps docs/chat.md's worked examples in step with the code
// (-update rewrites it): the page doubles as the golden test of chat.
func TestChatDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString(chatDocHead)
	for _, ex := range chatExamples {
		out, errOut, code := runCLI(ex.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", ex.args, code, errOut)
		}
		b.WriteString("\n## " + ex.heading + "\n\n" + ex.text + "\n\n```\n$ roofline " + strings.Join(quoteArgs(ex.args), " ") + "\n" + out + "```\n")
	}
	b.WriteString(chatDocTail)
	const path = "../../docs/chat.md"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, _ := os.ReadFile(path); string(old) != b.String() {
		t.Errorf("docs/chat.md is stale: go test ./cmd/roofline -run TestChatDoc -update")
	}
}

func TestChatJSON(t *testing.T) {
	out, errOut, code := runCLI("chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
		"--turns", "4", "--storage", "100MB/s", "--draft", "llama-3.2-1b", "--draft-tokens", "0", "--acceptance", "0", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var r render.ChatJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Strategies) != 3 || len(r.Strategies[0].Turns) != 4 {
		t.Fatalf("%d strategies, %d turns", len(r.Strategies), len(r.Strategies[0].Turns))
	}
	c := r.Cold
	// --storage 100MB/s: load = weight bytes / 1e8 B/s.
	if !near(c.LoadS, c.WeightsBytes/1e8, 1e-12) || !near(c.ColdTTFTS, c.LoadS+c.SystemS+c.FirstTTFTS, 1e-12) || c.SystemS == 0 {
		t.Errorf("cold start %+v", c)
	}
	// Every power mode of the Orin Nano 8GB, the one asked for first:
	// MAXN_SUPER (25 W), then JetPack 5's 15W and 7W and the Super
	// table's 15W and 25W.
	var modes []string
	if r.Energy != nil {
		for _, m := range r.Energy.Modes {
			modes = append(modes, fmt.Sprintf("%s %g", m.PowerMode, m.PowerW))
		}
	}
	if got := strings.Join(modes, ", "); got != "MAXN_SUPER 25, 15W 15, 7W 7, 15W 15, 25W 25" {
		t.Fatalf("energy modes %s", got)
	}
	m := r.Energy.Modes[0]
	if !near(m.JoulesPerToken, 25**m.TPOT, 1e-12) || !near(m.TokensPerWh, 3600/m.JoulesPerToken, 1e-12) {
		t.Errorf("energy mode %+v", m)
	}
	// k = 0, a = 0 is plain decoding.
	if s := r.Spec; s == nil || s.TPOT != s.PlainTPOT || s.Speedup != 1 || s.DraftS != 0 {
		t.Errorf("speculative with k=0, a=0: %+v", r.Spec)
	}
	if cj := r.Concurrent; len(cj.Rows) != 8 || cj.Rows[0].N != 1 || cj.MaxInMemory < cj.MaxMeeting || cj.Context != 500+4*200 {
		t.Errorf("concurrency %+v", cj)
	}
}

// TestChatOneTokenReplies: with one-token replies there is no decode step;
// TPOT is undefined and must not break JSON.
func TestChatOneTokenReplies(t *testing.T) {
	for _, f := range []string{"json", "text", "markdown"} {
		out, errOut, code := runCLI("chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--reply-tokens", "1", "--draft", "llama-3.2-1b", "--format", f)
		if code != 0 || out == "" {
			t.Errorf("%s: exit %d: %s", f, code, errOut)
		}
	}
}

func TestPredictExtras(t *testing.T) {
	out, errOut, code := runCLI("predict", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m",
		"--cold", "--storage", "sd", "--power", "10W", "--battery-wh", "20", "--draft", "llama-3.2-1b", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var j struct {
		E2E      float64 `json:"e2e_s"`
		TPOT     float64 `json:"tpot_s"`
		TTFT     float64 `json:"ttft_s"`
		Load     float64 `json:"load_s"`
		ColdTTFT float64 `json:"cold_ttft_s"`
		Memory   struct {
			Weights float64 `json:"weights_bytes"`
		} `json:"memory"`
		Energy render.PredictEnergyJSON `json:"energy"`
		Spec   render.SpecJSON          `json:"speculative"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	// --storage sd: 104 MB/s; --power 10 W: J/token = 10 × TPOT. The
	// Orin Nano's profile has no idle draw, so at the default 10 % duty
	// cycle the mean draw is 0.1 × 10 W = 1 W: 20 Wh last 20 h, answering
	// 10 % of the time: 20 × 3600 × 0.1 / E2E answers.
	if !near(j.Load, j.Memory.Weights/104e6, 1e-12) || !near(j.ColdTTFT, j.Load+j.TTFT, 1e-12) {
		t.Errorf("load %v s, cold TTFT %v s for %v B", j.Load, j.ColdTTFT, j.Memory.Weights)
	}
	if e := j.Energy; e.PowerW != 10 || !near(e.JoulesPerToken, 10*j.TPOT, 1e-12) || e.IdlePowerW != nil || e.DutyCycle != 0.1 ||
		!near(e.AveragePowerW, 1, 1e-12) || !near(e.HoursOfUse, 20, 1e-12) || !near(e.AnswersPerCharge, 20*3600*0.1/j.E2E, 1e-12) {
		t.Errorf("energy %+v", e)
	}
	if s := j.Spec; s.Draft != "llama-3.2-1b" || s.K != 4 || !near(s.TokensPerRound, (1-math.Pow(0.7, 5))/0.3, 1e-12) {
		t.Errorf("speculative %+v", s)
	}
}

func TestChatErrors(t *testing.T) {
	base := []string{"chat", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m"}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"chat", "--hardware", "rk3588"}, 2, "--model is required"},
		{append(base, "--turns", "0"), 2, "--turns must be"},
		{append(base, "--user-tokens", "-3"), 2, "--user-tokens"},
		{append(base, "--strategy", "lru"), 2, `unknown strategy "lru"`},
		{append(base, "--system-tokens", "200000"), 3, "llama-3.2-3b does not fit on jetson-orin-nano-super-8gb (exit status 3)"},
		{[]string{"chat", "--model", "tinyllama-1.1b", "--hardware", "rk3588", "--weights", "q4_0", "--system-tokens", "2000"}, 1, "exceed the context limit of 2048 tokens (the model's maximum context)"},
		{append(base, "--acceptance", "1"), 2, "--acceptance must be in [0, 1)"},
		{append(base, "--acceptance", "1", "--draft", "llama-3.2-1b"), 2, "--acceptance must be in [0, 1)"},
		{append(base, "--draft", "llama-3.1-8b"), 1, "not smaller than the target"},
		{append(base, "--draft", "lama-3.2-1b"), 1, "--draft"},
		{append(base, "--power", "0W"), 2, "--power"},
		{append(base, "--battery-wh", "-1"), 2, "--battery-wh"},
		{append(base, "--storage", "floppy"), 2, `unknown storage "floppy"`},
		{append(base, "--max-chats", "0"), 2, "--max-chats"},
		{[]string{"chat", "--model", "llama-3.1-70b", "--hardware", "rk3588-4gb"}, 3, "does not fit on rk3588-4gb"},
		{append(base, "--tpot", "fast"), 2, "--tpot"},
		{[]string{"predict", "--model", "llama-3.2-3b", "--hardware", "apple-m3", "--battery-wh", "50"}, 2, "--battery-wh needs a power draw: the gpu engine of apple-m3 has no published power figure"},
		{[]string{"chat", "--model", "llama-3.2-3b", "--hardware", "apple-m3", "--battery-wh", "50"}, 2, "--battery-wh needs a power draw"},
		{[]string{"predict", "--model", "llama-3.2-3b", "--hardware", "apple-m3", "--idle-power", "2W"}, 2, "--idle-power needs a draw while answering too"},
		{append(base, "--duty-cycle", "0%"), 2, "--duty-cycle"},
		{append(base, "--duty-cycle", "120%"), 2, "--duty-cycle"},
		{append(base, "--power", "10W", "--idle-power", "12W"), 2, "--idle-power 12 W exceeds the draw while answering (10 W)"},
		// Beyond any device: blank rows and 300-digit energies before.
		{append(base, "--power", "1e308W"), 2, "--power must be 1 mW to 1 MW, got 1e+308 W"},
		{[]string{"predict", "--model", "llama-3.2-3b", "--hardware", "rk3588", "--power", "2MW"}, 2, "--power must be 1 mW to 1 MW, got 2 MW"},
		// Slower than any storage: a load of 4,002,734,592,000 s before.
		{append(base, "--storage", "1e-9MB/s"), 2, "--storage 1e-9MB/s: a read rate from 1 kB/s to 100 TB/s"},
		{[]string{"predict", "--model", "llama-3.2-3b", "--hardware", "rk3588", "--cold", "--storage", "999B/s"}, 2, "--storage 999B/s: a read rate from 1 kB/s to 100 TB/s"},
	}
	for _, c := range cases {
		_, errOut, code := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d with %q", c.args[len(base)-1:], code, errOut, c.code, c.want)
		}
	}
}

const chatDocHead = `# Conversations, cold start, energy, concurrent chats, speculative decoding

A local assistant is not one request. ` + "`roofline chat`" + ` answers what its users
ask next: does keeping the KV cache between turns make the tenth turn as
snappy as the first; what a cached system prompt saves; how long after
power-on until the first word; how many answers a charge powers and how
many hours it lasts; what happens when a second chat opens; whether a small
draft model speeds it up.
Every figure comes from the same cost model as ` + "`predict`" + ` (docs/method.md,
"Beyond one request"). This page is generated by
` + "`go test ./cmd/roofline -run TestChatDoc -update`" + `, and doubles as chat's golden test.

What each section means:

- **Per turn.** keep-kv prefills only the new message on top of the retained
  cache; prefix-cache re-prefills the history after the cached system
  prompt; recompute re-prefills everything. TPOT is the same under all three:
  decoding attends the same context. Σ E2E is the device time spent
  answering so far (user think time excluded).
- **Context limit.** The smaller of the model's maximum context and the
  longest sequence that fits in memory. Past it the oldest whole turns are
  dropped (never the system prompt); under keep-kv the kept turns are
  shifted in place as llama.cpp's context shift does, costing one read and
  write of their K half, added to that turn's TTFT.
- **Cold start.** Loading the weights from storage (the profile's storage,
  or ` + "`--storage sd|emmc|usb3|nvme-…`" + ` or a measured rate such as ` + "`--storage 85MB/s`" + `;
  named media are interface limits, real media are slower), the system
  prompt's prefill, and the first turn's prefill.
- **Energy.** Joules per output token (power × TPOT) and per answer
  (power × E2E), tokens per watt-hour, and the average draw when the device
  answers a share d of the time (` + "`--duty-cycle`" + `, 10 % unless given: an assistant
  spoken to now and then) and idles the rest: d × power + (1 − d) × idle. With
  ` + "`--battery-wh`" + ` come the hours a charge lasts at that draw and the answers it
  powers in them, idling included. For the device and each other power mode
  of it. These are estimates from the power and idle_power in the profile
  (or ` + "`--power`" + ` and ` + "`--idle-power`" + `), each drawn for the whole of its phase; a
  measured draw is usually lower. Without an idle figure the hours count no
  draw between answers and are an upper bound; a device with no power figure
  at all says so (give ` + "`--power`" + `).
- **Concurrent chats.** N conversations at the conversation's final context
  share the device by continuous batching: TPOT is the decode step at batch
  N; TTFT is shown when one message arrives while the others generate
  (chunked prefill) and in the worst case where all N arrive together, on
  which the targets are judged. The limits are searched beyond the rows
  shown, by the rule plan's CONCURRENT column follows
  (docs/planning.md); ` + "`plan --concurrent LIST`" + ` searches the same across
  devices and formats.
- **Speculative decoding.** The draft proposes k tokens one step at a time;
  the target verifies them in one pass of k + 1 tokens; with acceptance a a
  round yields (1 − a^(k+1)) / (1 − a) tokens. The break-even acceptance is
  where that equals the round's cost over a plain step.
`

const chatDocTail = `
## Plots

` + "`roofline plot chat`" + ` draws per-turn TTFT and cumulative latency by strategy;
` + "`roofline plot concurrency`" + ` draws TPOT and TTFT against concurrent chats;
` + "`roofline plot speculative`" + ` draws the speed-up against the acceptance rate
for several numbers of drafted tokens (docs/plots.md).
`

// TestEnergyAgrees: predict and chat price energy by one rule. A
// one-turn conversation under keep-kv is predict's request of the user's
// message on top of the cached system prompt: the same joules, draws, hours
// and answers per charge (the RK3588's profile gives power and idle_power).
// A device without a power figure says so in both, and exits 0.
func TestEnergyAgrees(t *testing.T) {
	dev := []string{"--model", "qwen2.5-1.5b", "--hardware", "rk3588", "--engine", "npu", "--battery-wh", "37", "--duty-cycle", "25%", "--format", "json"}
	out, errOut, code := runCLI(append([]string{"chat", "--turns", "1", "--strategy", "keep-kv", "--system-tokens", "500", "--user-tokens", "50", "--reply-tokens", "150"}, dev...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var ch render.ChatJSON
	if err := json.Unmarshal([]byte(out), &ch); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(append([]string{"predict", "--prompt", "50", "--depth", "500", "--output-tokens", "150"}, dev...)...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var p struct {
		Energy render.PredictEnergyJSON `json:"energy"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if ch.Energy == nil || len(ch.Energy.Modes) == 0 || ch.Energy.Basis != p.Energy.Basis {
		t.Fatalf("chat energy %+v, predict's basis %q", ch.Energy, p.Energy.Basis)
	}
	c, e := ch.Energy.Modes[0], p.Energy
	if e.IdlePowerW == nil || *e.IdlePowerW != 3.6 || e.PowerW != 17 || e.DutyCycle != 0.25 || !near(e.AveragePowerW, 0.25*17+0.75*3.6, 1e-12) {
		t.Errorf("predict's draws %+v", e)
	}
	for _, x := range []struct {
		name       string
		chat, pred float64
	}{{"J/answer", c.JoulesPerAnswer, e.JoulesPerAnswer}, {"J/token", c.JoulesPerToken, e.JoulesPerToken}, {"average draw", c.AveragePowerW, e.AveragePowerW},
		{"hours", c.HoursOfUse, e.HoursOfUse}, {"answers per charge", c.AnswersPerCharge, e.AnswersPerCharge}} {
		if !near(x.chat, x.pred, 1e-9) || !(x.pred > 0) {
			t.Errorf("%s: chat %v, predict %v", x.name, x.chat, x.pred)
		}
	}
	for _, cmd := range []string{"predict", "chat"} {
		for _, f := range []string{"text", "json"} {
			out, errOut, code := runCLI(cmd, "--model", "llama-3.2-3b", "--hardware", "apple-m3", "--format", f)
			if code != 0 || !strings.Contains(out, "no energy figures: the gpu engine of apple-m3 has no published power figure; --power WATTS") {
				t.Errorf("%s %s without a power figure: exit %d, %s\n%s", cmd, f, code, errOut, out)
			}
		}
	}
}

// TestDoesNotFit: predict and chat of a model that does not fit say
// DOES NOT FIT first and exit 3, as a plan with nothing feasible does; the
// answer is still written (JSON says fits false).
func TestDoesNotFit(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "--model", "llama-3.1-70b", "--hardware", "jetson-orin-nano-8gb"},
		{"chat", "--model", "llama-3.1-70b", "--hardware", "rk3588-4gb"},
		{"predict", "--model", "llama-3.1-70b", "--hardware", "jetson-orin-nano-8gb", "--format", "markdown"},
	} {
		out, errOut, code := runCLI(args...)
		first, _, _ := strings.Cut(strings.TrimPrefix(out, "**"), "\n")
		if code != 3 || !strings.HasPrefix(first, "DOES NOT FIT: llama-3.1-70b needs ") || !strings.Contains(errOut, "llama-3.1-70b does not fit on") {
			t.Errorf("%v: exit %d, first line %q, stderr %q", args, code, first, errOut)
		}
	}
	for _, args := range [][]string{
		{"predict", "--model", "llama-3.1-70b", "--hardware", "jetson-orin-nano-8gb", "--format", "json"},
		{"chat", "--model", "llama-3.1-70b", "--hardware", "rk3588-4gb", "--format", "json"},
	} {
		out, _, code := runCLI(args...)
		var j struct {
			Fits   *bool `json:"fits"`
			Memory struct {
				Fits *bool `json:"fits"`
			} `json:"memory"`
		}
		if err := json.Unmarshal([]byte(out), &j); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		fits := j.Fits
		if fits == nil {
			fits = j.Memory.Fits
		}
		if code != 3 || fits == nil || *fits {
			t.Errorf("%v: exit %d, fits %v", args, code, fits)
		}
	}
	// What fits exits 0.
	if _, errOut, code := runCLI("predict", "--model", "llama-3.2-3b", "--hardware", "jetson-orin-nano-8gb"); code != 0 {
		t.Errorf("a model that fits: exit %d, %s", code, errOut)
	}
}

// A runtime that does not batch (RKLLM) answers one chat at a time: chat
// says so instead of "continuous batching", its JSON carries the fact,
// and plan without a time target says the requests queue unbounded
// rather than printing the search's bound (sim.MaxQueued) as a count.
func TestNonBatchingRuntimeQueues(t *testing.T) {
	out, errOut, code := runCLI("chat", "--hardware", "rk3588", "--model", "qwen2.5-1.5b")
	if code != 0 {
		t.Fatalf("chat: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "continuous batching") || !strings.Contains(out, "the runtime does not batch") || !strings.Contains(out, "answered one at a time") {
		t.Errorf("chat on rkllm should say chats queue, not batch:\n%s", out)
	}
	js, errOut, code := runCLI("chat", "--hardware", "rk3588", "--model", "qwen2.5-1.5b", "--format", "json")
	if code != 0 || !strings.Contains(js, `"continuous_batching": false`) {
		t.Errorf("chat --format json: exit %d (%s); want continuous_batching false", code, errOut)
	}
	js, _, _ = runCLI("chat", "--hardware", "rtx-4090", "--model", "qwen2.5-1.5b", "--format", "json")
	if !strings.Contains(js, `"continuous_batching": true`) {
		t.Errorf("chat on llama.cpp (rtx-4090) --format json: want continuous_batching true")
	}
	out, errOut, code = runCLI("plan", "--hardware", "rk3588", "--model", "qwen2.5-1.5b")
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, fmt.Sprintf("%d at", sim.MaxQueued)) || !strings.Contains(out, "queued") {
		t.Errorf("plan without targets on rkllm should say requests queue, not %d:\n%s", sim.MaxQueued, out)
	}
}

// A draft that does not fit beside the target is a configuration that
// does not fit: llama-3.1-8b q4_k_m at 14,200 tokens leaves 72 MiB of an
// Orin Nano Super's 6.91 GiB usable, and llama-3.2-1b's weights and cache
// need 1.18 GiB more. predict said "fits" and exited 0 while its JSON
// said fits_with_draft false; now it says DOES NOT FIT and exits 3, as
// chat does.
func TestDraftDoesNotFit(t *testing.T) {
	args := []string{"--model", "llama-3.1-8b", "--hardware", "jetson-orin-nano-super-8gb", "--weights", "q4_k_m", "--draft", "llama-3.2-1b"}
	out, errOut, code := runCLI(append([]string{"predict", "--prompt", "14000", "--output-tokens", "200"}, args...)...)
	if code != 3 || !strings.Contains(out, "with the draft llama-3.2-1b: DOES NOT FIT") || !strings.Contains(errOut, "with the draft llama-3.2-1b does not fit") {
		t.Errorf("predict: exit %d, want 3 and DOES NOT FIT with the draft:\n%s\n%s", code, out, errOut)
	}
	// With room for both, nothing changes: exit 0.
	if _, errOut, code := runCLI(append([]string{"predict", "--prompt", "1000", "--output-tokens", "200"}, args...)...); code != 0 {
		t.Errorf("predict at 1,200 tokens: exit %d: %s", code, errOut)
	}
}

// The concurrency table names every target a row misses: llama-3.2-3b
// q4_k_m on a Raspberry Pi 5 answers one chat in about 2.6 s (TTFT target
// 1 s) at about 180 ms per token (a TPOT target of 150 ms), so it misses
// both; the table said only "ttft", hiding the TPOT miss.
func TestChatListsEveryMiss(t *testing.T) {
	args := []string{"chat", "--model", "llama-3.2-3b", "--hardware", "raspberry-pi-5-8gb", "--weights", "q4_k_m", "--turns", "4", "--tpot", "150ms"}
	out, errOut, code := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "it fails ttft, tpot") {
		t.Errorf("the summary should name both misses:\n%s", out)
	}
	js, _, _ := runCLI(append(args, "--format", "json")...)
	var j struct {
		Concurrent struct {
			Rows []struct {
				TTFT    float64  `json:"ttft_all_at_once_s"`
				TPOT    float64  `json:"tpot_s"`
				Fails   string   `json:"fails"`
				Failing []string `json:"failing"`
			} `json:"rows"`
		} `json:"concurrent"`
	}
	if err := json.Unmarshal([]byte(js), &j); err != nil || len(j.Concurrent.Rows) == 0 {
		t.Fatalf("JSON: %v", err)
	}
	r := j.Concurrent.Rows[0]
	if r.TTFT <= 1 || r.TPOT <= 0.15 || !reflect.DeepEqual(r.Failing, []string{"ttft", "tpot"}) || r.Fails != "ttft" {
		t.Errorf("row 1: TTFT %g s, TPOT %g s, fails %q, failing %v; want both misses listed, ttft first", r.TTFT, r.TPOT, r.Fails, r.Failing)
	}
}

// TestBareNumberRefusedWithoutDeprecationNote: a bare number that is
// refused gets the refusal alone, not also "write -1W", which the refusal
// contradicts; one that is taken still gets the note.
func TestBareNumberRefusedWithoutDeprecationNote(t *testing.T) {
	base := []string{"predict", "--model", "llama-3.2-1b", "--hardware", "raspberry-pi-5-8gb"}
	for _, c := range []struct {
		args      []string
		code      int
		want, not string
	}{
		{append(base, "--idle-power", "-1"), 2, "--idle-power", "write -1W"},
		{append(base, "--battery-wh", "-1"), 2, "--battery-wh", "deprecated"},
		{append(base, "--idle-power", "1", "--power", "5W"), 0, "write 1W", ""},
	} {
		_, errOut, code := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || (c.not != "" && strings.Contains(errOut, c.not)) {
			t.Errorf("%v: exit %d, %q; want %d with %q and without %q", c.args[len(base):], code, errOut, c.code, c.want, c.not)
		}
	}
}

// TestChatNotFitSaysPredictOffloads: Llama-3.1-70B Q4_K_M (39.6 GiB) does
// not fit an RTX 4090's 24 GiB, and chat prices one device, so it says
// DOES NOT FIT; but predict runs it with 46 of 81 layers on the GPU and
// the rest in the host's memory, as llama.cpp's --fit does
// (TestOffload70BOn4090). chat's answer said only "choose a smaller format
// or model, or another device", as if the model could not run there; it
// now says predict offloads it. A board whose memory is unified (the
// Orin Nano) or a device with no host profile has no such line.
func TestChatNotFitSaysPredictOffloads(t *testing.T) {
	const line = "chat prices rtx-4090 alone; roofline predict places the model between its memory and its host's, as llama.cpp's --fit does"
	out, _, code := runCLI("chat", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m")
	if code != 3 || !strings.Contains(out, line) {
		t.Errorf("chat on rtx-4090: exit %d, want 3 and %q in\n%s", code, line, out)
	}
	js, _, _ := runCLI("chat", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m", "--format", "json")
	if !strings.Contains(js, line) {
		t.Errorf("chat JSON on rtx-4090 lacks %q", line)
	}
	for _, hw := range []string{"jetson-orin-nano-8gb", "rk3588-4gb"} {
		out, _, _ := runCLI("chat", "--model", "llama-3.1-70b", "--hardware", hw)
		if strings.Contains(out, "roofline predict places") {
			t.Errorf("chat on %s (unified memory) says predict offloads:\n%s", hw, out)
		}
	}
	if pred, _, code := runCLI("predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "q4_k_m"); code != 0 || !strings.Contains(pred, "46 of 81 layers on the GPU") {
		t.Errorf("predict does not offload: exit %d\n%s", code, pred)
	}
	// At f16 the 70B's 131 GiB of weights fit neither the 4090's 24 GiB
	// nor, offloaded, its host's 62.9 GiB usable beside them (predict:
	// host memory needs 110 GiB of 62.9 GiB, exit 3): chat must not send
	// the user to predict for an answer that does not fit either.
	out, _, code = runCLI("chat", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "f16")
	if code != 3 || strings.Contains(out, "roofline predict places") {
		t.Errorf("chat on rtx-4090 at f16: exit %d, want 3 and no pointer to predict's offload, which does not fit either:\n%s", code, out)
	}
	if _, _, code := runCLI("predict", "--model", "llama-3.1-70b", "--hardware", "rtx-4090", "--weights", "f16"); code != 3 {
		t.Errorf("predict of the 70B at f16 on rtx-4090 offloaded: exit %d, want 3 (does not fit)", code)
	}
}
