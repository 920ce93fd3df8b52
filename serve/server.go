package serve

import (
	"fmt"
	"math"

	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/sim"
)

// Server is a serving runtime on one setup: its scheduler, the KV-cache
// pool memory leaves it, and the pricer of its passes (sim.StepPricer,
// the code Predict sums).
type Server struct {
	Setup     *sim.Setup
	Scheduler runtimes.Scheduler
	// StepTokens is the most tokens one step processes, PassTokens the
	// most one forward pass does (a step is split into passes above it).
	StepTokens, PassTokens int
	// PromptPass is the pass of a runtime that prefills each prompt whole
	// (gpt-fast, TensorRT Edge-LLM): the longest prompt the workload
	// sends (Options.LongestPrompt), at most the model's context, which
	// its activations are sized for; 0 when passes are a chunk.
	PromptPass int
	// Blocks is the KV-cache pool in blocks of Scheduler.BlockSize tokens
	// for PageLayers layers: every layer, or a group of them where sliding
	// layers free their out-of-window blocks (FreesWindows).
	Blocks int
	// Context is the most tokens (prompt and output) one request may hold:
	// the model's maximum context, a slot's share of the cache, the pool.
	Context int
	// ContextBound says what bounds Context: "model", "slot" or "memory".
	ContextBound string
	// FrontEnd is the runtime's front end the requests pass (the zero
	// FrontEnd: none), FrontEndEnds the ones the interval's fast and slow
	// ends run with (its figures' spread).
	FrontEnd     FrontEnd
	FrontEndEnds [2]FrontEnd
	// Split is the tensor-parallel group the server runs on (nil: one
	// device); Setup is then one device of it (sim.Split.Serving). For an
	// offload, Setup is its GPU's, with the whole model; for a pipeline
	// (PP stages, RPC boards), its first device's, with the whole model.
	Split  *sim.Split
	pricer *sim.StepPricer
	pool   pool
}

// Options adjust a server beyond its runtime's scheduler.
type Options struct {
	// UBatch is the prefill chunk of a runtime whose scheduler states no
	// step budget (FIFO: the chunk a prediction uses); 0 is the runtime's
	// default on the device (sim.Setup.Chunk; a runtime that prefills
	// each prompt whole, LongestPrompt).
	UBatch int
	// LongestPrompt is the longest prompt the server will be sent
	// (Workload.LongestPrompt), tokens: a runtime that prefills each
	// prompt whole takes passes of it, and its activations are sized for
	// it; 0 is the model's context (2²⁰ tokens where it states none).
	LongestPrompt int
	// LongestRequest is the most tokens a request the server will be sent
	// holds, prompt and output (Workload.LongestRequest): an engine that
	// allocates its KV cache at load, built for the workload, gives each
	// row that many (sim.Setup.PoolRow); 0: LongestPrompt.
	LongestRequest int
	// KVTokens replaces the pool memory leaves (llama.cpp -c), tokens; 0
	// keeps it.
	KVTokens int
	// MemoryShare replaces the share of the device's usable memory the
	// runtime takes for weights, activations, its own memory and the KV
	// cache (vLLM --gpu-memory-utilization); 0 keeps the runtime's.
	MemoryShare float64
	// Headroom is the share of usable memory kept free (plan --headroom):
	// of the share MemoryShare leaves, and of every memory of a split;
	// in [0, 1).
	Headroom float64
	// FrontEnd is the front end requests pass before the engine and
	// tokens after it; FrontEndEnds the interval's fast and slow ends of
	// it (zero: FrontEnd at both).
	FrontEnd     FrontEnd
	FrontEndEnds [2]FrontEnd
	// Split, when set, serves on a tensor-parallel group of devices like
	// the setup's (sim.Split.Serving): every pass is one device's shard of
	// it plus the links' time, the KV pool one device's. Build it on the
	// setup the scheduler's max_num_seqs gives (sim.Setup.WithMaxSeqs).
	// An offload (sim.Offload) serves on its GPU and host: every pass
	// runs the stages in turn (sim.Split.StepPricer), the KV pool what
	// the memory that fills first leaves (sim.Split.KVTokens), and the
	// setup is ignored for the split's. A pipeline (PP stages, RPC
	// boards) serves likewise, stage by stage, its passes overlapping on
	// the stages as its runtime overlaps them (sim.StepPricer.Overlap).
	Split *sim.Split
}

// New resolves a server of scheduler sch on setup s.
func New(s *sim.Setup, sch runtimes.Scheduler, o Options) (*Server, error) {
	if err := sch.Validate(); err != nil {
		return nil, err
	}
	if h := o.Headroom; !(h >= 0 && h < 1) {
		return nil, &WorkloadError{"Headroom", fmt.Sprintf("must be a share in [0, 1), got %g", h)}
	}
	stagewise := o.Split != nil && (o.Split.Kind == sim.Offload || o.Split.Kind == sim.Network || o.Split.PP > 1)
	if sch.Policy == runtimes.Static {
		// runStatic prices a batch in closed form on one device or a
		// tensor-parallel group, with no front end: the refusal names
		// what stands in the way.
		var not string
		switch {
		case o.Split != nil && o.Split.Kind == sim.Offload:
			not = "an offload to the host (give every layer to the device)"
		case o.Split != nil && o.Split.Kind == sim.Network:
			not = "boards over a network (run on one board)"
		case stagewise:
			not = "pipeline stages (run on one device, or on a tensor-parallel group under a runtime that has one)"
		case o.FrontEnd.On() || o.FrontEndEnds[0].On() || o.FrontEndEnds[1].On():
			not = "a front end (" + s.Runtime.Name + "'s, or --front-end's; --front-end off leaves it out)"
		}
		if not != "" {
			return nil, &runtimes.SchedulerError{Knob: "policy", Msg: "static: static batches are simulated on one device or a tensor-parallel group without a front end, not with " + not}
		}
	}
	if stagewise {
		// Each memory keeps the share free: the pool is what the one
		// that fills first leaves.
		o.Split = o.Split.WithHeadroom(o.Headroom)
	}
	var link sim.PassLink
	var staged *sim.StepPricer
	if sp := o.Split; stagewise {
		// Passes run the host's layers and the GPU's in turn, or a
		// pipeline's stages: the pricer of its stages, the setup the
		// first device's with the whole model.
		var err error
		if staged, err = sp.StepPricer(); err != nil {
			return nil, err
		}
		if o.MemoryShare != 0 {
			return nil, &WorkloadError{"MemoryShare", "a share of one device's memory does not apply to a split whose memories each hold the part placed in it (an offload, pipeline stages, boards)"}
		}
		s = sp.Main
	} else if sp != nil {
		shard, l, err := sp.Serving()
		if err != nil {
			return nil, err
		}
		s, link = shard, l
	}
	if o.UBatch < 0 || o.UBatch > sim.MaxTokens {
		return nil, &WorkloadError{"UBatch", fmt.Sprintf("must be 1 … %d tokens, or 0 for the runtime's default, got %d", sim.MaxTokens, o.UBatch)}
	}
	if o.LongestPrompt < 0 || o.LongestPrompt > sim.MaxTokens {
		return nil, &WorkloadError{"LongestPrompt", fmt.Sprintf("must be 0 … %d tokens, got %d", sim.MaxTokens, o.LongestPrompt)}
	}
	if o.LongestRequest < 0 || o.LongestRequest > 2*sim.MaxTokens {
		return nil, &WorkloadError{"LongestRequest", fmt.Sprintf("must be 0 … %d tokens, got %d", 2*sim.MaxTokens, o.LongestRequest)}
	}
	// A runtime that prefills each prompt whole (no step budget, no
	// chunk of its own or asked) takes passes of the longest prompt,
	// which its activations are sized for: no longer than a request
	// holds, the model's context (the source cuts longer draws).
	whole := o.LongestPrompt
	if mc := s.Model.Spec.MaxContext; whole == 0 || mc > 0 && whole > mc {
		whole = mc
	}
	if whole <= 0 {
		whole = 1 << 20
	}
	var promptPass int
	if sch.MaxTokens == 0 && sch.PassTokens == 0 && o.UBatch == 0 && s.Inputs.Chunk == 0 {
		promptPass = whole
	}
	o.UBatch = s.Chunk(o.UBatch, whole)
	if sh := o.MemoryShare; sh != 0 {
		if !(sh > 0 && sh <= 1) {
			return nil, &WorkloadError{"MemoryShare", fmt.Sprintf("must be a share in (0, 1], got %g", sh)}
		}
		// The pool is what the share leaves: the setup with that much
		// usable memory, its passes priced alike.
		c := *s
		c.Inputs.Usable = s.Device.Usable * sh
		s = &c
	}
	if staged == nil {
		// One device, or one of a tensor-parallel group: of what it
		// may use (MemoryShare's share, when given).
		s = s.WithHeadroom(o.Headroom)
	}
	if o.KVTokens < 0 || o.KVTokens > sim.MaxTokens {
		return nil, &WorkloadError{"KVTokens", fmt.Sprintf("must be 0 … %d tokens, got %d", sim.MaxTokens, o.KVTokens)}
	}
	for _, f := range append([]FrontEnd{o.FrontEnd}, o.FrontEndEnds[:]...) {
		if err := f.Validate(); err != nil {
			return nil, err
		}
	}
	// The runtime's CUDA graphs are captured up to a size that follows
	// its max_num_seqs (sim.Setup.WithMaxSeqs): --max-seqs moves it.
	s = s.WithMaxSeqs(sch.MaxSeqs)
	if o.FrontEndEnds == ([2]FrontEnd{}) {
		o.FrontEndEnds = [2]FrontEnd{o.FrontEnd, o.FrontEnd}
	}
	pricer := staged
	if pricer == nil {
		pricer = s.StepPricer().WithLink(link)
	}
	sv := &Server{Setup: s, Scheduler: sch, StepTokens: sch.MaxTokens, PassTokens: sch.PassTokens, PromptPass: promptPass, pricer: pricer,
		FrontEnd: o.FrontEnd, FrontEndEnds: o.FrontEndEnds, Split: o.Split}
	if sv.StepTokens == 0 {
		sv.StepTokens = o.UBatch
	}
	if sv.PassTokens == 0 || sv.PassTokens > sv.StepTokens {
		sv.PassTokens = sv.StepTokens
	}
	bs := sch.BlockSize
	perToken := s.Model.KVBytesPerToken()
	budget := s.KVBudget(sv.PassTokens)
	tokens := math.Floor(budget / perToken)
	var short string // the memory that bounds an offload's pool
	if staged != nil {
		// Each memory holds the cache of its own layers: the first to
		// fill bounds the pool.
		tokens, budget, short = o.Split.KVTokens(sv.PassTokens)
	}
	memTokens := tokens // what memory holds, before any bound or ask
	sv.pool = newPool(s.Model, bs, sch.FreesWindow)
	maxCtx := s.Model.Spec.MaxContext
	if sch.DividedContext || sch.MaxSeqs == 1 || bs == 1 {
		// A runtime with a context of cells (llama.cpp -c 0: the model's
		// own, fitted to memory) holds no more than the model's context.
		tokens = min(tokens, float64(maxCtx))
	}
	device := s.Device.Name
	switch {
	case staged != nil && o.Split.Kind == sim.Offload:
		device = fmt.Sprintf("%s with %s, in %s", device, offloadedText(o.Split), short)
	case staged != nil:
		device = fmt.Sprintf("%d %s in %d stages, in %s", o.Split.TP*o.Split.PP, device, o.Split.PP, short)
	case o.Split != nil:
		device = fmt.Sprintf("each of %d %s (tensor parallel)", o.Split.TP, device)
	}
	if o.KVTokens > 0 {
		// A pool asked for is allocated beside the weights: it does not
		// make them fit, nor hold more than the memory they leave
		// (llama.cpp -c past it fails to allocate the cache).
		if budget < 0 {
			return nil, sv.notFit(device, budget)
		}
		if float64(o.KVTokens) > memTokens {
			where := "the memory of " + device
			if staged != nil {
				where = short
			}
			return nil, &WorkloadError{"KVTokens", fmt.Sprintf("%d tokens do not fit: %s leaves %.0f MiB beside the weights, activations and overhead, room for %.0f tokens of KV cache", o.KVTokens, where, budget/(1<<20), memTokens)}
		}
		tokens = float64(o.KVTokens)
	}
	row := 0 // an engine pool's tokens a row (sim.Inputs.PoolSeqs)
	if in := &s.Inputs; in.PoolSeqs > 0 && staged == nil && o.KVTokens == 0 {
		// The engine allocates every row at load, built for the longest
		// request, prompt and output, at most the model's context
		// (sim.Setup.PoolRow): that pool, not what memory would hold, and
		// nothing if it does not fit.
		longest := max(o.LongestPrompt, o.LongestRequest)
		if maxCtx > 0 {
			longest = min(longest, maxCtx)
		}
		row = s.PoolRow(longest)
		tokens = float64(in.PoolSeqs * row)
		if budget < 0 {
			tokens = 0 // the weights, activations and overhead alone do not fit
		} else if tokens > memTokens {
			return nil, &sim.FieldError{Field: "MaxContext", Msg: fmt.Sprintf("%d: %s's engine allocates %s of %d tokens of KV cache (%s %d) at load, and %s leaves room for %.0f tokens beside the weights, activations and overhead; build it with a smaller %s or fewer rows (%s) and price that build (--max-context, --max-seqs), or choose a smaller format or a larger device",
				row, s.Runtime.Name, sim.Rows(in.PoolSeqs), row, in.PoolFlag, row, device, memTokens, in.PoolFlag, s.Runtime.KVPool.BatchFlag)}
		}
	}
	if !(tokens >= 1) {
		return nil, sv.notFit(device, budget)
	}
	pages := math.Floor(tokens / float64(bs))
	if p := &sv.pool; p.frees() && staged == nil {
		// Pages of `width` layers: the budget's, or the asked tokens'
		// blocks for every group.
		pages = p.pagesOf(s.KVBudget(sv.PassTokens), s.Model.KVPerLayerToken())
		if o.KVTokens > 0 {
			pages = math.Floor(tokens/float64(bs)) * float64(p.groups())
		}
	}
	sv.Blocks = int(math.Min(pages, 1<<40))
	sv.Context, sv.ContextBound = maxCtx, "model"
	// The pool's tokens of every layer: a page is a block of one group,
	// and a token's block takes a page in every group.
	capacity := sv.Blocks / int(sv.pool.groups()) * bs
	if sch.DividedContext {
		if slot := capacity / sch.MaxSeqs; slot < sv.Context {
			sv.Context, sv.ContextBound = slot, "slot"
		}
	}
	pool := capacity
	if p := &sv.pool; p.frees() && sch.OnFull != runtimes.Reserve {
		// Out-of-window blocks are freed as a request runs; a runtime
		// that reserves a request's whole length up front holds them all.
		pool = int(p.maxTokens(int64(sv.Blocks), int64(sv.StepTokens), int64(sv.Context)))
	}
	if pool < sv.Context {
		sv.Context, sv.ContextBound = pool, "memory"
	}
	if row > 0 && row <= sv.Context {
		sv.Context, sv.ContextBound = row, sim.BoundByBuild
	}
	if sv.Context < 2 {
		return nil, sv.notFit(device, budget)
	}
	return sv, nil
}

// offloadedText says what an offload keeps off the GPU: whole layers, the
// routed experts of layers it runs, or both (-ngl 99 --cpu-moe offloads no
// layer).
func offloadedText(sp *sim.Split) string {
	experts := fmt.Sprintf("the routed experts of %d layers in host memory", sp.ExpertLayers)
	switch {
	case sp.ExpertLayers > 0 && sp.GPULayers >= sp.Layers:
		return experts
	case sp.ExpertLayers > 0:
		return fmt.Sprintf("%d of %d layers on it and %s", sp.GPULayers, sp.Layers, experts)
	}
	return fmt.Sprintf("%d of %d layers on it", sp.GPULayers, sp.Layers)
}

// NotFitError is a server whose weights, activations and overhead leave
// no room for a KV cache.
type NotFitError struct {
	Model, Device string
	Budget        float64 // bytes left for the KV cache (negative: short by)
	// PromptPass is the pass of a runtime that prefills each prompt
	// whole, whose activations the memory holds (Server.PromptPass; 0:
	// a chunk).
	PromptPass int
	// PoolRows and PoolInput are the prefill profile an engine's scratch
	// memory is sized for at load (sim.Inputs.PoolSeqs × PoolInput),
	// set when it, not the longest prompt, sizes the activations;
	// BatchFlag and InputFlag the builder's flags that set them.
	PoolRows, PoolInput  int
	BatchFlag, InputFlag string
}

// notFit is the NotFitError of a server whose memory leaves budget for
// the KV cache on device: its activations are a pass of the longest
// prompt (promptPass), or the engine's prefill profile where that is
// larger (sim.Setup.fixed sizes the scratch for the larger).
func (sv *Server) notFit(device string, budget float64) *NotFitError {
	s := sv.Setup
	e := &NotFitError{Model: s.Model.Spec.Name, Device: device, Budget: budget, PromptPass: sv.PromptPass}
	if in := &s.Inputs; in.PoolSeqs > 0 && in.PoolSeqs*in.PoolInput >= max(sv.PromptPass, sv.PassTokens) {
		e.PoolRows, e.PoolInput = in.PoolSeqs, in.PoolInput
		e.BatchFlag, e.InputFlag = s.Runtime.KVPool.BatchFlag, s.Runtime.KVPool.InputFlag
	}
	return e
}

func (e *NotFitError) Error() string {
	act := "activations"
	switch {
	case e.PoolRows > 0:
		act = fmt.Sprintf("activations (of the engine's prefill profile, %d prompts of %d tokens: %s %d, %s %d)", e.PoolRows, e.PoolInput, e.BatchFlag, e.PoolRows, e.InputFlag, e.PoolInput)
	case e.PromptPass > 0:
		act = fmt.Sprintf("activations (of a pass of the longest prompt, %d tokens)", e.PromptPass)
	}
	if e.Budget < 0 {
		return fmt.Sprintf("%s does not fit on %s: the weights, %s and runtime overhead need %.0f MiB more than its usable memory", e.Model, e.Device, act, -e.Budget/(1<<20))
	}
	return fmt.Sprintf("%s does not fit on %s with room for a KV cache: the weights, %s and runtime overhead leave %.0f MiB", e.Model, e.Device, act, e.Budget/(1<<20))
}

// Predict is predict's answer for workload w on the server's device, or
// its tensor-parallel group: what a lone request of w's lengths takes.
func (sv *Server) Predict(w sim.Workload) (*sim.Result, error) {
	if sv.Split != nil {
		return sv.Split.Predict(w)
	}
	return sv.Setup.Predict(w)
}

// KVTokens is the pool's capacity in tokens of every layer: its pages
// over the groups a token's block takes (vLLM's "GPU KV cache size").
func (sv *Server) KVTokens() int {
	return sv.Blocks / int(sv.pool.groups()) * sv.Scheduler.BlockSize
}

// scaled is a copy of sv whose passes take the given factors of their
// time and whose front end is the end's (0 fast, 1 slow).
func (sv *Server) scaled(prefill, decode float64, end int) *Server {
	o := *sv
	o.pricer = sv.pricer.Scaled(prefill, decode)
	o.FrontEnd = sv.FrontEndEnds[end]
	return &o
}

// spreadless says the interval's ends are the expected run.
func (sv *Server) spreadless(plo, phi, dlo, dhi float64) bool {
	return plo == 1 && phi == 1 && dlo == 1 && dhi == 1 && sv.FrontEndEnds[0] == sv.FrontEnd && sv.FrontEndEnds[1] == sv.FrontEnd
}

// PageLayers is the layers one of the pool's Blocks holds a block of
// tokens for: every layer, or, where sliding layers free their
// out-of-window blocks (FreesWindows), a group of them (vLLM's hybrid KV
// cache manager).
func (sv *Server) PageLayers() int { return sv.pool.width }

// FreesWindows says whether the pool frees the blocks a sliding layer's
// window has left, so a request holds a window's blocks for its sliding
// layers however long it grows.
func (sv *Server) FreesWindows() bool { return sv.pool.frees() }
