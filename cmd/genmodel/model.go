package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Config is the shape of the generated model.
type Config struct {
	Embedding   int // llama.embedding_length
	FeedForward int // llama.feed_forward_length
	Blocks      int // llama.block_count
	Heads       int // llama.attention.head_count
	KVHeads     int // llama.attention.head_count_kv
	Vocab       int // tokens in all: 3 special, 256 bytes, the rest word pieces
	Context     int // llama.context_length
	Seed        uint64
}

// DefaultConfig is the model the end-to-end test runs: about 15 MB, big
// enough that per-token overhead does not dominate the decode rate on a
// 2-core machine, small enough to write in a few seconds.
var DefaultConfig = Config{
	Embedding:   256,
	FeedForward: 768,
	Blocks:      4,
	Heads:       4,
	KVHeads:     4,
	Vocab:       512,
	Context:     8192,
	Seed:        20260901,
}

// Token ids and types of the SPM ("llama") vocabulary.
const (
	unkID = 0
	bosID = 1
	eosID = 2
	// firstByteID is <0x00>; the 256 byte tokens follow it.
	firstByteID = 3
	// firstPieceID is the first word piece, after the byte tokens.
	firstPieceID = firstByteID + 256

	tokenNormal  = 1
	tokenUnknown = 2
	tokenControl = 3
	tokenByte    = 6
)

// Validate reports a shape llama.cpp cannot load.
func (c Config) Validate() error {
	switch {
	case c.Embedding < 8 || c.FeedForward < 1 || c.Blocks < 1 || c.Heads < 1 || c.KVHeads < 1:
		return fmt.Errorf("embedding must be at least 8 and ff, blocks, heads, kv-heads at least 1 (got %+v)", c)
	case c.Embedding%c.Heads != 0:
		return fmt.Errorf("embedding %d is not a multiple of heads %d", c.Embedding, c.Heads)
	case (c.Embedding/c.Heads)%2 != 0:
		return fmt.Errorf("head size %d (embedding/heads) must be even for RoPE", c.Embedding/c.Heads)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("heads %d is not a multiple of kv-heads %d", c.Heads, c.KVHeads)
	case c.Vocab < firstPieceID+minPieces:
		return fmt.Errorf("vocab %d is below %d: 3 special and 256 byte tokens and at least %d word pieces", c.Vocab, firstPieceID+minPieces, minPieces)
	case c.Vocab > firstPieceID+len(allPieces()):
		return fmt.Errorf("vocab %d is above %d, the most word pieces this generator makes", c.Vocab, firstPieceID+len(allPieces()))
	case c.Context < 16:
		return fmt.Errorf("context %d is below 16", c.Context)
	}
	return nil
}

const minPieces = 64

// vocabulary returns the tokens, scores and types: <unk>, <s>, </s>, the
// byte tokens <0x00>…<0xFF> (llama.cpp's SPM tokenizer falls back to them
// and aborts without them), then word pieces.
func (c Config) vocabulary() (tokens []string, scores []float32, types []int32) {
	tokens = []string{"<unk>", "<s>", "</s>"}
	types = []int32{tokenUnknown, tokenControl, tokenControl}
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, tokenByte)
	}
	scores = make([]float32, len(tokens), c.Vocab)
	for i, p := range allPieces()[:c.Vocab-firstPieceID] {
		tokens = append(tokens, p)
		types = append(types, tokenNormal)
		// SPM merges the highest-scoring pair first: longer pieces, listed
		// later, score lower, as in a trained vocabulary.
		scores = append(scores, -float32(i+1))
	}
	return tokens, scores, types
}

// spm is SentencePiece's word-start marker, U+2581.
const spm = "\u2581"

// allPieces lists every word piece the generator can use, in vocabulary
// order, each once: the marker, single characters, the marker with a
// letter, common words, then two-letter pieces.
func allPieces() []string {
	var ps []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			ps = append(ps, s)
		}
	}
	add(spm)
	for _, r := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'\"()-_/*+=<>[]{}#%&@" {
		add(string(r))
	}
	for r := 'a'; r <= 'z'; r++ {
		add(spm + string(r))
	}
	for _, w := range commonWords {
		add(spm + w)
	}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			add(string(a) + string(b))
		}
	}
	return ps
}

var commonWords = []string{
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as",
	"with", "on", "be", "by", "this", "are", "or", "an", "from", "at",
	"not", "but", "can", "all", "one", "data", "each", "when", "which", "if",
	"will", "has", "more", "use", "into", "than", "then", "its", "two", "list",
	"time", "how", "may", "only", "new", "also", "any", "must", "after", "first",
	"token", "model", "server", "request", "stream", "write", "read", "value", "return", "state",
}

// tensors returns the llama tensors with weights from a PCG generator seeded
// with c.Seed, so the same Config gives the same values on every run.
// Norm weights are 1; the output rows of the special and byte tokens are
// zero, so greedy decoding never picks them (</s> included) and a request
// runs to its token limit.
func (c Config) tensors() []tensor {
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	n := uint64(c.Embedding)
	ff := uint64(c.FeedForward)
	kvDim := uint64(c.Embedding / c.Heads * c.KVHeads)
	vocab := uint64(c.Vocab)

	uniform := func(name string, scale float64, dims ...uint64) tensor {
		t := tensor{name: name, dims: dims, data: make([]float32, product(dims))}
		for i := range t.data {
			// 24 random bits → [-1, 1), independent of how math/rand
			// turns bits into floats.
			u := float64(rng.Uint64()>>40)/(1<<23) - 1
			t.data[i] = float32(u * scale)
		}
		return t
	}
	ones := func(name string) tensor {
		t := tensor{name: name, dims: []uint64{n}, data: make([]float32, n)}
		for i := range t.data {
			t.data[i] = 1
		}
		return t
	}
	// Uniform on [-a, a] has variance a²/3: a = sqrt(3/fanIn) keeps unit
	// variance through each matrix.
	w := func(fanIn uint64) float64 { return math.Sqrt(3 / float64(fanIn)) }

	ts := []tensor{uniform("token_embd.weight", math.Sqrt(3), n, vocab)}
	for b := range c.Blocks {
		p := fmt.Sprintf("blk.%d.", b)
		ts = append(ts,
			ones(p+"attn_norm.weight"),
			uniform(p+"attn_q.weight", w(n), n, n),
			uniform(p+"attn_k.weight", w(n), n, kvDim),
			uniform(p+"attn_v.weight", w(n), n, kvDim),
			uniform(p+"attn_output.weight", w(n), n, n),
			ones(p+"ffn_norm.weight"),
			uniform(p+"ffn_gate.weight", w(n), n, ff),
			uniform(p+"ffn_up.weight", w(n), n, ff),
			uniform(p+"ffn_down.weight", w(ff), ff, n),
		)
	}
	out := uniform("output.weight", w(n), n, vocab)
	clear(out.data[:firstPieceID*n])
	ts = append(ts, ones("output_norm.weight"), out)
	return ts
}

func product(dims []uint64) uint64 {
	p := uint64(1)
	for _, d := range dims {
		p *= d
	}
	return p
}

// metadata returns the KVs llama.cpp's llama architecture and SPM
// tokenizer read.
func (c Config) metadata() []kv {
	tokens, scores, types := c.vocabulary()
	return []kv{
		{"general.architecture", "llama"},
		{"general.type", "model"},
		{"general.name", "inferencebench-e2e"},
		{"general.file_type", uint32(fileTypeAllF32)},
		{"llama.context_length", uint32(c.Context)},
		{"llama.embedding_length", uint32(c.Embedding)},
		{"llama.block_count", uint32(c.Blocks)},
		{"llama.feed_forward_length", uint32(c.FeedForward)},
		{"llama.rope.dimension_count", uint32(c.Embedding / c.Heads)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.attention.head_count", uint32(c.Heads)},
		{"llama.attention.head_count_kv", uint32(c.KVHeads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.vocab_size", uint32(c.Vocab)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(unkID)},
		{"tokenizer.ggml.bos_token_id", uint32(bosID)},
		{"tokenizer.ggml.eos_token_id", uint32(eosID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

// Write writes the model described by c to w as GGUF.
func (c Config) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return writeGGUF(w, c.metadata(), c.tensors())
}
