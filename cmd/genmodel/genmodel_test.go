package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// small is a shape that writes in milliseconds.
var small = Config{Embedding: 32, FeedForward: 64, Blocks: 2, Heads: 4, KVHeads: 2, Vocab: 400, Context: 256, Seed: DefaultConfig.Seed}

func TestSameBytesEveryRun(t *testing.T) {
	dir := t.TempDir()
	var sums [2][32]byte
	for i := range sums {
		path := filepath.Join(dir, fmt.Sprintf("m%d.gguf", i))
		_, sum, err := writeFile(path, small)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sums[i] = sha256.Sum256(b)
		if !bytes.Equal(sum, sums[i][:]) {
			t.Errorf("run %d: reported sha256 %x, file has %x", i, sum, sums[i])
		}
	}
	if sums[0] != sums[1] {
		t.Fatalf("two runs wrote different files: sha256 %x and %x", sums[0], sums[1])
	}
	// Nothing but the two models is left in the folder.
	onlyTwo(t, dir, "the two models")
	// A different seed gives different weights.
	other := small
	other.Seed++
	var a, b bytes.Buffer
	if err := small.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := other.Write(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("another seed wrote the same bytes")
	}
}

func TestHeaderParsesBack(t *testing.T) {
	var buf bytes.Buffer
	if err := small.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := parseGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.version != 3 {
		t.Errorf("version %d, want 3", f.version)
	}
	if want := 3 + 9*small.Blocks; len(f.tensors) != want {
		t.Errorf("%d tensors, want %d", len(f.tensors), want)
	}
	for _, key := range []string{
		"general.architecture", "general.file_type",
		"llama.context_length", "llama.embedding_length", "llama.block_count", "llama.feed_forward_length",
		"llama.rope.dimension_count", "llama.attention.head_count", "llama.attention.head_count_kv",
		"llama.attention.layer_norm_rms_epsilon",
		"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
		"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id",
	} {
		if _, ok := f.kv[key]; !ok {
			t.Errorf("key %s missing", key)
		}
	}
	checks := map[string]any{
		"general.architecture":          "llama",
		"tokenizer.ggml.model":          "llama",
		"general.file_type":             uint32(0),
		"llama.embedding_length":        uint32(small.Embedding),
		"llama.feed_forward_length":     uint32(small.FeedForward),
		"llama.block_count":             uint32(small.Blocks),
		"llama.attention.head_count":    uint32(small.Heads),
		"llama.attention.head_count_kv": uint32(small.KVHeads),
		"llama.context_length":          uint32(small.Context),
		"tokenizer.ggml.eos_token_id":   uint32(eosID),
	}
	for k, want := range checks {
		if got := f.kv[k]; got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}

	tokens, _ := f.kv["tokenizer.ggml.tokens"].([]string)
	types, _ := f.kv["tokenizer.ggml.token_type"].([]int32)
	scores, _ := f.kv["tokenizer.ggml.scores"].([]float32)
	if len(tokens) != small.Vocab || len(types) != small.Vocab || len(scores) != small.Vocab {
		t.Fatalf("%d tokens, %d types, %d scores; want %d each", len(tokens), len(types), len(scores), small.Vocab)
	}
	seen := map[string]int{}
	bytesFound := 0
	for i, tok := range tokens {
		if j, dup := seen[tok]; dup {
			t.Errorf("token %q at %d and %d", tok, j, i)
		}
		seen[tok] = i
		if types[i] == tokenByte {
			bytesFound++
			if want := fmt.Sprintf("<0x%02X>", i-firstByteID); tok != want {
				t.Errorf("byte token %d is %q, want %q", i, tok, want)
			}
		}
	}
	if bytesFound != 256 {
		t.Errorf("%d byte tokens, want 256", bytesFound)
	}
	for id, want := range map[int]struct {
		tok string
		typ int32
	}{0: {"<unk>", 2}, 1: {"<s>", 3}, 2: {"</s>", 3}, 3: {"<0x00>", 6}, 258: {"<0xFF>", 6}} {
		if tokens[id] != want.tok || types[id] != want.typ {
			t.Errorf("token %d = %q type %d, want %q type %d", id, tokens[id], types[id], want.tok, want.typ)
		}
	}
	for i := firstPieceID; i < len(tokens); i++ {
		if types[i] != tokenNormal || strings.HasPrefix(tokens[i], "<") && len(tokens[i]) > 1 {
			t.Errorf("word piece %d = %q type %d", i, tokens[i], types[i])
		}
	}

	// Tensor data: aligned, inside the file, F32, and the file ends with
	// the last tensor (padded).
	end := uint64(0)
	for _, ti := range f.tensors {
		if ti.typ != tensorF32 {
			t.Errorf("%s: type %d, want F32", ti.name, ti.typ)
		}
		if ti.offset%ggufAlignment != 0 {
			t.Errorf("%s: offset %d not aligned", ti.name, ti.offset)
		}
		end = max(end, ti.offset+alignUp(4*product(ti.dims)))
	}
	if f.dataStart%ggufAlignment != 0 {
		t.Errorf("data section starts at %d, not aligned", f.dataStart)
	}
	if got := uint64(buf.Len()); got != f.dataStart+end {
		t.Errorf("file is %d bytes, header and tensors make %d", got, f.dataStart+end)
	}
}

func TestSpecialAndByteOutputRowsAreZero(t *testing.T) {
	var buf bytes.Buffer
	if err := small.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := parseGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	out, ok := f.tensor("output.weight")
	if !ok {
		t.Fatal("no output.weight")
	}
	n := small.Embedding
	if out.dims[0] != uint64(n) || out.dims[1] != uint64(small.Vocab) {
		t.Fatalf("output.weight dims %v, want [%d %d]", out.dims, n, small.Vocab)
	}
	data := f.floats(out)
	for id := range small.Vocab {
		row := data[id*n : (id+1)*n]
		zero := true
		for _, v := range row {
			if v != 0 {
				zero = false
				break
			}
		}
		if id < firstPieceID && !zero {
			t.Errorf("output row of token %d (special or byte) is not zero", id)
		}
		if id >= firstPieceID && zero {
			t.Errorf("output row of word piece %d is zero", id)
		}
	}
	// Norm weights are 1; weight matrices are random, not constant.
	if norm, _ := f.tensor("blk.0.attn_norm.weight"); f.floats(norm)[0] != 1 {
		t.Error("attn_norm weight is not 1")
	}
	q, _ := f.tensor("blk.1.attn_q.weight")
	if qs := f.floats(q); qs[0] == qs[1] {
		t.Error("attn_q looks constant")
	}
}

func TestDefaultModelSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 15 MB")
	}
	cw := &countWriter{w: io.Discard}
	if err := DefaultConfig.Write(cw); err != nil {
		t.Fatal(err)
	}
	if cw.n < 14e6 || cw.n > 16e6 {
		t.Errorf("default model is %d bytes, want about 15 MB", cw.n)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []func(*Config){
		func(c *Config) { c.Heads = 3 },        // 32 % 3
		func(c *Config) { c.KVHeads = 3 },      // 4 % 3
		func(c *Config) { c.Vocab = 259 },      // no word pieces
		func(c *Config) { c.Vocab = 100000 },   // more than the generator makes
		func(c *Config) { c.Embedding = 36 },   // head size 9, odd
		func(c *Config) { c.Blocks = 0 },       // nothing to run
		func(c *Config) { c.Context = 8 },      // too short
		func(c *Config) { c.FeedForward = -1 }, // negative
	} {
		cfg := small
		c(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
		if _, _, err := writeFile(filepath.Join(t.TempDir(), "m.gguf"), cfg); err == nil {
			t.Errorf("%+v: writeFile: no error", cfg)
		}
	}
	if err := DefaultConfig.Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}

// A minimal GGUF reader, for the tests only.

type ggufFile struct {
	version   uint32
	kv        map[string]any
	tensors   []tensorInfo
	dataStart uint64
	raw       []byte
}

type tensorInfo struct {
	name   string
	dims   []uint64
	typ    uint32
	offset uint64
}

func (f *ggufFile) tensor(name string) (tensorInfo, bool) {
	for _, t := range f.tensors {
		if t.name == name {
			return t, true
		}
	}
	return tensorInfo{}, false
}

func (f *ggufFile) floats(t tensorInfo) []float32 {
	n := product(t.dims)
	b := f.raw[f.dataStart+t.offset:]
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

type reader struct {
	b   []byte
	off uint64
	err error
}

func (r *reader) take(n uint64) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if r.off+n > uint64(len(r.b)) {
		r.err = fmt.Errorf("truncated at %d, want %d more bytes", r.off, n)
		return make([]byte, n)
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) str() string { return string(r.take(r.u64())) }

func (r *reader) value(typ uint32) any {
	switch typ {
	case typeUint32:
		return r.u32()
	case typeInt32:
		return int32(r.u32())
	case typeFloat32:
		return math.Float32frombits(r.u32())
	case typeBool:
		return r.take(1)[0] != 0
	case typeString:
		return r.str()
	case typeArray:
		et, n := r.u32(), r.u64()
		if n > 1<<20 {
			r.err = fmt.Errorf("array of %d", n)
			return nil
		}
		switch et {
		case typeString:
			a := make([]string, n)
			for i := range a {
				a[i] = r.str()
			}
			return a
		case typeFloat32:
			a := make([]float32, n)
			for i := range a {
				a[i] = math.Float32frombits(r.u32())
			}
			return a
		case typeInt32:
			a := make([]int32, n)
			for i := range a {
				a[i] = int32(r.u32())
			}
			return a
		}
		r.err = fmt.Errorf("array of type %d", et)
	default:
		r.err = fmt.Errorf("value type %d", typ)
	}
	return nil
}

func parseGGUF(b []byte) (*ggufFile, error) {
	r := &reader{b: b}
	if magic := string(r.take(4)); magic != ggufMagic {
		return nil, fmt.Errorf("magic %q", magic)
	}
	f := &ggufFile{version: r.u32(), kv: map[string]any{}, raw: b}
	nt, nkv := r.u64(), r.u64()
	for range nkv {
		k := r.str()
		f.kv[k] = r.value(r.u32())
		if r.err != nil {
			return nil, fmt.Errorf("key %s: %w", k, r.err)
		}
	}
	for range nt {
		t := tensorInfo{name: r.str()}
		t.dims = make([]uint64, r.u32())
		for i := range t.dims {
			t.dims[i] = r.u64()
		}
		t.typ, t.offset = r.u32(), r.u64()
		f.tensors = append(f.tensors, t)
	}
	f.dataStart = alignUp(r.off)
	return f, r.err
}

// onlyTwo fails t unless dir holds exactly two entries, what it names.
func onlyTwo(t *testing.T, dir, what string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want only %s", dir, names, what)
	}
}
