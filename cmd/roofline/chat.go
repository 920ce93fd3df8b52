package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/render"

	"github.com/urfave/cli/v2"

	"github.com/roofline/roofline/cmd/roofline/internal/report"
	"github.com/roofline/roofline/cmd/roofline/internal/resolve"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

const chatUsage = `roofline chat --model M --hardware H [flags]

A local assistant is a conversation, not one request. chat prices --turns
turns of a --user-tokens message answered by --reply-tokens, after a
--system-tokens system prompt, under three ways of treating the history:

  keep-kv       the KV cache stays between turns (llama.cpp server, Ollama):
                each turn prefills only the new message
  prefix-cache  only the system prompt is cached (vLLM/SGLang prefix
                caching): each turn re-prefills the history after it
  recompute     each turn re-prefills the whole conversation

When the conversation outgrows the context limit (the model's maximum or
what fits in memory) the oldest whole turns are dropped, never the system
prompt; under keep-kv the kept cache is shifted in place (llama.cpp context
shift), which costs one read and write of its K half.

It then reports the cold start (model load from storage, the system prompt,
the first turn), energy per token and per answer from the engine's rated
power (and each power mode of the device), how per-chat TTFT and TPOT
degrade as concurrent chats share the device, and, with --draft, speculative
decoding.

Examples:
  roofline chat --model llama-3.2-3b --hardware jetson-orin-nano-super-8gb --weights q4_k_m
  roofline chat --model qwen2.5-1.5b --hardware rk3588 --engine npu --turns 20 --storage sd --battery-wh 37
  roofline chat --model llama-3.1-8b --hardware jetson-orin-nano-super-8gb --weights q4_k_m --draft llama-3.2-1b --acceptance 0.7`

// setupFlags select a model on a device: predict's, chat's.
func setupFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model `NAME` (roofline list models), Hugging Face id, .toml profile, .gguf file or URL (header only), or config.json / checkpoint directory (required)"},
		&cli.StringFlag{Name: "hardware", Aliases: []string{"hw"}, Usage: "device `NAME` (roofline list hardware) or path to a .toml profile (required)"},
		&cli.StringFlag{Name: "runtime", Usage: "inference `RUNTIME` (roofline list runtimes: llama.cpp, vllm, mlc, rkllm, tensorrt-llm, mlx); default: chosen from the model, format and device, and said why"},
		&cli.StringFlag{Name: "engine", Usage: "compute `ENGINE` of the device (gpu, cpu, npu); default: the device's default if the runtime runs on it"},
		&cli.StringFlag{Name: "weights", Usage: "weight format `FMT`; default: a GGUF file's own tensor types, else the runtime's usual format (the model's checkpoint for vLLM, TensorRT-LLM and MLX)"},
		&cli.StringFlag{Name: "kv", Usage: "KV-cache format `FMT`; default: the runtime's, f16"},
		&cli.Float64Flag{Name: "bw-efficiency", Usage: "share of datasheet bandwidth achieved, in (0, 1]; default: the engine's"},
		&cli.Float64Flag{Name: "compute-efficiency", Usage: "share of peak compute achieved, in (0, 1]; default: the engine's"},
		&cli.StringFlag{Name: "overhead", Usage: "runtime memory `SIZE` beyond weights, KV and activations; default: the runtime's (roofline show runtime NAME)"},
		&cli.BoolFlag{Name: "no-flash-attn", Usage: "price unfused attention, which reads the KV cache once per query head (llama.cpp without -fa)"},
	}
}

// extraFlags are the flags of chat's extra figures that predict shares.
func extraFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "storage", Usage: "storage the model loads from: a `MEDIUM` (sd, emmc, usb3, nvme-gen2x1, nvme-gen3x4, nvme-gen4x4, nvme-gen5x4) or a read rate such as 90MB/s; default: the profile's"},
		&cli.StringFlag{Name: "power", Usage: "power draw while running (`WATTS`, e.g. 15W); default: the engine's rated power"},
		&cli.Float64Flag{Name: "battery-wh", Usage: "battery capacity in `WH`: adds answers per battery percent"},
		&cli.StringFlag{Name: "draft", Usage: "draft `MODEL` for speculative decoding (same forms as --model)"},
		&cli.StringFlag{Name: "draft-weights", Usage: "weight format `FMT` of the draft; default: the target's"},
		&cli.IntFlag{Name: "draft-tokens", Value: 4, Usage: "tokens the draft proposes per round (k)"},
		&cli.Float64Flag{Name: "acceptance", Value: 0.7, Usage: "probability that the target accepts each drafted token, in [0, 1)"},
	}
}

func chatCommand() *cli.Command {
	flags := append(setupFlags(),
		&cli.IntFlag{Name: "turns", Value: 10, Usage: "turns in the conversation"},
		&cli.IntFlag{Name: "system-tokens", Value: 500, Usage: "system prompt tokens"},
		&cli.IntFlag{Name: "user-tokens", Value: 50, Usage: "tokens of each user message"},
		&cli.IntFlag{Name: "reply-tokens", Value: 150, Usage: "tokens of each reply"},
		&cli.StringFlag{Name: "strategy", Value: "all", Usage: "history `STRATEGY`: keep-kv, prefix-cache, recompute or all (side by side)"},
		&cli.IntFlag{Name: "ubatch", Value: sim.DefaultWorkload.UBatch, Usage: "tokens per prefill pass (llama.cpp -ub)"},
		&cli.IntFlag{Name: "concurrent", Value: 8, Usage: "show 1 … `N` concurrent chats (the limits are searched beyond)"},
		&cli.StringFlag{Name: "ttft", Value: "1s", Usage: "TTFT target for the concurrency limits (`DURATION`)"},
		&cli.StringFlag{Name: "tpot", Value: "200ms", Usage: "TPOT target for the concurrency limits (`DURATION`)"},
	)
	flags = append(flags, extraFlags()...)
	flags = append(flags, formatFlag(render.DocFormats))
	return &cli.Command{
		Name:      "chat",
		Usage:     "multi-turn conversation, cold start, energy, concurrent chats and speculative decoding",
		UsageText: chatUsage,
		Flags:     flags,
		Action:    chatAction,
	}
}

// resolveSetup builds the Setup the setupFlags select, with the model
// named by modelFlag in format weights ("" for the runtime's default).
func resolveSetup(c *cli.Context, cat *profiles.Catalog, modelFlag, weights string) (*sim.Setup, error) {
	r, err := resolveFlags(c, cat, modelFlag, weights)
	if err != nil {
		return nil, err
	}
	return r.Setup, nil
}

// resolveFlags resolves the setupFlags by the one rule (package resolve),
// naming the flag an error is about.
func resolveFlags(c *cli.Context, cat *profiles.Catalog, modelFlag, weights string) (*resolve.Resolved, error) {
	for _, f := range []string{modelFlag, "hardware"} {
		if c.String(f) == "" {
			return nil, usageErr("--%s is required", f)
		}
	}
	opts, err := simOptions(c)
	if err != nil {
		return nil, err
	}
	sel := resolve.Selection{Model: c.String(modelFlag), Hardware: c.String("hardware"), Runtime: c.String("runtime"),
		Engine: c.String("engine"), Weights: weights, KV: c.String("kv"), Options: opts}
	if s := c.String("storage"); s != "" {
		bw, err := parseStorage(s)
		if err != nil {
			return nil, err
		}
		sel.StorageBandwidth = bw
	}
	r, err := resolve.Resolve(cat, sel)
	if err != nil {
		var ie *resolve.InputError
		if errors.As(err, &ie) {
			flag := ie.Input
			if flag == "model" {
				flag = modelFlag
			}
			return nil, fmt.Errorf("--%s: %w", flag, ie.Err)
		}
		return nil, err
	}
	return r, nil
}

// parseStorage reads --storage: a named medium or a read rate.
func parseStorage(s string) (float64, error) {
	if m, err := hardware.LookupStorage(s); err == nil {
		return m.Bandwidth, nil
	}
	bw, err := units.Parse(s, units.DimBandwidth)
	if err != nil || !(bw > 0) {
		_, lerr := hardware.LookupStorage(s)
		return 0, usageErr("--storage: %v", lerr)
	}
	return bw, nil
}

// checkExtraFlags validates the flags of extraFlags before any work.
func checkExtraFlags(c *cli.Context) error {
	if b := c.Float64("battery-wh"); b < 0 || math.IsNaN(b) || math.IsInf(b, 0) {
		return usageErr("--battery-wh must be a positive capacity, got %v", b)
	}
	sp := sim.Speculation{K: c.Int("draft-tokens"), Acceptance: c.Float64("acceptance")}
	if err := sp.Validate(); err != nil {
		return usageErr("%v", err)
	}
	if c.String("draft") == "" {
		for _, f := range []string{"draft-tokens", "acceptance", "draft-weights"} {
			if c.IsSet(f) {
				return usageErr("--%s needs --draft MODEL", f)
			}
		}
	}
	return nil
}

// enginePower is --power, else the engine's rated power; 0 when neither.
func enginePower(c *cli.Context, e *hardware.Engine) (float64, string, error) {
	if s := c.String("power"); s != "" {
		p, err := units.Parse(s, units.DimPower)
		if err != nil || !(p > 0) {
			return 0, "", usageErr("--power %q: want a positive power such as 15W", s)
		}
		return p, "the --power given", nil
	}
	if e.Power > 0 {
		return e.Power, "the rated power of the " + e.Name + " engine in the profile", nil
	}
	return 0, "", nil
}

// chatReport is everything chat prints, in SI units.
type chatReport struct {
	Model    string  `json:"model"`
	Hardware string  `json:"hardware"`
	Engine   string  `json:"engine"`
	Runtime  string  `json:"runtime"`
	Weights  string  `json:"weights"`
	KV       string  `json:"kv"`
	EtaBW    float64 `json:"bandwidth_efficiency"`
	EtaC     float64 `json:"compute_efficiency"`

	Conversation sim.Conversation `json:"-"`
	Turns        int              `json:"turns"`
	System       int              `json:"system_tokens"`
	User         int              `json:"user_tokens"`
	Reply        int              `json:"reply_tokens"`
	Limit        int              `json:"context_limit"`
	LimitCause   string           `json:"context_limit_cause"`

	Strategies []chatStrategyJSON `json:"strategies"`
	Cold       coldJSON           `json:"cold_start"`
	Energy     *energyJSON        `json:"energy"`
	Concurrent concurrentJSON     `json:"concurrent"`
	Spec       *specJSON          `json:"speculative,omitempty"`
	Notes      []string           `json:"notes"`
}

type chatTurnJSON struct {
	Turn         int     `json:"turn"`
	Prefill      int     `json:"prefill_tokens"`
	Depth        int     `json:"depth"`
	DroppedTurns int     `json:"dropped_turns"`
	ShiftS       float64 `json:"shift_s"`
	TTFT         float64 `json:"ttft_s"`
	TPOT         num     `json:"tpot_s"`
	E2E          float64 `json:"e2e_s"`
	CumulativeS  float64 `json:"cumulative_s"`
	Context      int     `json:"context"`
	MemoryBytes  float64 `json:"memory_bytes"`
}

type chatStrategyJSON struct {
	Strategy string         `json:"strategy"`
	SystemS  float64        `json:"system_prompt_s"`
	TotalS   float64        `json:"total_s"`
	Turns    []chatTurnJSON `json:"turns"`
}

type coldMediumJSON struct {
	Medium           string  `json:"medium"`
	StorageBytesPerS float64 `json:"storage_bandwidth_bytes_per_s"`
	LoadS            float64 `json:"load_s"`
	ColdTTFTS        float64 `json:"cold_ttft_s"`
}

type coldJSON struct {
	// Media prices the same start from every named storage medium, for
	// choosing between an SD card, eMMC and NVMe.
	Media            []coldMediumJSON `json:"media"`
	StorageBytesPerS float64          `json:"storage_bandwidth_bytes_per_s"`
	WeightsBytes     float64          `json:"weights_bytes"`
	LoadS            float64          `json:"load_s"`
	SystemS          float64          `json:"system_prompt_s"`
	FirstTTFTS       float64          `json:"first_ttft_s"`
	ColdTTFTS        float64          `json:"cold_ttft_s"`
	WarmTTFTS        float64          `json:"warm_ttft_s"`
}

type energyModeJSON struct {
	Hardware        string  `json:"hardware"`
	PowerMode       string  `json:"power_mode"`
	PowerW          float64 `json:"power_w"`
	TPOT            num     `json:"tpot_s"`
	JoulesPerToken  float64 `json:"joules_per_token"`
	JoulesPerAnswer float64 `json:"joules_per_answer"`
	TokensPerWh     float64 `json:"tokens_per_wh"`
	AnswersPerPct   float64 `json:"answers_per_battery_percent,omitempty"`
}

type energyJSON struct {
	Basis     string           `json:"basis"`
	BatteryWh float64          `json:"battery_wh,omitempty"`
	Modes     []energyModeJSON `json:"modes"`
}

type concurrentRowJSON struct {
	N           int     `json:"chats"`
	TTFT        float64 `json:"ttft_all_at_once_s"`
	JoinTTFT    float64 `json:"ttft_one_arrives_s"`
	TPOT        float64 `json:"tpot_s"`
	Throughput  float64 `json:"throughput_tokens_per_s"`
	MemoryBytes float64 `json:"memory_bytes"`
	Fits        bool    `json:"fits"`
	Fails       string  `json:"fails,omitempty"`
}

type concurrentJSON struct {
	Context     int                 `json:"context_per_chat"`
	TTFTTarget  float64             `json:"ttft_target_s"`
	TPOTTarget  float64             `json:"tpot_target_s"`
	MaxMeeting  int                 `json:"max_chats_meeting_targets"`
	FirstFail   string              `json:"first_failing_constraint"`
	MaxInMemory int                 `json:"max_chats_in_memory"`
	Rows        []concurrentRowJSON `json:"rows"`
}

type specJSON struct {
	Draft          string  `json:"draft"`
	DraftWeights   string  `json:"draft_weights"`
	K              int     `json:"draft_tokens"`
	Acceptance     float64 `json:"acceptance"`
	Context        int     `json:"context"`
	TokensPerRound float64 `json:"tokens_per_round"`
	DraftS         float64 `json:"draft_s"`
	VerifyS        float64 `json:"verify_s"`
	TPOT           float64 `json:"tpot_s"`
	PlainTPOT      float64 `json:"plain_tpot_s"`
	Speedup        float64 `json:"speedup"`
	BreakEven      float64 `json:"break_even_acceptance"`
	ExtraMemory    float64 `json:"extra_memory_bytes"`
	Fits           bool    `json:"fits_with_draft"`
}

func chatAction(c *cli.Context) error {
	fv, err := outputFormat(c, render.DocFormats)
	if err != nil {
		return err
	}
	format := fv.String()
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	conv := sim.Conversation{Turns: c.Int("turns"), System: c.Int("system-tokens"), User: c.Int("user-tokens"), Reply: c.Int("reply-tokens"), UBatch: c.Int("ubatch")}
	if err := conv.Validate(); err != nil {
		return usageErr("%v", err)
	}
	strategies := sim.Strategies
	if st := c.String("strategy"); st != "all" {
		s, err := sim.ParseStrategy(st)
		if err != nil {
			return usageErr("--strategy: %v", err)
		}
		strategies = []sim.Strategy{s}
	}
	var tg sim.Targets
	if tg.TTFT, err = parseDurationFlag(c, "ttft"); err != nil {
		return err
	}
	if tg.TPOT, err = parseDurationFlag(c, "tpot"); err != nil {
		return err
	}
	maxN := c.Int("concurrent")
	if maxN < 1 || maxN > 4096 {
		return usageErr("--concurrent %d: want 1 … 4096", maxN)
	}
	if err := checkExtraFlags(c); err != nil {
		return err
	}
	cat, err := catalog(c)
	if err != nil {
		return err
	}
	s, err := resolveSetup(c, cat, "model", c.String("weights"))
	if err != nil {
		return err
	}
	rep, err := buildChatReport(c, cat, s, conv, strategies, tg, maxN)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return report.JSON(c.App.Writer, rep)
	case "markdown":
		return writeChat(c.App.Writer, rep, true)
	}
	return writeChat(c.App.Writer, rep, false)
}

func buildChatReport(c *cli.Context, cat *profiles.Catalog, s *sim.Setup, conv sim.Conversation, strategies []sim.Strategy, tg sim.Targets, maxN int) (*chatReport, error) {
	in := s.Inputs
	rep := &chatReport{Model: in.Model, Hardware: in.Device, Engine: in.Engine, Runtime: in.Runtime, Weights: in.Weights, KV: in.KV,
		EtaBW: in.Efficiency.Bandwidth, EtaC: in.Efficiency.ComputeMax, Conversation: conv,
		Turns: conv.Turns, System: conv.System, User: conv.User, Reply: conv.Reply, Notes: []string{}}
	var first *sim.ChatResult
	for _, st := range strategies {
		res, err := s.Chat(conv, st)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = res
		}
		rep.Limit, rep.LimitCause = res.Limit, res.LimitCause
		js := chatStrategyJSON{Strategy: string(st), SystemS: res.SystemTime}
		for _, t := range res.Turns {
			js.Turns = append(js.Turns, chatTurnJSON{t.N, t.Prefill, t.Depth, t.DroppedTurns, t.ShiftTime, t.TTFT, jnum(t.TPOT), t.E2E, t.Cumulative, t.Context, t.Memory})
		}
		js.TotalS = res.Turns[len(res.Turns)-1].Cumulative
		rep.Strategies = append(rep.Strategies, js)
	}
	last := first.Turns[len(first.Turns)-1]
	if last.DroppedTurns > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("from turn %d the conversation exceeds the context limit of %d tokens (%s): the oldest turns are dropped, %d by the last turn",
			firstDropTurn(first), first.Limit, sim.LimitCauseText(first.LimitCause), last.DroppedTurns))
	}

	// Cold start: load, then the system prompt (cached strategies) and the
	// first turn's prefill, beside the warm first turn.
	t1 := first.Turns[0]
	rep.Cold = coldJSON{StorageBytesPerS: s.Device.StorageBandwidth, WeightsBytes: s.Model.WeightBytes,
		LoadS: s.Model.WeightBytes / s.Device.StorageBandwidth, SystemS: first.SystemTime, FirstTTFTS: t1.TTFT, WarmTTFTS: t1.TTFT}
	rep.Cold.ColdTTFTS = rep.Cold.LoadS + rep.Cold.SystemS + rep.Cold.FirstTTFTS
	for _, m := range hardware.StorageMedia {
		load := s.Model.WeightBytes / m.Bandwidth
		rep.Cold.Media = append(rep.Cold.Media, coldMediumJSON{m.Name, m.Bandwidth, load, load + rep.Cold.SystemS + rep.Cold.FirstTTFTS})
	}

	// Energy, for the device and each power mode of it.
	if err := chatEnergy(c, cat, s, conv, first.Strategy, rep); err != nil {
		return nil, err
	}

	// Concurrent chats at the conversation's final context.
	ctx := last.Context
	search := s.PlanLimits(1, ctx, conv.User, conv.Reply, conv.UBatch, tg).MaxBatchFit + 1
	all := s.Concurrent(min(max(maxN, search), 4096), ctx, conv.User, conv.Reply, conv.UBatch, tg)
	cj := concurrentJSON{Context: ctx, TTFTTarget: tg.TTFT, TPOTTarget: tg.TPOT, MaxInMemory: search - 1}
	n, l := sim.FirstFailure(all)
	switch {
	case n == 0:
		cj.MaxMeeting = len(all)
	default:
		cj.MaxMeeting, cj.FirstFail = n-1, l.String()
	}
	for _, r := range all[:min(maxN, len(all))] {
		cj.Rows = append(cj.Rows, concurrentRowJSON{r.N, r.TTFT, r.JoinTTFT, r.TPOT, r.Throughput, r.Memory, r.Fits, r.Limit.String()})
	}
	rep.Concurrent = cj

	if c.String("draft") != "" {
		// The draft runs in the target's format unless told otherwise (a
		// GGUF file's own types do not carry over to another model).
		dw := c.String("draft-weights")
		if dw == "" && s.Model.Weights.Name != model.FileWeightsName {
			dw = s.Model.Weights.Name
		}
		draft, err := resolveSetup(c, cat, "draft", dw)
		if err != nil {
			return nil, fmt.Errorf("--draft: %w", err)
		}
		if draft.Model.Spec.Vocab != s.Model.Spec.Vocab {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the draft's vocabulary (%d) differs from the target's (%d): speculative decoding needs the same tokenizer", draft.Model.Spec.Vocab, s.Model.Spec.Vocab))
		}
		sp := sim.Speculation{K: c.Int("draft-tokens"), Acceptance: c.Float64("acceptance")}
		if err := sp.Validate(); err != nil {
			return nil, usageErr("%v", err)
		}
		sctx := conv.System + conv.User + 1
		r, err := s.Speculate(draft, sp, sctx, 1)
		if err != nil {
			return nil, err
		}
		fits := s.MemoryNeed(last.Context, 1, conv.UBatch)+r.ExtraMemory <= s.Device.Usable
		rep.Spec = &specJSON{draft.Model.Spec.Name, draft.Model.Weights.Name, sp.K, sp.Acceptance, sctx, r.TokensPerRound, r.DraftTime, r.VerifyTime,
			r.TPOT, r.PlainTPOT, r.Speedup, r.BreakEven, r.ExtraMemory, fits}
	}
	return rep, nil
}

func firstDropTurn(r *sim.ChatResult) int {
	for _, t := range r.Turns {
		if t.DroppedTurns > 0 {
			return t.N
		}
	}
	return 0
}

// chatEnergy prices the conversation's mean turn at the device's power and
// at every power mode of the same device that has a rated power.
func chatEnergy(c *cli.Context, cat *profiles.Catalog, s *sim.Setup, conv sim.Conversation, st sim.Strategy, rep *chatReport) error {
	power, basis, err := enginePower(c, s.Engine)
	if err != nil {
		return err
	}
	if power == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no energy figures: the %s engine of %s has no rated power in its profile; give --power", s.Engine.Name, s.Device.Name))
		return nil
	}
	ej := &energyJSON{Basis: "estimates from " + basis + ", drawn for the whole of each request; a measured draw is usually lower", BatteryWh: c.Float64("battery-wh")}
	modes := []*sim.Setup{s}
	if !c.IsSet("power") {
		modes = append(modes, powerModes(cat, s)...)
	}
	for _, m := range modes {
		res, err := m.Chat(conv, st)
		if err != nil {
			continue // a mode too small for the conversation
		}
		var tpot, e2e float64
		n := 0
		for _, t := range res.Turns {
			if !math.IsNaN(t.TPOT) {
				tpot += t.TPOT
				n++
			}
			e2e += t.E2E
		}
		tpot = tpot / float64(max(n, 1))
		if n == 0 {
			tpot = math.NaN()
		}
		e2e /= float64(len(res.Turns))
		p := power
		if m != s {
			p = m.Engine.Power
		}
		e, err := sim.EnergyFor(p, tpot, e2e, 1, ej.BatteryWh)
		if err != nil {
			return err
		}
		mode := m.Device.PowerMode
		if mode == "" {
			mode = "—"
		}
		ej.Modes = append(ej.Modes, energyModeJSON{m.Device.Name, mode, p, jnum(tpot), e.JoulesPerToken, e.JoulesPerAnswer, e.TokensPerWh, e.AnswersPerBatteryPercent})
	}
	rep.Energy = ej
	return nil
}

// powerModes are the other power modes of s's device (the base profile
// and its variants) on the same engine, with a rated power.
func powerModes(cat *profiles.Catalog, s *sim.Setup) []*sim.Setup {
	base := s.Device.VariantOf
	if base == "" {
		base = s.Device.Name
	}
	var out []*sim.Setup
	for _, d := range cat.Devices() {
		// Memory variants share the power mode; only other modes add a row.
		if d.Name == s.Device.Name || (d.Name != base && d.VariantOf != base) || d.PowerMode == "" || d.PowerMode == s.Device.PowerMode {
			continue
		}
		e, err := d.Engine(s.Engine.Name)
		if err != nil || e.Power <= 0 {
			continue
		}
		dd := *d
		dd.StorageBandwidth = s.Device.StorageBandwidth
		o := sim.DefaultOptions
		o.RuntimeOverhead, o.NoFlashAttention = s.Inputs.Overhead, !s.Inputs.FlashAttention
		m, err := sim.NewSetup(s.Model, &dd, e, s.Runtime, o)
		if err == nil {
			out = append(out, m)
		}
	}
	return out
}

// docWriter writes a command's report as text or Markdown.
type docWriter struct {
	w  io.Writer
	md bool
}

func (d docWriter) table(t report.Table) error {
	if d.md {
		return t.WriteMarkdown(d.w)
	}
	return t.WriteText(d.w)
}

// heading starts a section: a Markdown heading, or a blank line and the
// text (capitalised when capital is set).
func (d docWriter) heading(s string, capital bool) {
	switch {
	case d.md:
		fmt.Fprintf(d.w, "\n### %s\n\n", s)
	case capital:
		fmt.Fprintf(d.w, "\n%s\n", strings.ToUpper(s[:1])+s[1:])
	default:
		fmt.Fprintf(d.w, "\n%s\n", s)
	}
}

func writeChat(w io.Writer, r *chatReport, md bool) error {
	d := docWriter{w, md}
	write := d.table
	heading := func(s string) { d.heading(s, true) }
	title := fmt.Sprintf("%s on %s (%s engine, %s, weights %s, KV %s; η_bw %.2f, η_max %.2f)", r.Model, r.Hardware, r.Engine, r.Runtime, r.Weights, r.KV, r.EtaBW, r.EtaC)
	if md {
		fmt.Fprintf(w, "## %s\n\n", title)
	} else {
		fmt.Fprintln(w, title)
	}
	fmt.Fprintf(w, "conversation: %d turns; system prompt %d, user %d, reply %d tokens; context limit %d tokens (%s)\n",
		r.Turns, r.System, r.User, r.Reply, r.Limit, sim.LimitCauseText(r.LimitCause))

	heading("per turn")
	var t report.Table
	if len(r.Strategies) == 1 {
		st := r.Strategies[0]
		t = report.Table{Header: []string{"TURN", "PREFILL", "DEPTH", "TTFT", "TPOT", "E2E", "Σ E2E", "CONTEXT", "MEMORY", "NOTE"}, Right: map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true}}
		for _, tr := range st.Turns {
			note := ""
			if tr.DroppedTurns > 0 {
				note = fmt.Sprintf("%d oldest turn%s dropped", tr.DroppedTurns, plural(tr.DroppedTurns))
				if tr.ShiftS > 0 {
					note += ", shift " + dur(tr.ShiftS)
				}
			}
			t.Add(fmt.Sprint(tr.Turn), fmt.Sprint(tr.Prefill), fmt.Sprint(tr.Depth), dur(tr.TTFT), durp(tr.TPOT), dur(tr.E2E), dur(tr.CumulativeS),
				fmt.Sprint(tr.Context), units.FormatBytes(tr.MemoryBytes, units.Binary), note)
		}
		fmt.Fprintf(w, "strategy %s\n", st.Strategy)
	} else {
		// Memory differs by strategy only through the prefill's activations.
		t = report.Table{Header: []string{"TURN", "CONTEXT", "MEMORY " + r.Strategies[0].Strategy, "TPOT"}, Right: map[int]bool{}}
		for _, st := range r.Strategies {
			t.Header = append(t.Header, "TTFT "+st.Strategy)
		}
		for _, st := range r.Strategies {
			t.Header = append(t.Header, "Σ E2E "+st.Strategy)
		}
		for i := range t.Header {
			t.Right[i] = true
		}
		for i := range r.Strategies[0].Turns {
			tr := r.Strategies[0].Turns[i]
			row := []string{fmt.Sprint(tr.Turn), fmt.Sprint(tr.Context), units.FormatBytes(tr.MemoryBytes, units.Binary), durp(tr.TPOT)}
			for _, st := range r.Strategies {
				row = append(row, dur(st.Turns[i].TTFT))
			}
			for _, st := range r.Strategies {
				row = append(row, dur(st.Turns[i].CumulativeS))
			}
			t.Add(row...)
		}
	}
	if err := write(t); err != nil {
		return err
	}
	for _, st := range r.Strategies {
		if st.SystemS > 0 {
			fmt.Fprintf(w, "%s: the system prompt is prefilled once at start-up (%s) and cached\n", st.Strategy, dur(st.SystemS))
		}
	}

	heading("cold start")
	cs := r.Cold
	fmt.Fprintf(w, "load %s of weights at %s: %s; then the system prompt %s and the first turn's prefill %s\n",
		units.FormatBytes(cs.WeightsBytes, units.Binary), units.FormatBandwidth(cs.StorageBytesPerS), dur(cs.LoadS), dur(cs.SystemS), dur(cs.FirstTTFTS))
	fmt.Fprintf(w, "time to the first word after start-up: %s (%s), warm: %s\n", dur(cs.ColdTTFTS), r.Strategies[0].Strategy, dur(cs.WarmTTFTS))
	fmt.Fprintln(w, "the same start from other storage (bus limits: real media read slower; give a measured rate with --storage):")
	mt := report.Table{Header: []string{"STORAGE", "READ", "LOAD", "FIRST WORD"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	for _, m := range cs.Media {
		mt.Add(m.Medium, units.FormatBandwidth(m.StorageBytesPerS), dur(m.LoadS), dur(m.ColdTTFTS))
	}
	if err := write(mt); err != nil {
		return err
	}

	if r.Energy != nil {
		heading("energy")
		fmt.Fprintf(w, "%s; mean over the turns (%s)\n", r.Energy.Basis, r.Strategies[0].Strategy)
		et := report.Table{Header: []string{"HARDWARE", "POWER MODE", "POWER", "TPOT", "J/TOKEN", "J/ANSWER", "TOKENS/WH"}, Right: map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true}}
		if r.Energy.BatteryWh > 0 {
			et.Header = append(et.Header, fmt.Sprintf("ANSWERS PER 1%% OF %g WH", r.Energy.BatteryWh))
			et.Right[7] = true
		}
		for _, m := range r.Energy.Modes {
			row := []string{m.Hardware, m.PowerMode, fmt.Sprintf("%g W", m.PowerW), durp(m.TPOT), fmt.Sprintf("%.3g", m.JoulesPerToken), fmt.Sprintf("%.3g", m.JoulesPerAnswer), fmt.Sprintf("%.0f", m.TokensPerWh)}
			if r.Energy.BatteryWh > 0 {
				row = append(row, fmt.Sprintf("%.1f", m.AnswersPerPct))
			}
			et.Add(row...)
		}
		if err := write(et); err != nil {
			return err
		}
	}

	heading("concurrent chats")
	cj := r.Concurrent
	fmt.Fprintf(w, "continuous batching, each chat holding %d tokens at the end of a reply; a %d-token message arrives while the others generate, or every chat sends one at once (the targets are judged on the latter)\n", cj.Context, r.User)
	ct := report.Table{Header: []string{"CHATS", "TTFT ONE ARRIVES", "TTFT ALL AT ONCE", "TPOT", "TOKENS/S ALL", "MEMORY", "FAILS"}, Right: map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true, 5: true}}
	for _, row := range cj.Rows {
		ct.Add(fmt.Sprint(row.N), dur(row.JoinTTFT), dur(row.TTFT), dur(row.TPOT), fmt.Sprintf("%.4g", row.Throughput), units.FormatBytes(row.MemoryBytes, units.Binary), row.Fails)
	}
	if err := write(ct); err != nil {
		return err
	}
	targets := fmt.Sprintf("TTFT %s, TPOT %s", dur(cj.TTFTTarget), dur(cj.TPOTTarget))
	switch {
	case cj.MaxMeeting == 0:
		fmt.Fprintf(w, "not even one chat meets the targets (%s): it fails %s\n", targets, cj.FirstFail)
	case cj.FirstFail != "":
		fmt.Fprintf(w, "up to %d chats meet the targets (%s); chat %d fails %s; memory holds %d\n", cj.MaxMeeting, targets, cj.MaxMeeting+1, cj.FirstFail, cj.MaxInMemory)
	default:
		fmt.Fprintf(w, "every count up to %d meets the targets (%s); memory holds %d\n", cj.MaxMeeting, targets, cj.MaxInMemory)
	}

	if sp := r.Spec; sp != nil {
		heading("speculative decoding")
		fmt.Fprintf(w, "draft %s (%s) proposes %d tokens per round, each accepted with probability %.2f; at context %d (the first reply)\n",
			sp.Draft, sp.DraftWeights, sp.K, sp.Acceptance, sp.Context)
		st := report.Table{Header: []string{"", "VALUE", "HOW"}, Right: map[int]bool{1: true}}
		st.Add("tokens per round", fmt.Sprintf("%.3f", sp.TokensPerRound), "(1 − a^(k+1)) / (1 − a)")
		st.Add("draft steps", dur(sp.DraftS), fmt.Sprintf("%d decode steps of the draft", sp.K))
		st.Add("verification", dur(sp.VerifyS), fmt.Sprintf("one target pass of %d tokens", sp.K+1))
		st.Add("TPOT", dur(sp.TPOT), "(draft + verification) / tokens per round")
		st.Add("plain TPOT", dur(sp.PlainTPOT), "one target decode step")
		st.Add("speed-up", fmt.Sprintf("%.2f×", sp.Speedup), "")
		be := fmt.Sprintf("%.2f", sp.BreakEven)
		switch sp.BreakEven {
		case 0:
			be = "0 (always pays)"
		case 1:
			be = "never pays at this k"
		}
		st.Add("pays off above acceptance", be, "where tokens per round = cost / plain step")
		st.Add("extra memory", units.FormatBytes(sp.ExtraMemory, units.Binary), "draft weights and KV cache")
		if err := write(st); err != nil {
			return err
		}
		if !sp.Fits {
			fmt.Fprintln(w, "the target, its cache at the last turn and the draft DO NOT FIT in usable memory together")
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range r.Notes {
			fmt.Fprintf(w, "note %d: %s\n", i+1, n)
		}
	}
	return nil
}

// durp formats an optional duration.
func durp(v num) string {
	if v == nil {
		return "—"
	}
	return dur(*v)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
