package runtimes_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// What the client reads back of the simulator's schedule that does not
// depend on how busy the machine is: every request completes with the
// server's token count, its first token never comes before the schedule
// has it (a role-only chunk taken for a token would), and the figures are
// in the schedule's neighbourhood. The tight bounds are the timing tests'
// (accuracy_test.go, -tags timing).
func TestReadsTheSchedule(t *testing.T) {
	const (
		ttft   = 40 * time.Millisecond
		rate   = 500.0
		tokens = 20
	)
	srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: rate})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		for _, conc := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/conc=%d", kind, conc), func(t *testing.T) {
				client := &http.Client{Transport: runtimes.NewTransport(conc)}
				t.Cleanup(client.CloseIdleConnections)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second, Client: client})
				require.NoError(t, err)
				_, results := rt.Round(context.Background(), runtimes.Copies(runtimes.Request{Prompt: "Say something.", MaxTokens: tokens}, conc))
				for _, res := range results {
					require.NoError(t, res.Err)
					assert.Equal(t, tokens, res.OutputTokens)
					assert.False(t, res.TokensApprox, "the simulator reports its count")
					assert.Equal(t, tokens, res.Chunks)
					assert.GreaterOrEqual(t, res.TTFT, ttft, "a first token before the schedule's")
					decode := time.Duration(float64(tokens) / rate * float64(time.Second))
					assert.GreaterOrEqual(t, res.Total, ttft+decode, "the end before the schedule's")
					assert.Less(t, res.Total, ttft+decode+5*time.Second, "far off the schedule")
				}
			})
		}
	}
}

// A reasoning model that sends several tokens a chunk: the client counts
// the server's tokens, the chunks, the reasoning tokens where the protocol
// reports them, and finds the answer after the reasoning.
func TestReadsReasoningInChunks(t *testing.T) {
	const tokens, reason, perChunk = 20, 8, 3
	srv, err := sim.Start(sim.Config{TTFT: 20 * time.Millisecond, TokensPerSec: 1000, ReasoningTokens: reason, TokensPerChunk: perChunk})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			res := rt.Do(context.Background(), runtimes.Request{Prompt: "Think first.", MaxTokens: tokens})
			require.NoError(t, res.Err)
			assert.Equal(t, tokens, res.OutputTokens)
			// Chunks restart at the reasoning/answer boundary: 8 tokens in
			// 3+3+2, then 12 in 3+3+3+3.
			assert.Equal(t, 7, res.Chunks)
			assert.Len(t, res.Gaps, 6)
			assert.Greater(t, res.TTFC, res.TTFT, "the answer comes after the reasoning")
			if kind == runtimes.KindOpenAI {
				assert.True(t, res.ReasoningReported)
				assert.Equal(t, reason, res.ReasoningTokens)
			} else {
				assert.False(t, res.ReasoningReported, "Ollama reports no reasoning count")
			}
			m := stats.Compute([]stats.Round{{Results: []runtimes.Result{res}}}, stats.SLO{})
			assert.InDelta(t, 20.0/7, m.TokensPerChunk.Mean, 1e-9, "tokens per chunk, exact")
		})
	}
}
