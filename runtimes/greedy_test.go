package runtimes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// startGreedySim starts a simulator of cfg (fast, the defaults' TTFT
// cut) and a runtime of kind and api on it.
func startGreedySim(t *testing.T, cfg sim.Config, kind runtimes.Kind, api runtimes.API) *runtimes.Runtime {
	t.Helper()
	cfg.TTFT, cfg.TokensPerSec = time.Millisecond, 20000
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, API: api})
	require.NoError(t, err)
	return rt
}

// checkGreedy checks what every greedy reply with log-probabilities
// holds: n tokens whose texts make Text, each the simulator's word at its
// place with its log-probability, k alternatives most likely first, the
// token itself the first of them.
func checkGreedy(t *testing.T, g runtimes.Greedy, last string, n, k int) {
	t.Helper()
	require.True(t, g.Logprobs)
	require.Len(t, g.Tokens, n)
	assert.Equal(t, k, g.TopK)
	var text strings.Builder
	for i, tok := range g.Tokens {
		text.WriteString(tok.Text)
		want := sim.Candidates(last, i, 0)
		assert.Equal(t, sim.Token(last, i), tok.Text, "token %d", i)
		assert.InDelta(t, want[0].LogProb, tok.LogProb, 1e-12, "token %d", i)
		assert.LessOrEqual(t, tok.LogProb, 0.0)
		require.Len(t, tok.Top, k, "token %d", i)
		for j, a := range tok.Top {
			assert.Equal(t, want[j].Text, a.Text, "token %d, alternative %d", i, j)
			assert.InDelta(t, want[j].LogProb, a.LogProb, 1e-12)
			if j > 0 {
				assert.Less(t, a.LogProb, tok.Top[j-1].LogProb, "token %d: alternatives most likely first", i)
			}
		}
		if k > 0 {
			assert.Equal(t, tok.Text, tok.Top[0].Text, "a greedy token is its position's most likely")
		}
	}
	assert.Equal(t, text.String(), g.Text, "the tokens make the text")
}

func TestGreedyOpenAIChatAgainstSim(t *testing.T) {
	const prompt, n, k = "Name a Latin word.", 16, 5
	rt := startGreedySim(t, sim.Config{}, runtimes.KindOpenAI, "")
	g, err := rt.Greedy(t.Context(), prompt, n, k)
	require.NoError(t, err)
	assert.Equal(t, sim.ReplyText(prompt, 0, n), g.Text)
	assert.Equal(t, "length", g.Finish)
	checkGreedy(t, g, prompt, n, k)

	again, err := rt.Greedy(t.Context(), prompt, n, k)
	require.NoError(t, err)
	assert.Equal(t, g, again, "temperature 0: the same reply every time")
}
