package runtimes_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The known truth the agreement metrics are tested against: two
// simulators, at SIM_PERTURB p1 and p2, answer the same prompts greedily
// with their whole distributions (k = 20, the vocabulary). They say
// different words at the share |p2 − p1| of positions, within a binomial
// bound (and exactly where sim.PerturbedAt says); the tokens before the
// first different one average sim's formula within its bound; and the
// KL divergence computed from what the servers sent is sim.PerturbKL's
// at every position, the common prefix's included, on both protocols.
func TestGreedyPerturbationIsRecovered(t *testing.T) {
	const prompts, n, k = 100, 64, 20
	for _, c := range []struct {
		p1, p2 float64
		kind   runtimes.Kind
	}{
		{0, 0.1, runtimes.KindOpenAI},
		{0.05, 0.2, runtimes.KindOllama},
	} {
		t.Run(fmt.Sprintf("%s/%g-%g", c.kind, c.p1, c.p2), func(t *testing.T) {
			ref := startGreedySim(t, sim.Config{Flavor: sim.FlavorOllama, Perturb: c.p1, TokensPerChunk: 8}, c.kind, "")
			other := startGreedySim(t, sim.Config{Flavor: sim.FlavorOllama, Perturb: c.p2, TokensPerChunk: 8}, c.kind, "")
			d := c.p2 - c.p1
			var differ, prefixSum int
			var klSum float64
			for j := range prompts {
				prompt := fmt.Sprintf("Prompt %d: say something.", j)
				a, err := ref.Greedy(t.Context(), prompt, n, k)
				require.NoError(t, err)
				b, err := other.Greedy(t.Context(), prompt, n, k)
				require.NoError(t, err)
				require.Len(t, a.Tokens, n)
				require.Len(t, b.Tokens, n)
				prefix := -1
				for i := range n {
					diff := a.Tokens[i].Text != b.Tokens[i].Text
					want := sim.PerturbedAt(prompt, i, c.p2) != sim.PerturbedAt(prompt, i, c.p1)
					require.Equal(t, want, diff, "prompt %d, token %d", j, i)
					if diff {
						differ++
						if prefix < 0 {
							prefix = i
						}
					}
					kl := klOf(t, a.Tokens[i].Top, b.Tokens[i].Top)
					require.InDelta(t, sim.PerturbKL(prompt, i, c.p1, c.p2), kl, 1e-9, "prompt %d, token %d", j, i)
					if !diff {
						assert.Positive(t, kl, "the distributions moved where the word did not")
					}
					klSum += kl
				}
				if prefix < 0 {
					prefix = n
				}
				prefixSum += prefix
			}
			total := float64(prompts * n)
			sd := math.Sqrt(total * d * (1 - d))
			assert.InDelta(t, total*d, float64(differ), 4*sd, "different words at %d of %.0f positions, want the share %g", differ, total, d)

			// Tokens before the first different one: truncated
			// geometric, mean (1−d)(1−(1−d)^n)/d, variance at most
			// (1−d)/d².
			mean := (1 - d) * (1 - math.Pow(1-d, n)) / d
			se := math.Sqrt((1-d)/(d*d)) / math.Sqrt(prompts)
			assert.InDelta(t, mean, float64(prefixSum)/prompts, 4*se)
			t.Logf("differ %d/%.0f (want %.0f ± %.0f), prefix %.2f (want %.2f ± %.2f), mean KL %.4f nats",
				differ, total, total*d, sd, float64(prefixSum)/prompts, mean, se, klSum/total)
		})
	}
}

// klOf is D(P ‖ Q) over the words of p, each found in q by its text.
func klOf(t *testing.T, p, q []runtimes.TopProb) float64 {
	t.Helper()
	lq := map[string]float64{}
	for _, x := range q {
		lq[x.Text] = x.LogProb
	}
	var kl float64
	for _, x := range p {
		y, ok := lq[x.Text]
		require.True(t, ok, "%q is in one's top-k only", x.Text)
		kl += math.Exp(x.LogProb) * (x.LogProb - y)
	}
	return kl
}
