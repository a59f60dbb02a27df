package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// GGUF version 3, little-endian, as llama.cpp and Ollama read it:
//
//	magic "GGUF", version uint32, tensor count uint64, KV count uint64,
//	the KVs (key string, value type uint32, value),
//	the tensor infos (name string, n_dims uint32, dims uint64…, type uint32,
//	offset uint64 from the start of the data section),
//	padding to the alignment, then the tensor data, each tensor aligned.
//
// A string is a uint64 byte length and the bytes, without a terminator.
const (
	ggufMagic     = "GGUF"
	ggufVersion   = 3
	ggufAlignment = 32 // general.alignment's default; not written

	// Value types.
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9

	// Tensor type F32 (ggml_type GGML_TYPE_F32).
	tensorF32 = 0

	// general.file_type LLAMA_FTYPE_ALL_F32.
	fileTypeAllF32 = 0
)

// kv is one metadata entry. value is one of uint32, int32, float32, bool,
// string, []string, []float32, []int32.
type kv struct {
	key   string
	value any
}

// tensor is one F32 tensor. dims are GGUF's order: dims[0] is the
// contiguous one (a weight matrix of n_in → n_out is {n_in, n_out}).
type tensor struct {
	name string
	dims []uint64
	data []float32
}

func (t tensor) size() uint64 { return uint64(len(t.data)) * 4 }

// ggufWriter writes little-endian values and counts the bytes written.
type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	buf [8]byte
	err error
}

func (g *ggufWriter) bytes(b []byte) {
	if g.err != nil {
		return
	}
	var n int
	n, g.err = g.w.Write(b)
	g.n += uint64(n)
}

func (g *ggufWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(g.buf[:4], v)
	g.bytes(g.buf[:4])
}

func (g *ggufWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(g.buf[:8], v)
	g.bytes(g.buf[:8])
}

func (g *ggufWriter) str(s string) {
	g.u64(uint64(len(s)))
	g.bytes([]byte(s))
}

func (g *ggufWriter) pad() {
	if r := g.n % ggufAlignment; r != 0 {
		g.bytes(make([]byte, ggufAlignment-r))
	}
}

func (g *ggufWriter) value(v any) error {
	switch v := v.(type) {
	case uint32:
		g.u32(typeUint32)
		g.u32(v)
	case int32:
		g.u32(typeInt32)
		g.u32(uint32(v))
	case float32:
		g.u32(typeFloat32)
		g.u32(math.Float32bits(v))
	case bool:
		g.u32(typeBool)
		if v {
			g.bytes([]byte{1})
		} else {
			g.bytes([]byte{0})
		}
	case string:
		g.u32(typeString)
		g.str(v)
	case []string:
		g.u32(typeArray)
		g.u32(typeString)
		g.u64(uint64(len(v)))
		for _, s := range v {
			g.str(s)
		}
	case []float32:
		g.u32(typeArray)
		g.u32(typeFloat32)
		g.u64(uint64(len(v)))
		for _, f := range v {
			g.u32(math.Float32bits(f))
		}
	case []int32:
		g.u32(typeArray)
		g.u32(typeInt32)
		g.u64(uint64(len(v)))
		for _, i := range v {
			g.u32(uint32(i))
		}
	default:
		return fmt.Errorf("gguf: unsupported value type %T", v)
	}
	return nil
}

// writeGGUF writes a GGUF v3 file of kvs and tensors to w.
func writeGGUF(w io.Writer, kvs []kv, tensors []tensor) error {
	g := &ggufWriter{w: bufio.NewWriterSize(w, 1<<20)}
	g.bytes([]byte(ggufMagic))
	g.u32(ggufVersion)
	g.u64(uint64(len(tensors)))
	g.u64(uint64(len(kvs)))
	for _, e := range kvs {
		g.str(e.key)
		if err := g.value(e.value); err != nil {
			return err
		}
	}
	var offset uint64
	for _, t := range tensors {
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		if n != uint64(len(t.data)) {
			return fmt.Errorf("gguf: tensor %s: dims %v hold %d values, data has %d", t.name, t.dims, n, len(t.data))
		}
		g.str(t.name)
		g.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			g.u64(d)
		}
		g.u32(tensorF32)
		g.u64(offset)
		offset += alignUp(t.size())
	}
	g.pad()
	for _, t := range tensors {
		for _, f := range t.data {
			g.u32(math.Float32bits(f))
		}
		g.pad()
	}
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

func alignUp(n uint64) uint64 {
	return (n + ggufAlignment - 1) / ggufAlignment * ggufAlignment
}
