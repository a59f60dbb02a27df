package canary

import (
	"fmt"
	"math"
)

// The canary of an embeddings reply (BENCH_API=embeddings), which has no
// text: its vector. A hash of the numbers, even rounded, would flag float
// noise: a server's kernels, batch by batch, move the last digits of a
// vector's numbers, and with hundreds of numbers one of them crosses a
// rounding boundary in most runs. So two vectors are compared by their
// direction: the cosine similarity of their first EmbeddingKept numbers.
// Float noise of a relative ε moves it by about ε²/2 (1e-6 for ε = 0.1%,
// far above any fp16 kernel's), while another model gives another
// direction (the cosine of unrelated vectors of 32 numbers is within
// ±0.2 of 0 most of the time) and another quantization of the same
// weights numbers a few percent off (1 − cosine of 2e-4 and more): a
// cosine below SameCosine, or another length, is a changed reply.

// Embedding is an embeddings reply's canary: its length, its first
// EmbeddingKept numbers as the server sent them, and the norm of the
// whole vector.
type Embedding struct {
	Dims  int       `json:"dims"`
	First []float64 `json:"first"`
	Norm  float64   `json:"norm"`
}

// EmbeddingKept is how many of a canary embedding's numbers a row keeps.
const EmbeddingKept = 32

// SameCosine is the least cosine similarity of two canary embeddings of
// the same model (see above): 1 − 1e-4.
const SameCosine = 0.9999

// OfEmbedding is the canary of an embeddings reply whose first input's
// embedding is v.
func OfEmbedding(v []float64) *Reply {
	var sq float64
	for _, x := range v {
		sq += x * x
	}
	first := append([]float64(nil), v[:min(len(v), EmbeddingKept)]...)
	return &Reply{Embedding: &Embedding{Dims: len(v), First: first, Norm: math.Sqrt(sq)}}
}

// Cosine is the cosine similarity of the first numbers of e and o, as
// many as both kept; NaN where either is all zeros or empty.
func (e *Embedding) Cosine(o *Embedding) float64 {
	n := min(len(e.First), len(o.First))
	var dot, a, b float64
	for i := range n {
		dot += e.First[i] * o.First[i]
		a += e.First[i] * e.First[i]
		b += o.First[i] * o.First[i]
	}
	if a == 0 || b == 0 {
		return math.NaN()
	}
	return dot / math.Sqrt(a*b)
}

// same reports whether after is the embedding before was, float noise
// aside: the same length, and a cosine of SameCosine or more (two
// vectors of zeros alike are the same).
func (e *Embedding) same(after *Embedding) bool {
	if e.Dims != after.Dims {
		return false
	}
	if c := e.Cosine(after); !math.IsNaN(c) {
		return c >= SameCosine
	}
	return zeros(e.First) && zeros(after.First)
}

// describe says how after's embedding differs from before's, for
// Describe: "in its embedding: 1024 numbers, was 768", "in its
// embedding: cosine 0.1837 to the earlier one's (its first 32 numbers;
// the same model gives 0.9999 or more)".
func (e *Embedding) describe(after *Embedding) string {
	if e.Dims != after.Dims {
		return fmt.Sprintf("in its embedding: %d numbers, was %d", after.Dims, e.Dims)
	}
	return fmt.Sprintf("in its embedding: cosine %.4f to the earlier one's (its first %d numbers; the same model gives %g or more)",
		e.Cosine(after), min(len(e.First), len(after.First)), SameCosine)
}

// zeros reports whether every number of v is 0.
func zeros(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
