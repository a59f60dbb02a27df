package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Projector is the shape of the generated CLIP vision projector (llama.cpp
// mtmd's "mmproj", projector type "mlp", as LLaVA 1.5's): a ViT encoder of
// square patches and an MLP (mm.0, GELU, mm.2) that maps its output to the
// text model's embedding length.
type Projector struct {
	Embedding     int // clip.vision.embedding_length
	FeedForward   int // clip.vision.feed_forward_length
	Blocks        int // clip.vision.block_count
	Heads         int // clip.vision.attention.head_count
	ImageSize     int // clip.vision.image_size: images are resized to this square
	PatchSize     int // clip.vision.patch_size
	TextEmbedding int // clip.vision.projection_dim: the text model's embedding length
	Seed          uint64
}

// DefaultProjector fits DefaultConfig's text model: a 32×32 image is 16
// patches of 8×8, so an image costs 16 prompt tokens. The file is about
// 650 kB.
var DefaultProjector = Projector{
	Embedding:     64,
	FeedForward:   128,
	Blocks:        2,
	Heads:         4,
	ImageSize:     32,
	PatchSize:     8,
	TextEmbedding: DefaultConfig.Embedding,
	Seed:          DefaultConfig.Seed,
}

// Validate reports a shape clip.cpp cannot load.
func (p Projector) Validate() error {
	switch {
	case p.Embedding < 1 || p.FeedForward < 1 || p.Blocks < 1 || p.Heads < 1 || p.TextEmbedding < 1:
		return fmt.Errorf("mmproj: embedding, ff, blocks, heads and the text embedding must be at least 1 (got %+v)", p)
	case p.Embedding%p.Heads != 0:
		return fmt.Errorf("mmproj: embedding %d is not a multiple of heads %d", p.Embedding, p.Heads)
	case p.PatchSize < 1 || p.ImageSize < p.PatchSize || p.ImageSize%p.PatchSize != 0:
		return fmt.Errorf("mmproj: image size %d is not a positive multiple of patch size %d", p.ImageSize, p.PatchSize)
	case p.Embedding == p.FeedForward:
		// clip.cpp swaps ffn_up and ffn_down of an mlp projector when
		// ffn_down's input is the embedding length: equal sizes look swapped.
		return fmt.Errorf("mmproj: ff %d equals embedding (clip.cpp would take ffn_up and ffn_down for swapped)", p.FeedForward)
	}
	return nil
}

// Patches is the number of image tokens one image becomes.
func (p Projector) Patches() int {
	n := p.ImageSize / p.PatchSize
	return n * n
}

// metadata returns the KVs clip.cpp's loader reads for a vision encoder
// with an mlp projector.
func (p Projector) metadata() []kv {
	half := []float32{0.5, 0.5, 0.5}
	return []kv{
		{"general.architecture", "clip"},
		{"general.type", "mmproj"},
		{"general.name", "inferencebench-e2e-mmproj"},
		{"general.file_type", uint32(fileTypeAllF32)},
		{"clip.projector_type", "mlp"},
		{"clip.has_vision_encoder", true},
		{"clip.use_gelu", true},
		{"clip.vision.image_size", uint32(p.ImageSize)},
		{"clip.vision.patch_size", uint32(p.PatchSize)},
		{"clip.vision.embedding_length", uint32(p.Embedding)},
		{"clip.vision.feed_forward_length", uint32(p.FeedForward)},
		{"clip.vision.block_count", uint32(p.Blocks)},
		{"clip.vision.projection_dim", uint32(p.TextEmbedding)},
		{"clip.vision.attention.head_count", uint32(p.Heads)},
		{"clip.vision.attention.layer_norm_epsilon", float32(1e-5)},
		{"clip.vision.image_mean", half},
		{"clip.vision.image_std", half},
	}
}

// tensors returns the encoder and projector tensors, F32, with weights from
// a PCG generator seeded with p.Seed (on another stream than the text
// model's). Norm weights are 1 and biases 0.
func (p Projector) tensors() []tensor {
	rng := rand.New(rand.NewPCG(p.Seed, 0x6a09e667f3bcc909))
	n := uint64(p.Embedding)
	ff := uint64(p.FeedForward)
	out := uint64(p.TextEmbedding)
	ps := uint64(p.PatchSize)
	pos := uint64(p.Patches()) + 1 // the patches and the class embedding

	uniform := func(name string, scale float64, dims ...uint64) tensor {
		t := tensor{name: name, dims: dims, data: make([]float32, product(dims))}
		for i := range t.data {
			u := float64(rng.Uint64()>>40)/(1<<23) - 1
			t.data[i] = float32(u * scale)
		}
		return t
	}
	fill := func(name string, v float32, d uint64) tensor {
		t := tensor{name: name, dims: []uint64{d}, data: make([]float32, d)}
		for i := range t.data {
			t.data[i] = v
		}
		return t
	}
	w := func(fanIn uint64) float64 { return math.Sqrt(3 / float64(fanIn)) }

	ts := []tensor{
		// ggml_conv_2d's kernel: {width, height, channels in, channels out}.
		uniform("v.patch_embd.weight", w(ps*ps*3), ps, ps, 3, n),
		fill("v.patch_embd.bias", 0, n),
		uniform("v.class_embd", math.Sqrt(3), n),
		uniform("v.position_embd.weight", math.Sqrt(3), n, pos),
		fill("v.pre_ln.weight", 1, n),
		fill("v.pre_ln.bias", 0, n),
	}
	for b := range p.Blocks {
		pre := fmt.Sprintf("v.blk.%d.", b)
		for _, name := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			ts = append(ts, uniform(pre+name+".weight", w(n), n, n), fill(pre+name+".bias", 0, n))
		}
		ts = append(ts,
			uniform(pre+"ffn_up.weight", w(n), n, ff), fill(pre+"ffn_up.bias", 0, ff),
			uniform(pre+"ffn_down.weight", w(ff), ff, n), fill(pre+"ffn_down.bias", 0, n),
			fill(pre+"ln1.weight", 1, n), fill(pre+"ln1.bias", 0, n),
			fill(pre+"ln2.weight", 1, n), fill(pre+"ln2.bias", 0, n),
		)
	}
	return append(ts,
		uniform("mm.0.weight", w(n), n, out), fill("mm.0.bias", 0, out),
		uniform("mm.2.weight", w(out), out, out), fill("mm.2.bias", 0, out),
	)
}

// Write writes the projector described by p to w as GGUF.
func (p Projector) Write(w io.Writer) error {
	if err := p.Validate(); err != nil {
		return err
	}
	return writeGGUF(w, p.metadata(), p.tensors())
}
