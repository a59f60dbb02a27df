package canary

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vector is n numbers of a normalized embedding drawn from seed.
func vector(seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float64, n)
	var sq float64
	for i := range v {
		v[i] = r.NormFloat64()
		sq += v[i] * v[i]
	}
	for i := range v {
		v[i] /= math.Sqrt(sq)
	}
	return v
}

// noisy is v with each number moved by a relative share up to rel.
func noisy(v []float64, rel float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * (1 + rel*(2*r.Float64()-1))
	}
	return out
}

// Float noise (each number within 0.1%, as a server's kernels move them
// batch by batch) is the same reply, though a hash of the numbers rounded
// to 3 significant digits would call it changed; another model (an
// unrelated vector), numbers 5% off (another quantization) and another
// length are changed replies, said with the cosine.
func TestEmbeddingChange(t *testing.T) {
	v := vector(1, 1024)
	base := OfEmbedding(v)
	require.Equal(t, 1024, base.Embedding.Dims)
	require.Len(t, base.Embedding.First, EmbeddingKept)
	assert.InDelta(t, 1, base.Embedding.Norm, 1e-12)
	assert.Empty(t, base.TextSHA256)

	jitter := noisy(v, 1e-3, 9)
	changed, at := Change(base, OfEmbedding(jitter))
	assert.False(t, changed, "float noise is no change")
	assert.Equal(t, -1, at)
	round := func(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }
	differ := 0
	for i := range v {
		if round(v[i]) != round(jitter[i]) {
			differ++
		}
	}
	assert.Positive(t, differ, "rounded to 3 digits, some of the 1024 numbers differ: a hash of them would flag the noise")

	for _, tc := range []struct {
		name string
		v    []float64
		want string
	}{
		{"another model", vector(2, 1024), "canary reply of prompt short changed in its embedding: cosine "},
		{"requantized", noisy(v, 0.05, 3), "canary reply of prompt short changed in its embedding: cosine 0.99"},
		{"another length", vector(1, 768), "canary reply of prompt short changed in its embedding: 768 numbers, was 1024"},
	} {
		after := OfEmbedding(tc.v)
		changed, _ := Change(base, after)
		assert.True(t, changed, tc.name)
		assert.Contains(t, Describe("emb", "short", "1", "1", base, after), tc.want, tc.name)
	}

	// A file of before the vector kept the hash of an empty text: nothing
	// to compare with, either way.
	old := New("", 0)
	for _, pair := range [][2]*Reply{{old, base}, {base, old}} {
		changed, _ := Change(pair[0], pair[1])
		assert.False(t, changed)
	}
	// The vector is written under "embedding", absent for a text reply.
	b, err := json.Marshal(OfEmbedding([]float64{0.5, -0.25}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"text_sha256":"","output_tokens":0,"text":"","embedding":{"dims":2,"first":[0.5,-0.25],"norm":0.5590169943749475}}`, string(b))
	b, err = json.Marshal(New("ab", 2))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "embedding")
}
