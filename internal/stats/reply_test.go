package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
)

// varied are rounds of replies that differ in every figure: lengths,
// finish reasons, served models, prompt and cached counts, server
// timings, tool calls, turns, failures.
func varied(rng *rand.Rand, rounds, perRound int) []Round {
	out := make([]Round, rounds)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range out {
		rd := Round{Wall: time.Duration(1+rng.IntN(900)) * time.Millisecond, MaxTokens: 64, InputTokens: 100, Tools: i%2 == 0, Cold: true}
		for j := range perRound {
			n := 1 + rng.IntN(64)
			res := runtimes.Result{
				Start: start.Add(time.Duration(i*perRound+j) * time.Millisecond),
				TTFT:  time.Duration(1+rng.IntN(1e8)) * time.Nanosecond, OutputTokens: n, Chunks: n,
				FinishReason: []string{"stop", "length", ""}[rng.IntN(3)], ServedModel: []string{"a", "b"}[rng.IntN(2)],
				PromptTokens: 90 + rng.IntN(20), CachedTokens: rng.IntN(50), CachedReported: j%2 == 0,
				PromptEval: time.Duration(rng.IntN(1e7)), PromptEvalTokens: rng.IntN(3) * 40,
				Eval: time.Duration(rng.IntN(1e9)), LoadDuration: time.Duration(rng.IntN(2e8)),
				ReasoningTokens: rng.IntN(5), ReasoningReported: j%3 == 0,
				ToolCalls: rng.IntN(2), ToolArgsValid: rng.IntN(2), TTFToolCall: time.Duration(rng.IntN(1e6)),
				Conversation: i*perRound + j/2, Turn: 1 + j%2,
			}
			res.TTFC = res.TTFT + time.Duration(rng.IntN(1e6))
			res.Total = res.TTFT
			for range n - 1 {
				g := time.Duration(rng.ExpFloat64() * 2e7)
				res.Gaps = append(res.Gaps, float32(g.Seconds()))
				res.Total += g
			}
			if rng.IntN(10) == 0 {
				res.Err = errors.New("reset")
			}
			rd.Results = append(rd.Results, res)
		}
		out[i] = rd
	}
	return out
}

// compact compacts rounds as a leaf run does: one Gaps for them all.
func compact(rounds []Round) []Round {
	var g Gaps
	out := make([]Round, len(rounds))
	for i, rd := range rounds {
		out[i] = rd.Compact(&g)
	}
	return out
}

// A compact round's figures are those of its Results, to the last bit,
// while its gaps are few enough to be kept (but for the turns' ITL, which
// compact rounds do not tell apart).
func TestCompactFiguresAsResults(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rounds := varied(rng, 6, 8)
	slo := SLO{TTFT: 50 * time.Millisecond}
	want := Compute(rounds, slo)
	got := Compute(compact(rounds), slo)
	require.Positive(t, got.ITL.N)
	require.Less(t, got.ITL.N, gapsExact)
	require.Len(t, got.Turns, 2)
	require.Positive(t, want.Turns[0].ITL.N)
	for i := range want.Turns {
		assert.Zero(t, got.Turns[i].ITL, "turn %d of compact rounds: no ITL", i+1)
		want.Turns[i].ITL = Stat{}
	}
	assert.Equal(t, want, got)

	assert.Equal(t, PerRequestOf(rounds), PerRequestOf(compact(rounds)))
	assert.Equal(t, burstBelow(rounds), burstBelow(compact(rounds)))

	// Pooled, as a row pools a leaf's runs: each run's Gaps once.
	a, b := compact(rounds[:3]), compact(rounds[3:])
	assert.Equal(t, Compute(rounds, slo).ITL, Compute(append(a, b...), slo).ITL)
	assert.Equal(t, want.ITL, Compute(append(slices.Clone(rounds[:3]), b...), slo).ITL, "a compact run pooled with one that is not")
}

// Past gapsExact gaps the count, the mean and the largest stay exact and
// the percentiles come within 0.2%, whatever the number of gaps, in a few
// KiB; merged halves give what one Gaps of them all gives.
func TestGapsBeyondExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float32, 200_000)
	for i := range xs {
		xs[i] = float32(math.Exp(rng.NormFloat64()*0.8 - 4)) // log-normal, about 18 ms
	}
	xs[7] = 0
	var g, h1, h2 Gaps
	for i := 0; i < len(xs); i += 100 {
		g.Add(xs[i : i+100])
	}
	h1.Add(xs[:len(xs)/2])
	h2.Add(xs[len(xs)/2:])
	h1.Merge(&h2)

	want := stat(slices.Clone(xs))
	for _, got := range []Stat{g.stat(), h1.stat()} {
		assert.Equal(t, want.N, got.N)
		assert.InEpsilon(t, want.Mean, got.Mean, 1e-9)
		assert.Equal(t, want.Max, got.Max)
		assert.InEpsilon(t, want.P50, got.P50, 0.002)
		assert.InEpsilon(t, want.P95, got.P95, 0.002)
		assert.InEpsilon(t, want.P99, got.P99, 0.002)
	}
	assert.Equal(t, g.buckets, h1.buckets)
	assert.Less(t, len(g.buckets)*8, 64<<10, "bytes of buckets")
	assert.Nil(t, g.exact, "the gaps are no longer kept one by one")

	var few Gaps
	few.Add(xs[:gapsExact])
	assert.Equal(t, stat(slices.Clone(xs[:gapsExact])), few.stat(), "up to gapsExact gaps, exact")
}
