package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/plots"
	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/units"
)

// FigureKind is a figure roofline draws: the registry entry read by the
// plot command (its subcommands and flags), by study validation and by the
// report (captions). Adding a kind is an entry here and its builder.
type FigureKind struct {
	Name    string
	Usage   string // what it shows, one line
	Caption string // the report's caption
	// Tall figures stack two panels: a taller default height.
	Tall   bool
	Inputs Inputs
	Params []Param
	build  func(*Env, *FigureRequest) (*plots.Figure, []string, error)
}

// Inputs is the request a figure reads.
type Inputs uint8

// The inputs of figures.
const (
	// SeriesInputs: models × devices × engines × weights at one workload,
	// optionally with measured runs drawn over the predictions.
	SeriesInputs Inputs = iota
	// PlanInputs: a plan's search space and targets.
	PlanInputs
	// SetupInputs: one model on one device.
	SetupInputs
	// RunsInputs: measured runs and what their files do not say.
	RunsInputs
)

// Param is an option of one figure kind, as text: whoever asks (a flag,
// a study) gives it as written, and the builder parses it with units.
type Param struct {
	Name    string
	Aliases []string
	Usage   string
	Default string
	Int     bool // a whole number (a flag of type int)
	Tokens  bool // an Int that counts tokens: k and M suffixes (units.ParseTokenCount)
	// Bool is true or false, or unset ("": the figure chooses).
	Bool bool
}

// logYParam sets the y scale of a figure of curves: log, linear, or, left
// unset, log when the values span more than plots.MaxLinearSpan;
// logYLogParam, of one drawn on a log scale unless asked.
var (
	logYParam = Param{Name: "log-y", Bool: true,
		Usage: fmt.Sprintf("y axis on a log scale (--log-y=false: linear); default: log when the values span more than %d×", plots.MaxLinearSpan)}
	logYLogParam = Param{Name: "log-y", Bool: true, Usage: "y axis on a log scale (default; --log-y=false: linear)"}
)

// FigureRequest asks for one figure: the inputs of its kind and its
// params by name.
type FigureRequest struct {
	Kind   string
	Series SeriesRequest
	Plan   PlanRequest
	Setup  Selection
	Runs   CompareRequest
	Params map[string]string
	kind   *FigureKind
}

// SeriesRequest is the combinations a series figure draws.
type SeriesRequest struct {
	Models, Devices, Engines, Weights []string
	Runtime, KV                       string
	Workload                          Workload
	Options                           Options
	Targets                           Targets
	// Measured are files of measured runs drawn over the predictions, each
	// on the series of its device, model and format.
	Measured []MeasuredFile
	// Facet is the dimension whose values each get a panel (one of
	// FacetDims); "" lets the figure choose when more than
	// plots.MaxSeries series would share one.
	Facet string
}

// FacetDims are the dimensions a series figure can be faceted by, in the
// order the figure tries them.
var FacetDims = []string{"device", "engine", "model", "weights", "kv"}

// Figure is a drawn figure and what the user should know about its data.
type Figure struct {
	*plots.Figure
	Kind     *FigureKind
	Warnings []string
}

// RequestError is a request that cannot be answered as asked; Input names
// what is wrong (a param, a workload field) when one thing is.
type RequestError struct {
	Input string
	Msg   string
	// Hint is advice on what to do instead ("": none).
	Hint string
	// Err is the library's error the message words, if any.
	Err error
}

func (e *RequestError) Unwrap() error { return e.Err }

func (e *RequestError) Error() string {
	if e.Input == "" {
		return e.Msg
	}
	return e.Input + " " + e.Msg
}

// HintedError is an error with advice on what to ask instead.
type HintedError struct {
	Err    error
	Advice string
}

func (e *HintedError) Error() string { return e.Err.Error() }
func (e *HintedError) Unwrap() error { return e.Err }

// Hint is the advice, printed on a line of its own.
func (e *HintedError) Hint() string { return e.Advice }

// Figures lists the figure kinds in documentation order.
var Figures = []*FigureKind{
	{Name: "roofline", Usage: "attainable FLOP/s against arithmetic intensity, with prefill and decode operating points",
		Caption: "Attainable FLOP/s against arithmetic intensity, with predicted and measured operating points.",
		Params:  []Param{{Name: "max-batch", Default: "256", Int: true, Usage: "largest decode batch placed on the chart (batches 1, 16, 256, …)"}},
		build:   figRoofline},
	{Name: "tpot-context", Usage: "time per output token against context length",
		Caption: "Time per output token as the KV cache grows; solid expected, dashed the physical limit; × where memory runs out.",
		Params:  []Param{{Name: "max-context", Usage: "longest context drawn (`N`, k = 1024); default: the model's"}, logYParam},
		build:   figTPOTContext},
	{Name: "ttft-prompt", Usage: "time to first token against prompt length",
		Caption: "Time to first token against prompt length; △ where prefill turns compute-bound.",
		Params:  []Param{{Name: "max-prompt", Default: "32k", Usage: "longest prompt drawn (`N`, k = 1024)"}, logYLogParam},
		build:   figTTFTPrompt},
	{Name: "batch", Usage: "throughput and per-sequence TPOT against batch size", Tall: true,
		Caption: "Aggregate throughput and per-sequence TPOT against batch size.",
		Params:  []Param{{Name: "max-batch", Default: "256", Int: true, Usage: "largest batch drawn"}, logYParam},
		build:   figBatch},
	{Name: "memory", Usage: "weights, KV cache, activations and overhead against usable memory",
		Caption: "Weights, KV cache, activations and runtime overhead against usable memory.",
		Params:  []Param{{Name: "context", Usage: "contexts per sequence (`LIST`, k = 1024); default: prompt + depth + output"}},
		build:   figMemory},
	{Name: "compare", Usage: "predicted against measured tokens/s, and MBU per run", Tall: true, Inputs: RunsInputs,
		Caption: "Predicted against measured tokens/s (y = x, ±20 %), and the MBU of each decode run.",
		build:   figCompare},
	{Name: "plan", Usage: "the feasible region of a plan", Inputs: PlanInputs,
		Caption: "Every configuration of the plan: meets every target, or the first constraint it fails.",
		build:   figPlan},
	{Name: "chat", Usage: "per-turn TTFT and cumulative latency of a conversation under each history strategy", Tall: true, Inputs: SetupInputs,
		Caption: "Per-turn TTFT and cumulative latency of a conversation under each history strategy.",
		Params: []Param{
			{Name: "turns", Default: "20", Int: true, Usage: "turns in the conversation"},
			{Name: "system-tokens", Tokens: true, Default: "500", Int: true, Usage: "system prompt tokens"},
			{Name: "user-tokens", Tokens: true, Default: "50", Int: true, Usage: "tokens of each user message"},
			{Name: "reply-tokens", Tokens: true, Default: "150", Int: true, Usage: "tokens of each reply"},
			{Name: "ubatch", Tokens: true, Default: "0", Int: true, Usage: "tokens per prefill pass; 0: the runtime's"},
			{Name: "ttft", Default: "1s", Usage: "TTFT target drawn as a reference line (`DURATION`)"},
			{Name: "log-y", Bool: true, Usage: fmt.Sprintf("y axes on a log scale (--log-y=false: linear); default: TTFT log, Σ E2E log when it spans more than %d×", plots.MaxLinearSpan)}},
		build: figChat},
	{Name: "concurrency", Usage: "per-chat TPOT and TTFT against the number of concurrent chats", Tall: true,
		Caption: "Per-chat TPOT and TTFT against concurrent chats.",
		Params:  []Param{{Name: "max-chats", Default: "32", Int: true, Usage: "largest number of concurrent chats drawn"}, logYLogParam},
		build:   figConcurrency},
	{Name: "speculative", Usage: "speculative decoding's speed-up against the acceptance rate, per number of drafted tokens", Inputs: SetupInputs,
		Caption: "Speculative decoding's speed-up against the acceptance rate, per number of drafted tokens, with the break-even acceptance of each.",
		Params: []Param{
			{Name: "draft", Usage: "draft `MODEL` (required)"},
			{Name: "draft-weights", Usage: "weight format `FMT` of the draft; default: the target's"},
			{Name: "draft-tokens", Default: "1,2,4,8", Usage: "drafted tokens per round, one curve each (`LIST`)"},
			{Name: "context", Default: "1024", Int: true, Tokens: true, Usage: "tokens the step attends (the KV cache)"},
			{Name: "batch", Aliases: []string{"b"}, Default: "1", Int: true, Usage: "concurrent sequences"}, logYParam},
		build: figSpeculative},
	{Name: "serve-rate", Usage: "p50 and p99 TTFT and TPOT of a serving runtime against the arrival rate: the knee", Tall: true, Inputs: SetupInputs,
		Caption: "p50 and p99 TTFT and TPOT against the Poisson arrival rate, at the rates the max-rate search ran; the targets in red.",
		Params:  serveParams("1"), build: figServeRate},
	{Name: "serve-cdf", Usage: "TTFT and TPOT of every request of a serving run, sorted (the CDF)", Tall: true, Inputs: SetupInputs,
		Caption: "TTFT and TPOT of every request of one serving run against the share of requests at or below it (the CDF, axes swapped).",
		Params:  serveParams("1"), build: figServeCDF},
	{Name: "serve-time", Usage: "requests waiting and running, and the KV cache held, over a serving run", Tall: true, Inputs: SetupInputs,
		Caption: "Requests waiting and running, and the share of the KV pool held, over one serving run.",
		Params:  serveParams("1"), build: figServeTime},
	{Name: "gpu-layers", Usage: "decode and prefill tokens/s against the layers on the GPU (llama.cpp -ngl), the rest offloaded to the host", Tall: true, Inputs: SetupInputs,
		Caption: "Decode and prefill tokens/s against the layers on the GPU, the rest in host memory on its CPU: the cliff where memory runs out and llama.cpp's --fit choice marked.",
		Params: []Param{
			{Name: "prompt", Default: "512", Int: true, Tokens: true, Usage: "prompt tokens"},
			{Name: "output-tokens", Default: "128", Int: true, Tokens: true, Usage: "tokens generated"},
			{Name: "host", Usage: "host `DEVICE` of the offloaded layers; default: desktop-ddr5 for a desktop GPU"}},
		build: figGPULayers},
	{Name: "ops", Usage: "the operators of a prefill and of a decode step on the engine's roofline, sized by their share of the time", Inputs: SetupInputs,
		Caption: "Each operator of a prefill and of a decode step on the engine's roofline (one mark per operator and layer kind), its area its share of the pass: an attribution of the predicted time.",
		Params: []Param{
			{Name: "prompt", Tokens: true, Default: "512", Int: true, Usage: "prompt tokens per sequence of the prefill (`N`, k = 1024)"},
			{Name: "context", Usage: "keys the decode step attends (`N`, k = 1024); default: the prompt + 1"},
			{Name: "batch", Aliases: []string{"b"}, Default: "1", Int: true, Usage: "concurrent sequences"},
			{Name: "ubatch", Tokens: true, Default: "0", Int: true, Usage: "tokens per prefill pass (`N`); 0: the runtime's"}},
		build: figOps},
}

// FigureKindOf finds a kind by name.
func FigureKindOf(name string) (*FigureKind, error) {
	for _, k := range Figures {
		if k.Name == name {
			return k, nil
		}
	}
	msg := fmt.Sprintf("unknown plot kind %q", name)
	if s := profiles.Suggest(name, FigureNames()); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return nil, fmt.Errorf("%s (kinds: %s)", msg, strings.Join(FigureNames(), ", "))
}

// Param finds a param of the kind by name or alias.
func (k *FigureKind) Param(name string) (Param, bool) {
	for _, p := range k.Params {
		if p.Name == name || slices.Contains(p.Aliases, name) {
			return p, true
		}
	}
	return Param{}, false
}

// FigureNames lists the kinds by name.
func FigureNames() []string {
	out := make([]string, len(Figures))
	for i, k := range Figures {
		out[i] = k.Name
	}
	return out
}

// Figure draws one figure.
func (env *Env) Figure(req *FigureRequest) (*Figure, error) {
	k, err := FigureKindOf(req.Kind)
	if err != nil {
		return nil, err
	}
	req.kind = k
	f, warnings, err := k.build(env, req)
	if err != nil {
		return &Figure{Kind: k, Warnings: warnings}, err
	}
	return &Figure{Figure: f, Kind: k, Warnings: warnings}, nil
}

// param is a kind's param as given, else its default.
// tokens reports whether the kind's param name counts tokens.
func (k *FigureKind) tokens(name string) bool {
	for _, p := range k.Params {
		if p.Name == name {
			return p.Tokens
		}
	}
	return false
}

func (req *FigureRequest) param(name string) string {
	if v, ok := req.Params[name]; ok {
		return v
	}
	for _, p := range req.kind.Params {
		if p.Name == name {
			return p.Default
		}
	}
	return ""
}

// CountNote says why a count written as a token count ("4k" for a
// batch, users or requests) is refused where the flag counts something
// else: k and M are for token counts alone, and 4096 is written whole.
func CountNote(s string) string {
	t := strings.TrimSpace(s)
	if n, err := units.ParseTokenCount(t); err == nil && strings.ContainsAny(t, "kKmM") {
		return fmt.Sprintf(" (k and M are for token counts alone: write %d)", n)
	}
	return ""
}

// intParam reads a whole-number param within [lo, hi]; a token count
// takes k and M.
func (req *FigureRequest) intParam(name string, lo, hi int) (int, error) {
	s := req.param(name)
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil && req.kind.tokens(name) {
		v, err = units.ParseTokenCount(s)
	}
	if err != nil {
		return 0, &RequestError{Input: name, Msg: fmt.Sprintf("%q: want a whole number%s", s, CountNote(s))}
	}
	if v < lo || v > hi {
		return 0, &RequestError{Input: name, Msg: fmt.Sprintf("%d: want %d … %d", v, lo, hi)}
	}
	return v, nil
}

// scaleParam reads the log-y param: def when unset.
func (req *FigureRequest) scaleParam(def plots.YScale) (plots.YScale, error) {
	switch v := strings.ToLower(strings.TrimSpace(req.param(logYParam.Name))); v {
	case "":
		return def, nil
	case "true":
		return plots.LogY, nil
	case "false":
		return plots.LinearY, nil
	default:
		return 0, &RequestError{Input: logYParam.Name, Msg: fmt.Sprintf("%q: want true or false", v)}
	}
}

// tokensParam reads a token-count param (k = 1024); 0 when empty.
func (req *FigureRequest) tokensParam(name string) (int, error) {
	s := req.param(name)
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	v, err := units.ParseTokens(s)
	if err != nil {
		return 0, &RequestError{Input: name, Msg: err.Error()}
	}
	return v, nil
}
