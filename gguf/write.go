package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/roofline/roofline/model"
)

// Write encodes f's header (GGUF v3): metadata with integral numbers as
// uint32 (uint64 above 2³²), other numbers (and IsFloat ones) as float32,
// strings, bools (IsBool) and numeric arrays (int32, float32 when
// IsFloat), then the tensor table. No tensor data is written; it
// exists so tests and tools can produce headers (see HeaderFor).
func Write(w io.Writer, f *File) error {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	str := func(s string) { u64(uint64(len(s))); b = append(b, s...) }
	num := func(v float64) {
		switch {
		case v == math.Trunc(v) && v >= 0 && v < 1<<32:
			u32(tUint32)
			u32(uint32(v))
		case v == math.Trunc(v) && v >= 0:
			u32(tUint64)
			u64(uint64(v))
		default:
			u32(tFloat32)
			u32(math.Float32bits(float32(v)))
		}
	}
	b = append(b, "GGUF"...)
	u32(3)
	u64(uint64(len(f.Tensors)))
	u64(uint64(len(f.Metadata)))
	keys := make([]string, 0, len(f.Metadata))
	for k := range f.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := f.Metadata[k]
		str(k)
		switch {
		case v.Arr != nil:
			u32(tArray)
			switch {
			case v.IsFloat:
				u32(tFloat32)
			default:
				u32(tInt32) // signed: a test may write a negative count
			}
			u64(uint64(len(v.Arr)))
			for _, x := range v.Arr {
				if v.IsFloat {
					u32(math.Float32bits(float32(x)))
				} else {
					u32(uint32(int32(x)))
				}
			}
		case v.IsBool:
			u32(tBool)
			if v.Bool {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case v.IsNum && v.IsFloat:
			u32(tFloat32)
			u32(math.Float32bits(float32(v.Num)))
		case v.IsNum:
			num(v.Num)
		default:
			u32(tString)
			str(v.Str)
		}
	}
	for _, t := range f.Tensors {
		str(t.Name)
		u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			u64(d)
		}
		u32(t.Type)
		u64(t.Offset)
	}
	_, err := w.Write(b)
	return err
}

// HeaderFor is the header llama.cpp would write for s quantized with w:
// the metadata ToModel reads and one tensor entry per inventory tensor,
// typed as w assigns it. Its offsets are zero: there is no tensor data.
func HeaderFor(s *model.Spec, w model.WeightFormat) (*File, error) {
	arch, ok := ArchOf(s.Architecture)
	if !ok {
		return nil, fmt.Errorf("no GGUF architecture for %q", s.Architecture)
	}
	md := map[string]Value{"general.architecture": {Str: arch}, "general.name": {Str: s.Name}}
	set := func(key string, v int) {
		if v > 0 {
			md[arch+"."+key] = Value{Num: float64(v), IsNum: true}
		}
	}
	set("block_count", s.Layers)
	set("embedding_length", s.Hidden)
	set("feed_forward_length", s.FFN)
	set("attention.head_count", s.Heads)
	set("attention.head_count_kv", s.KVHeads)
	set("attention.key_length", s.HeadDim)
	set("attention.value_length", s.HeadDim)
	set("context_length", s.MaxContext)
	set("attention.sliding_window", s.SlidingWindow)
	if arch == "gemma3" {
		set("attention.sliding_window_pattern", len(s.LayerPattern))
	}
	if m := s.MoE; m != nil {
		set("expert_count", m.Experts)
		set("expert_used_count", m.Active)
		set("expert_feed_forward_length", m.FFN)
		set("expert_shared_count", m.Shared)
		set("leading_dense_block_count", m.DenseLayers)
	}
	if a := s.MLA; a != nil {
		set("attention.key_length", a.QKNopeDim+a.QKRopeDim)
		set("attention.value_length", a.VHeadDim)
		set("attention.q_lora_rank", a.QLoraRank)
		set("attention.kv_lora_rank", a.KVLoraRank)
		set("rope.dimension_count", a.QKRopeDim)
	}
	f := &File{Version: 3, Metadata: md}
	for _, t := range s.Tensors() {
		st := w.TypeOf(s, t)
		id, ok := model.GGMLTypeOf(st)
		if !ok {
			return nil, fmt.Errorf("%s: storage type %s has no ggml type", t.Name, st.Name)
		}
		dims := []uint64{uint64(t.Cols)}
		if t.Rows > 1 || t.Experts > 1 {
			dims = append(dims, uint64(t.Rows))
		}
		if t.Experts > 1 {
			dims = append(dims, uint64(t.Experts))
		}
		f.Tensors = append(f.Tensors, TensorInfo{Name: t.Name, Dims: dims, Type: id})
	}
	return f, nil
}
