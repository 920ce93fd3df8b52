package runtimes

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/model"
)

// Set is the runtimes roofline knows by name.
type Set struct {
	list []*Runtime
}

// NewSet holds rs, sorted by name.
func NewSet(rs ...*Runtime) *Set {
	s := &Set{list: append([]*Runtime(nil), rs...)}
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })
	return s
}

// All lists the runtimes by name.
func (s *Set) All() []*Runtime { return s.list }

// Add puts r in the set, replacing a runtime of the same name.
func (s *Set) Add(r *Runtime) {
	for i, x := range s.list {
		if x.Name == r.Name {
			s.list[i] = r
			return
		}
	}
	s.list = append(s.list, r)
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })
}

// With is s with r in it (replacing a runtime of its name), s itself
// when it already holds r.
func (s *Set) With(r *Runtime) *Set {
	for _, x := range s.list {
		if x == r {
			return s
		}
	}
	o := s.Clone()
	o.Add(r)
	return o
}

// SpanMachines lists, by name, the runtimes of the set whose profile
// says they run one model over several machines (multi_node = true) and
// that run on engine e of device d: those a split across machines of
// such devices is priced under.
func (s *Set) SpanMachines(d *hardware.Device, e *hardware.Engine) []*Runtime {
	var out []*Runtime
	for _, r := range s.list {
		if r.SpansMachines() && r.Runs(d, e) {
			out = append(out, r)
		}
	}
	return out
}

// Clone returns a set that can take more runtimes without changing s.
func (s *Set) Clone() *Set { return &Set{list: append([]*Runtime(nil), s.list...)} }

// Lookup finds a runtime by name or alias, ignoring case; NAME@BUILD
// names one of its builds (Runtime.AtBuild).
func (s *Set) Lookup(name string) (*Runtime, error) {
	base, build, at := strings.Cut(name, "@")
	if at && strings.TrimSpace(build) == "" {
		return nil, &UnsupportedError{Runtime: strings.TrimSpace(base), What: "an empty build after @", Hint: "name one, such as llama.cpp@b2824, or the runtime alone for its current build"}
	}
	n := strings.ToLower(strings.TrimSpace(base))
	var names []string
	for _, r := range s.list {
		if strings.ToLower(r.Name) == n || slices.ContainsFunc(r.Aliases, func(a string) bool { return strings.ToLower(a) == n }) {
			return r.AtBuild(build)
		}
		names = append(names, r.Name)
	}
	return nil, &model.UnknownError{Kind: "runtime", Name: name, Known: names}
}

// Request is what a user said that bears on the runtime: each field empty
// when not given.
type Request struct {
	Runtime string // --runtime
	Weights string // --weights
	Engine  string // --engine
	KV      string // --kv
}

// Choice is a runtime and engine resolved for a model on a device, with
// the formats it runs and the reasons, in words.
type Choice struct {
	Runtime *Runtime
	Engine  *hardware.Engine
	Weights model.WeightFormat
	KV      string
	// Why says why this runtime (given, or which rule chose it).
	Why string
	// Notes say what the user may not expect: an engine other than the
	// device's default, a default format.
	Notes []string
}

// preference orders the runtimes that can all run a request, by the
// device's segment: datacenter GPUs are served by vLLM first; everything
// else by llama.cpp (which Ollama and LM Studio also run) first.
var preference = map[string][]string{
	"datacenter": {"vllm", "tensorrt-llm", "llama.cpp", "mlc", "mlx", "rkllm", "gpt-fast"},
	"":           {"llama.cpp", "vllm", "mlc", "mlx", "tensorrt-llm", "rkllm", "gpt-fast"},
}

func rank(segment, name string) int {
	p, ok := preference[segment]
	if !ok {
		p = preference[""]
	}
	if i := slices.Index(p, name); i >= 0 {
		return i
	}
	return len(p)
}

// Choose resolves the runtime, engine and formats of model spec on device
// d. It is the one rule roofline follows (docs/method.md §7):
//
//  1. A runtime the user names is used.
//  2. A model named by a name that implies a runtime (an Ollama tag:
//     llama.cpp, which Ollama runs) runs under it; the format the name
//     implies is the format unless another is given, and a name that
//     spells its format (llama3.2:3b-instruct-q8_0) may not be given
//     another (WeightsConflictError).
//  3. A model read from a GGUF file, or a GGUF file type, runs under
//     llama.cpp.
//  4. Otherwise the runtimes that can run the format (or, with no format
//     given, the device's engine) are ranked: vLLM first on datacenter
//     GPUs, llama.cpp first elsewhere; a format only one runtime runs
//     (q4f16_1: MLC; w8a8 on a Rockchip NPU: RKLLM) has one candidate.
//  5. The engine is the one named, else the device's default if the
//     runtime runs on it, else the first of the device's engines it does
//     run on (a GGUF on an RK3588 runs on the CPU), with a note.
//  6. The format is the one named, else the one the model's name implies,
//     else the runtime's own default for the model (runtimes that run
//     checkpoints use the model's native format).
func (s *Set) Choose(spec *model.Spec, d *hardware.Device, r Request) (*Choice, error) {
	var named *model.WeightFormat
	w, nameNote, err := NamedWeights(spec, r.Weights)
	if err != nil {
		return nil, err
	}
	r.Weights = w
	if r.Weights != "" {
		w, err := spec.WeightsFor(r.Weights)
		if err != nil {
			return nil, err
		}
		named = &w
	}
	var eng *hardware.Engine
	if r.Engine != "" {
		e, err := d.Engine(r.Engine)
		if err != nil {
			return nil, err
		}
		eng = e
	}
	c := &Choice{}
	if nameNote != "" {
		c.Notes = append(c.Notes, nameNote)
	}
	switch {
	case r.Runtime != "":
		rt, err := s.Lookup(r.Runtime)
		if err != nil {
			return nil, err
		}
		c.Runtime, c.Why = rt, "given"
	case spec.Named != nil && spec.Named.Runtime != "":
		rt, err := s.Lookup(spec.Named.Runtime)
		if err != nil {
			return nil, err
		}
		c.Runtime, c.Why = rt, spec.Named.RuntimeWhy
	case spec.FileWeights != nil || (named != nil && named.IsGGUF() && named.Quantized()):
		rt, err := s.Lookup("llama.cpp")
		if err != nil {
			return nil, err
		}
		c.Runtime = rt
		if spec.FileWeights != nil {
			c.Why = "the model is a GGUF file"
		} else {
			c.Why = named.Name + " is a GGUF file type"
		}
	default:
		rt, why, err := s.rank(spec, d, eng, named)
		if err != nil {
			return nil, err
		}
		c.Runtime, c.Why = rt, why
	}
	rt := c.Runtime
	// The engine follows the runtime.
	if eng == nil {
		def, err := d.Engine("")
		if err != nil {
			return nil, err
		}
		eng = def
		if !rt.Runs(d, def) {
			eng = nil
			for i := range d.Engines {
				if rt.Runs(d, &d.Engines[i]) {
					eng = &d.Engines[i]
					break
				}
			}
			if eng == nil {
				what := "any engine of " + d.Name
				if why := rt.tooOld(d); why != "" {
					what += " (" + why + ")"
				} else if on := rt.RunsOn(); on != "" {
					what += " (" + d.Family + "); it runs on " + on
				}
				return nil, &UnsupportedError{Runtime: rt.Name, What: what, Choose: []string{"runtime"}}
			}
			c.Notes = append(c.Notes, fmt.Sprintf("%s does not run on the %s %s engine: the model runs on the %s engine", rt.Name, d.Name, def.Name, eng.Name))
		}
	}
	c.Engine = eng
	if named != nil {
		c.Weights = *named
	} else {
		w, err := spec.WeightsFor(rt.WeightsFor(spec))
		if err != nil {
			return nil, err
		}
		c.Weights = w
	}
	c.KV = r.KV
	if c.KV == "" {
		c.KV = rt.DefaultKV
	} else if f, err := model.LookupKVFormat(c.KV); err == nil {
		c.KV = f.Name // FP16, F16 and Q8_0 are f16 and q8_0, as --weights Q4_K_M is q4_k_m
	}
	if err := rt.Check(d, eng, c.Weights, c.KV); err != nil {
		return nil, err
	}
	return c, nil
}

// rank picks the runtime for a request that names none: the most
// preferred of those that run the format on the engine.
func (s *Set) rank(spec *model.Spec, d *hardware.Device, eng *hardware.Engine, named *model.WeightFormat) (*Runtime, string, error) {
	engines := []*hardware.Engine{eng}
	if eng == nil {
		def, err := d.Engine("")
		if err != nil {
			return nil, "", err
		}
		// The default engine first, then the others: a format the
		// default engine cannot run may run on another.
		engines = []*hardware.Engine{def}
		for i := range d.Engines {
			if d.Engines[i].Name != def.Name {
				engines = append(engines, &d.Engines[i])
			}
		}
	}
	for _, e := range engines {
		var cands []*Runtime
		for _, rt := range s.list {
			if !rt.Runs(d, e) {
				continue
			}
			w := named
			if w == nil {
				dw, err := spec.WeightsFor(rt.WeightsFor(spec))
				if err != nil {
					continue
				}
				w = &dw
			}
			if rt.Check(d, e, *w, "") == nil {
				cands = append(cands, rt)
			}
		}
		if len(cands) == 0 {
			continue
		}
		sort.SliceStable(cands, func(i, j int) bool { return rank(d.Segment, cands[i].Name) < rank(d.Segment, cands[j].Name) })
		rt := cands[0]
		var why string
		switch {
		case len(cands) == 1 && named != nil:
			why = fmt.Sprintf("the only runtime that runs %s on the %s engine", named.Name, e.Name)
		case len(cands) == 1:
			why = fmt.Sprintf("the only runtime for the %s %s engine", d.Name, e.Name)
		case d.Segment == "datacenter":
			why = "the usual runtime for a datacenter GPU"
		case d.Family == string(e.Kind):
			why = fmt.Sprintf("the usual runtime on %ss", e.Kind) // a cpu family's cpu: not "cpu cpus"
		default:
			// Plural, so no article to get wrong ("a apple gpu").
			why = fmt.Sprintf("the usual runtime on %s %ss", d.Family, e.Kind)
		}
		return rt, why, nil
	}
	what := "the model's formats"
	if named != nil {
		what = named.Name
	}
	var there []string
	for _, e := range engines {
		for _, rt := range s.list {
			switch {
			case !rt.Runs(d, e):
			case named != nil && rt.RunsWeights(*named) && !rt.runsWeightsOn(d, e, *named):
				there = append(there, fmt.Sprintf("%s does not run %s on the %s engine (it runs %s there)", rt.Name, named.Name, e.Name, strings.Join(rt.weightsOn(d, e), ", ")))
			case named != nil && rt.RunsWeights(*named):
				var ps []string
				for _, p := range rt.KernelPrecisions(*named, e.Kind) {
					ps = append(ps, string(p))
				}
				there = append(there, fmt.Sprintf("%s runs %s, but the %s engine has no %s peak", rt.Name, named.Name, e.Name, strings.Join(ps, " or ")))
			default:
				there = append(there, fmt.Sprintf("%s on %s runs %s", rt.Name, e.Name, strings.Join(rt.weightsOn(d, e), ", ")))
			}
		}
	}
	where := d.Name
	if eng != nil {
		where = "the " + d.Name + " " + eng.Name + " engine"
	}
	if len(there) == 0 {
		return nil, "", &NoRuntimeError{Where: where}
	}
	return nil, "", &NoRuntimeError{What: what, Where: where, Hint: strings.Join(there, "; ")}
}

// NoRuntimeError is a request no runtime can serve: a format no runtime
// runs on the device's engines, or a device no runtime runs on.
type NoRuntimeError struct {
	What  string // the format, or "" for any
	Where string
	Hint  string // what the runtimes there do run
}

func (e *NoRuntimeError) Error() string {
	if e.What == "" {
		return "no runtime runs on " + e.Where
	}
	return fmt.Sprintf("no runtime runs %s on %s (%s)", e.What, e.Where, e.Hint)
}

// NamedWeights is the weight format of model spec when given is the
// format a user gave ("" for none): the format the model's name implies
// when none is given, given otherwise, with a note saying which and why; a
// name that spells its format and a given one that contradicts it are a
// WeightsConflictError. Choose and show follow it alike.
func NamedWeights(spec *model.Spec, given string) (weights, note string, err error) {
	n := spec.Named
	switch {
	case n == nil || n.Weights == "":
		return given, "", nil
	case given == "":
		return n.Weights, fmt.Sprintf("weights %s: %s", n.Weights, n.Why), nil
	case sameFormat(spec, given, n.Weights):
		return given, "", nil
	case n.Explicit:
		return "", "", &WeightsConflictError{Model: spec.Name, Implied: n.Weights, Given: given}
	}
	return given, fmt.Sprintf("weights %s as given, in place of %s, %s", given, n.Weights, n.Why), nil
}

// sameFormat reports whether two weight format names name one format.
func sameFormat(spec *model.Spec, a, b string) bool {
	fa, errA := spec.WeightsFor(a)
	fb, errB := spec.WeightsFor(b)
	return errA == nil && errB == nil && fa.Name == fb.Name
}

// WeightsConflictError is a weight format given beside a model name that
// spells another (llama3.2:3b-instruct-q8_0 with --weights q4_k_m).
type WeightsConflictError struct {
	Model, Implied, Given string
}

func (e *WeightsConflictError) Error() string {
	return fmt.Sprintf("%s names its weights, %s, and %s was given beside it: drop one (the tag without its suffix takes any weights)", e.Model, e.Implied, e.Given)
}
