package limits

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Model shape: what a model profile, a config.json or a GGUF header may
// state. The largest published models (Llama 3.1 405B, DeepSeek-V3,
// Gemma 3) stay at least 16 times below each.
const (
	Layers        = 4096    // num_hidden_layers (largest published: 126)
	Hidden        = 1 << 18 // hidden_size (16384)
	Heads         = 1 << 14 // num_attention_heads, num_key_value_heads (128)
	HeadDim       = 1 << 14 // head_dim and every MLA width (256; MLA 1536)
	FFN           = 1 << 20 // intermediate_size, dense or per expert (53248)
	Vocab         = 1 << 24 // vocab_size (262208)
	Context       = 1 << 30 // max_position_embeddings and sliding_window (10 M)
	LayerPattern  = Layers  // entries of a layer pattern (6)
	NormsPerLayer = 16      // H-wide norms per block (4)
	Experts       = 1 << 14 // routed experts per MoE layer (384)
	SharedExperts = 256     // shared experts (2)
	// Params bounds the parameter count a shape implies, computed in
	// floating point so that no product of the counts above can wrap.
	Params = 1e15 // (2 × 10¹² at most)
)

// GGUF headers.
const (
	GGUFTensors     = 1 << 18   // tensor-table entries (a few thousand)
	GGUFName        = 1 << 10   // bytes of a metadata key or tensor name (ggml: 64)
	GGUFKeptString  = 4 << 10   // longer string values are skipped, not kept
	GGUFMetadata    = 1 << 16   // metadata entries (a few dozen)
	GGUFString      = 1 << 20   // bytes of one string
	GGUFArray       = 1 << 24   // elements of one array (the token list: 262 k)
	GGUFHeaderBytes = 512 << 20 // bytes of one header (tens of MB)
	GGUFDims        = 4         // dimensions of a tensor
	GGUFDim         = 1 << 40   // one tensor dimension
	GGUFElements    = 1 << 50   // elements of one tensor
	SplitParts      = 1024      // parts of a split model (largest published: ~60)
	// LocalHeaderBytes is the byte budget of a local model's headers over
	// all its split parts, as one header may take.
	LocalHeaderBytes = GGUFHeaderBytes
)

// Remote GGUF headers, read with HTTP range requests.
const (
	// RemoteBytes is the byte budget of one model's headers over all its
	// split parts.
	RemoteBytes = 64 << 20
	// RemoteDeadline bounds the whole read of a model's headers, every
	// part, remote or local.
	RemoteDeadline = 5 * time.Minute
	// RemoteRequestTimeout bounds one range request.
	RemoteRequestTimeout = 60 * time.Second
	// RemoteMinChunk is the least a range response must carry unless it
	// reaches the end of the file: a server that dribbles bytes is refused.
	RemoteMinChunk = 64 << 10
	// RemoteRedirects bounds the redirects one request may follow.
	RemoteRedirects = 10
	// HubListingBytes bounds the Hugging Face Hub's answer listing a
	// repository's files (a GGUF repository of 100 quantizations lists
	// a few kB).
	HubListingBytes = 16 << 20
	// OllamaManifestBytes bounds an Ollama manifest (about 1 kB).
	OllamaManifestBytes = 1 << 20
)

// Files and token counts.
const (
	// ProfileBytes bounds a TOML profile, a config.json or a study file
	// (the largest built-in profile is 12 kB).
	ProfileBytes = 16 << 20
	// TOMLBytes bounds a TOML file, profile or study, before it is
	// decoded: 20 times the largest built-in profile (12 kB). The decoder
	// keeps about 60 B for each byte of keys and tables (a 1 MiB file of
	// inline tables in an array held 190 MB).
	TOMLBytes = 256 << 10
	// TOMLDepth bounds how deep a key of a TOML file sits: the parts of
	// its table's header, its own dotted parts and the inline tables and
	// arrays around it. The deepest key of roofline's schemas has 5
	// (variant.engine.peak.fp16.value): a deeper one is an unknown key,
	// refused before the decoder spends on it.
	TOMLDepth = 8
	// HFRefBytes bounds a ref of the Hugging Face cache (refs/main): a
	// commit hash of 40 or 64 hexadecimal digits.
	HFRefBytes = 256
	// MeasuredBytes bounds one measured-run file or standard input (a
	// vLLM result with every request of a 10,000-prompt run: ~50 MB).
	MeasuredBytes = 64 << 20
	// Runs bounds the runs one measured file may hold.
	Runs = 1 << 17
	// TokensPerS bounds a measured rate (the fastest published aggregate
	// rates are near 10⁶ tokens/s).
	TokensPerS = 1e12
	// Tokens bounds every token count and batch size: of a workload, a
	// measured run, a study.
	Tokens = 1 << 30
	// ChatTurns bounds the turns of a chat (a turn a minute for 69 days).
	ChatTurns = 100000
	// SearchTokens bounds context lengths the planner and plots sweep and
	// the searches for the longest context or prompt.
	SearchTokens = 1 << 24
	// Devices bounds the devices a plan spreads a model over and the
	// smallest count a DOES NOT FIT answer searches (an HGX node has 8;
	// the largest published board clusters have 8 to 16).
	Devices = 64
	// PlanConfigs bounds the configurations one plan evaluates: device
	// engine × model × format groups × context lengths × batch sizes,
	// checked before any is evaluated. Every built-in device, model and
	// format at 8 contexts × 16 batch sizes is 7.0 million; a plan of
	// 2^24 takes about 10 s and, as CSV, writes 3 GB.
	PlanConfigs = 1 << 24
	// ReportConfigs bounds the configurations of a study's plan: a report
	// writes each as a JSON object and six CSV rows, about 1 kB and 25 µs,
	// so 2^22 take 4 GB and two minutes.
	ReportConfigs = 1 << 22
	// ReportServeRequests bounds the requests of one serving run of a
	// report ([serve] requests): serve's default is 1,000, plan --rate's
	// 1,000 a rate.
	ReportServeRequests = 100_000
	// ReportServeRates bounds the rates a report's [serve] table lists.
	ReportServeRates = 8
	// ReportServeWork bounds the requests a report's serving section
	// simulates over all its configurations: each rate's run and the
	// max-rate search, each at the expected step times and the interval's
	// two ends. The slowest server (continuous batching) simulates some
	// 10⁵ to 10⁶ requests a second on one core, so the cap is under a
	// minute.
	ReportServeWork = 1 << 23
	// PlanKept bounds the configurations a plan keeps in memory (64 B
	// each) for a figure: 40 rows of 26,214 context lengths.
	PlanKept = 1 << 20
)

// SoftMemory is the Go runtime's soft memory limit (less under a
// cgroup's memory.max or ulimit -v): past it the collector runs as often
// as it must, so that the largest documented inputs (a 131,072-run file,
// a chat of 100,000 turns) stay near what they hold live, under 500 MB.
const SoftMemory = 384 << 20

// What a message quotes of its input.
const (
	// Errors bounds the distinct errors one input reports; the rest are
	// counted (a file of 150,000 unknown keys).
	Errors = 20
	// EchoWord bounds a run of bytes without a space that a message
	// quotes (a 100,000-digit number); longer ones keep their ends.
	EchoWord = 512
	// EchoLines and EchoBytes bound one message.
	EchoLines = 100
	EchoBytes = 64 << 10
)

// Ceiling is one limit, for documentation and messages.
type Ceiling struct {
	Name  string // as docs/profiles.md lists it
	Value float64
	Unit  string // "", "B" or "s"
}

// String renders the value the way docs/profiles.md writes it.
func (c Ceiling) String() string {
	switch c.Unit {
	case "B":
		n := int64(c.Value)
		switch {
		case n >= 1<<30 && n%(1<<30) == 0:
			return fmt.Sprintf("%d GiB", n>>30)
		case n >= 1<<20 && n%(1<<20) == 0:
			return fmt.Sprintf("%d MiB", n>>20)
		case n >= 1<<10 && n%(1<<10) == 0:
			return fmt.Sprintf("%d KiB", n>>10)
		}
		return fmt.Sprintf("%d B", n)
	case "s":
		return fmt.Sprint(time.Duration(c.Value * float64(time.Second)))
	}
	return Count(c.Value)
}

// Count writes a count as a power of two where it is one (2^24), else in
// full.
func Count(v float64) string {
	if e := math.Log2(v); e == math.Trunc(e) && e >= 8 {
		return fmt.Sprintf("2^%d", int(e))
	}
	if v >= 1e6 && v == math.Pow(10, math.Round(math.Log10(v))) {
		return fmt.Sprintf("1e%d", int(math.Round(math.Log10(v))))
	}
	return fmt.Sprint(v)
}

// All lists every ceiling, in the order docs/profiles.md gives them.
func All() []Ceiling {
	return []Ceiling{
		{"num_hidden_layers", Layers, ""},
		{"hidden_size", Hidden, ""},
		{"num_attention_heads, num_key_value_heads", Heads, ""},
		{"head_dim, MLA ranks and head widths", HeadDim, ""},
		{"intermediate_size (dense, per expert, shared)", FFN, ""},
		{"vocab_size", Vocab, ""},
		{"max_position_embeddings, sliding_window", Context, ""},
		{"layer_pattern entries", LayerPattern, ""},
		{"norms_per_layer", NormsPerLayer, ""},
		{"moe.experts", Experts, ""},
		{"moe.shared_experts", SharedExperts, ""},
		{"parameters implied by the shape", Params, ""},
		{"GGUF tensors", GGUFTensors, ""},
		{"GGUF metadata entries", GGUFMetadata, ""},
		{"GGUF string", GGUFString, "B"},
		{"GGUF key or tensor name", GGUFName, "B"},
		{"GGUF string value kept (longer ones are skipped)", GGUFKeptString, "B"},
		{"GGUF array elements", GGUFArray, ""},
		{"GGUF header", GGUFHeaderBytes, "B"},
		{"GGUF tensor dimensions", GGUFDims, ""},
		{"GGUF tensor dimension", GGUFDim, ""},
		{"GGUF tensor elements", GGUFElements, ""},
		{"split parts", SplitParts, ""},
		{"local header bytes, all parts", LocalHeaderBytes, "B"},
		{"remote header bytes, all parts", RemoteBytes, "B"},
		{"reading a model's headers, all parts (remote or local)", RemoteDeadline.Seconds(), "s"},
		{"one range request", RemoteRequestTimeout.Seconds(), "s"},
		{"least a range response carries (unless the file ends)", RemoteMinChunk, "B"},
		{"redirects per request", RemoteRedirects, ""},
		{"Hugging Face Hub listing of a repository's files", HubListingBytes, "B"},
		{"Ollama manifest", OllamaManifestBytes, "B"},
		{"profile, config.json or study file", ProfileBytes, "B"},
		{"TOML file (profile or study)", TOMLBytes, "B"},
		{"TOML key depth (header, dotted parts, inline tables and arrays)", TOMLDepth, ""},
		{"Hugging Face cache ref", HFRefBytes, "B"},
		{"soft memory limit of the runtime (less under a cgroup or ulimit -v)", SoftMemory, "B"},
		{"errors told per input (the rest are counted)", Errors, ""},
		{"bytes without a space a message quotes", EchoWord, "B"},
		{"lines of one message", EchoLines, ""},
		{"bytes of one message", EchoBytes, "B"},
		{"measured-run file or stdin", MeasuredBytes, "B"},
		{"runs per measured file", Runs, ""},
		{"token counts and batch sizes", Tokens, ""},
		{"measured tokens/s", TokensPerS, ""},
		{"turns of a chat", ChatTurns, ""},
		{"contexts searched and swept", SearchTokens, ""},
		{"devices a plan spreads a model over", Devices, ""},
		{"configurations one plan evaluates (groups × contexts × batches)", PlanConfigs, ""},
		{"configurations of a study's plan (a report)", ReportConfigs, ""},
		{"configurations a plan figure keeps", PlanKept, ""},
		{"requests of one serving run of a report", ReportServeRequests, ""},
		{"rates of a report's [serve] table", ReportServeRates, ""},
		{"requests a report's serving section simulates (configurations × runs × requests)", ReportServeWork, ""},
	}
}

// CheckCount returns an error naming key when v is outside [0, max].
func CheckCount(key string, v, max int) error {
	switch {
	case v < 0:
		return fmt.Errorf("%s must not be negative, got %s", key, Echo(v))
	case v > max:
		return fmt.Errorf("%s %s exceeds the limit of %s", key, Echo(v), Count(float64(max)))
	}
	return nil
}

// Echo writes a count a file or a user gave back in a message: in full up
// to 15 digits, past them with an exponent (9.22e+18, not the 19 digits
// of 2⁶³−1), so that no message holds a number of more than 17
// significant digits.
func Echo(v int) string {
	if v > -1e15 && v < 1e15 {
		return strconv.Itoa(v)
	}
	return strconv.FormatFloat(float64(v), 'g', 3, 64)
}

// Mul multiplies non-negative counts, reporting false when the product
// exceeds max (or overflows).
func Mul(max int64, xs ...int64) (int64, bool) {
	p := int64(1)
	for _, x := range xs {
		if x < 0 {
			return 0, false
		}
		if x != 0 && p > max/x {
			return 0, false
		}
		p *= x
	}
	return p, p <= max
}
