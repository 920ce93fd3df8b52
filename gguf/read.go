package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/roofline/roofline/limits"
)

// Limits bound what a header may make the reader allocate or read; their
// values live in package limits with every other ceiling.
const (
	MaxTensors     = limits.GGUFTensors
	MaxKV          = limits.GGUFMetadata
	MaxStringBytes = limits.GGUFString
	MaxArrayLen    = limits.GGUFArray
	MaxHeaderBytes = limits.GGUFHeaderBytes
	MaxDims        = limits.GGUFDims
	// Arrays of numbers up to this length are kept (per-layer values);
	// longer ones (token lists) are skipped and only their length kept.
	keepArray = 4096
)

// Value types of GGUF metadata.
const (
	tUint8 = iota
	tInt8
	tUint16
	tInt16
	tUint32
	tInt32
	tFloat32
	tBool
	tString
	tArray
	tUint64
	tInt64
	tFloat64
)

// Value is one metadata value: a number, a string, a bool, or an array
// (Len always; the elements only for short numeric arrays).
type Value struct {
	Num   float64
	Str   string
	Bool  bool
	IsNum bool
	Len   int // array length
	Arr   []float64
	// IsBool and IsFloat say the file stored a bool, or a float (for an
	// array: its elements): neither is a count.
	IsBool, IsFloat bool
}

// TensorInfo is one entry of the tensor table.
type TensorInfo struct {
	Name   string
	Dims   []uint64 // ne[0] first: the row length
	Type   uint32   // ggml_type
	Offset uint64
}

// Elements is the product of the dimensions.
func (t TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// File is a parsed header.
type File struct {
	Version    uint32
	Metadata   map[string]Value
	Tensors    []TensorInfo
	HeaderSize int64 // bytes read
}

// FormatError is a corrupt or unsupported header.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("gguf header at byte %d: %s", e.Offset, e.Msg)
}

type reader struct {
	r   *bufio.Reader
	off int64
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = &FormatError{r.off, fmt.Sprintf(format, a...)}
	}
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if r.off+int64(n) > MaxHeaderBytes {
		r.fail("header larger than %d bytes", MaxHeaderBytes)
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			r.fail("truncated: the file ends inside the header")
		} else {
			r.err = err
		}
		return nil
	}
	r.off += int64(n)
	return b
}

func (r *reader) skip(n int64) {
	if r.err != nil {
		return
	}
	if n < 0 || r.off+n > MaxHeaderBytes {
		r.fail("header larger than %d bytes", MaxHeaderBytes)
		return
	}
	m, err := io.CopyN(io.Discard, r.r, n)
	r.off += m
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		r.fail("truncated: the file ends inside the header")
	default:
		r.err = err // a remote read's limit, a read error
	}
}

func (r *reader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

// name reads a metadata key or a tensor name, which are short (ggml caps
// tensor names at 64 bytes).
func (r *reader) name(what string) string {
	n := r.u64()
	if n > limits.GGUFName {
		r.fail("%s of %d bytes (limit %d)", what, n, limits.GGUFName)
		return ""
	}
	return string(r.bytes(int(n)))
}

// strValue reads a string value, keeping it only when short: long ones
// (chat templates, licences) are skipped and only their length kept, so
// that the metadata held in memory stays small whatever the header says.
func (r *reader) strValue() Value {
	n := r.u64()
	if n > MaxStringBytes {
		r.fail("string of %d bytes (limit %d)", n, MaxStringBytes)
		return Value{}
	}
	if n > limits.GGUFKeptString {
		r.skip(int64(n))
		return Value{Len: int(n)}
	}
	return Value{Str: string(r.bytes(int(n)))}
}

var scalarSize = map[uint32]int64{tUint8: 1, tInt8: 1, tUint16: 2, tInt16: 2, tUint32: 4, tInt32: 4, tFloat32: 4, tBool: 1, tUint64: 8, tInt64: 8, tFloat64: 8}

func (r *reader) scalar(t uint32) float64 {
	switch t {
	case tUint8, tBool:
		b := r.bytes(1)
		if b == nil {
			return 0
		}
		return float64(b[0])
	case tInt8:
		b := r.bytes(1)
		if b == nil {
			return 0
		}
		return float64(int8(b[0]))
	case tUint16, tInt16:
		b := r.bytes(2)
		if b == nil {
			return 0
		}
		v := binary.LittleEndian.Uint16(b)
		if t == tInt16 {
			return float64(int16(v))
		}
		return float64(v)
	case tUint32:
		return float64(r.u32())
	case tInt32:
		return float64(int32(r.u32()))
	case tFloat32:
		return float64(math.Float32frombits(r.u32()))
	case tUint64:
		return float64(r.u64())
	case tInt64:
		return float64(int64(r.u64()))
	case tFloat64:
		return math.Float64frombits(r.u64())
	}
	r.fail("unknown value type %d", t)
	return 0
}

func (r *reader) value(t uint32, depth int) Value {
	switch {
	case t == tString:
		return r.strValue()
	case t == tArray:
		if depth > 0 {
			r.fail("nested array")
			return Value{}
		}
		et := r.u32()
		n := r.u64()
		if n > MaxArrayLen {
			r.fail("array of %d elements (limit %d)", n, MaxArrayLen)
			return Value{}
		}
		v := Value{Len: int(n)}
		if et == tString {
			for i := uint64(0); i < n && r.err == nil; i++ {
				l := r.u64()
				if l > MaxStringBytes {
					r.fail("string of %d bytes (limit %d)", l, MaxStringBytes)
				}
				r.skip(int64(l))
			}
			return v
		}
		sz, ok := scalarSize[et]
		if !ok {
			r.fail("array of unknown type %d", et)
			return v
		}
		if n > keepArray {
			r.skip(int64(n) * sz)
			return v
		}
		v.Arr = make([]float64, 0, n)
		v.IsFloat, v.IsBool = et == tFloat32 || et == tFloat64, et == tBool
		for i := uint64(0); i < n && r.err == nil; i++ {
			v.Arr = append(v.Arr, r.scalar(et))
		}
		return v
	case t == tBool:
		v := r.scalar(t)
		return Value{Bool: v != 0, Num: v, IsNum: true, IsBool: true}
	}
	if _, ok := scalarSize[t]; !ok {
		r.fail("unknown value type %d", t)
		return Value{}
	}
	return Value{Num: r.scalar(t), IsNum: true, IsFloat: t == tFloat32 || t == tFloat64}
}

// Read parses the header from r, reading nothing past the tensor table.
func Read(src io.Reader) (*File, error) {
	r := &reader{r: bufio.NewReaderSize(src, 1<<16)}
	magic := r.bytes(4)
	if r.err != nil {
		return nil, r.err
	}
	if string(magic) != "GGUF" {
		return nil, &FormatError{0, fmt.Sprintf("bad magic %q: not a GGUF file", magic)}
	}
	f := &File{Version: r.u32(), Metadata: map[string]Value{}}
	if r.err == nil && (f.Version < 2 || f.Version > 3) {
		return nil, &FormatError{4, fmt.Sprintf("unsupported GGUF version %d (roofline reads 2 and 3)", f.Version)}
	}
	nt, nkv := r.u64(), r.u64()
	if r.err == nil && nt > MaxTensors {
		r.fail("%d tensors (limit %d)", nt, MaxTensors)
	}
	if r.err == nil && nkv > MaxKV {
		r.fail("%d metadata entries (limit %d)", nkv, MaxKV)
	}
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		k := r.name("metadata key")
		if _, dup := f.Metadata[k]; dup && r.err == nil {
			// Which one counts? llama.cpp finds the first, a map keeps
			// the last: neither is safe to guess.
			r.fail("metadata key %q appears twice", k)
			break
		}
		f.Metadata[k] = r.value(r.u32(), 0)
	}
	for i := uint64(0); i < nt && r.err == nil; i++ {
		t := TensorInfo{Name: r.name("tensor name")}
		nd := r.u32()
		if nd == 0 || nd > MaxDims {
			r.fail("tensor %q has %d dimensions", t.Name, nd)
			break
		}
		dims := make([]int64, 0, nd)
		for d := uint32(0); d < nd; d++ {
			v := r.u64()
			if v == 0 || v > limits.GGUFDim {
				r.fail("tensor %q has dimension %d", t.Name, v)
				v = 1
			}
			dims = append(dims, int64(v))
			t.Dims = append(t.Dims, v)
		}
		if _, ok := limits.Mul(limits.GGUFElements, dims...); !ok {
			r.fail("tensor %q has more than 2^50 elements (%v)", t.Name, t.Dims)
		}
		t.Type = r.u32()
		t.Offset = r.u64()
		f.Tensors = append(f.Tensors, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	f.HeaderSize = r.off
	return f, nil
}
