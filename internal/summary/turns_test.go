package summary

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// turn is a successful request of turn t: its TTFT in ms, its prompt and
// cached tokens (cached < 0: not reported).
func turn(t int, ttftMs float64, prompt, cached int) runtimes.Result {
	ttft := time.Duration(ttftMs * float64(time.Millisecond))
	r := runtimes.Result{Turn: t, TTFT: ttft, TTFC: ttft, Total: ttft + 100*time.Millisecond,
		OutputTokens: 10, Chunks: 10, PromptTokens: prompt, PromptEval: time.Millisecond}
	if cached >= 0 {
		r.CachedTokens, r.CachedReported = cached, true
	}
	return r
}

// Each turn gets its own figures, the row's pool them all, and the
// cache-hit ratio is cached over prompt tokens where the server said.
func TestTurnFigures(t *testing.T) {
	rounds := []stats.Round{
		{Wall: time.Second, Cold: true, Results: []runtimes.Result{
			turn(1, 10, 100, 0), turn(2, 12, 300, 290), turn(3, 14, 500, 490),
			turn(1, 30, 100, 0), turn(2, 32, 300, 290), turn(3, 34, 500, 490),
		}},
	}
	m := stats.Compute(rounds, stats.SLO{})
	require.Len(t, m.Turns, 3)
	for i, want := range []struct{ ttft, prompt, cached float64 }{{0.020, 100, 0}, {0.022, 300, 290}, {0.024, 500, 490}} {
		got := m.Turns[i]
		assert.Equal(t, 2, got.Requests, "turn %d", i+1)
		assert.InDelta(t, want.ttft, got.TTFT.Mean, 1e-9, "turn %d TTFT", i+1)
		assert.InDelta(t, want.prompt, got.PromptTokens.Mean, 1e-9, "turn %d prompt", i+1)
		assert.InDelta(t, want.cached, got.CachedTokens.Mean, 1e-9, "turn %d cached", i+1)
		assert.Nil(t, got.Turns, "a turn has no turns of its own")
	}
	assert.Equal(t, 6, m.Requests)
	assert.InDelta(t, (2*290.0+2*490)/(2*100+2*300+2*500), float64(m.Cached)/float64(m.CachedOf), 1e-9)

	row := newRow(bench.Key{Runtime: "sim", Concurrency: 2}, m, nil)
	require.Len(t, row.Turns, 3)
	assert.Equal(t, 3, row.Turns[2].Turn)
	assert.InDelta(t, 0.024, *row.Turns[2].TTFTP50, 1e-9)
	assert.InDelta(t, 490.0, *row.Turns[2].CachedPromptTokensMean, 1e-9)
	require.NotNil(t, row.CacheHitRatio)
	assert.InDelta(t, 1560.0/1800, *row.CacheHitRatio, 1e-9)
	assert.Empty(t, m.Notes("", names), "the server reused the history: nothing to say")
}

// A single-turn run has no turns list, and a server that reports no
// cached tokens has no ratio.
func TestNoTurnsNoRatio(t *testing.T) {
	m := stats.Compute([]stats.Round{{Wall: time.Second, Results: []runtimes.Result{turn(1, 10, 100, -1), turn(1, 11, 100, -1)}}}, stats.SLO{})
	row := newRow(bench.Key{Runtime: "ollama", Concurrency: 2}, m, nil)
	assert.Nil(t, row.Turns)
	assert.Nil(t, row.CacheHitRatio)
}

// A server that reports cached tokens but reused nothing of the history
// or of the shared prefix is said, once, with the tokens it re-read.
func TestNoReuseIsSaid(t *testing.T) {
	history := stats.Compute([]stats.Round{{Wall: time.Second, Results: []runtimes.Result{turn(1, 10, 100, 0), turn(2, 30, 300, 0)}}}, stats.SLO{})
	assert.Contains(t, history.Notes("", names), "the server reused none of the history (0 of 400 prompt tokens came from its cache): no prefix cache, or it is off; TTFT pays for the whole prompt every time")

	prefix := stats.Compute([]stats.Round{{Wall: time.Second, SharedPrefix: 1000, Results: []runtimes.Result{turn(1, 10, 1100, 0), turn(1, 11, 1100, 0)}}}, stats.SLO{})
	assert.Contains(t, prefix.Notes("", names), "the server reused none of the shared prefix (0 of 2200 prompt tokens came from its cache): no prefix cache, or it is off; TTFT pays for the whole prompt every time")

	both := stats.Compute([]stats.Round{{Wall: time.Second, SharedPrefix: 500, Results: []runtimes.Result{turn(1, 10, 600, 0), turn(2, 30, 800, 0)}}}, stats.SLO{})
	assert.Contains(t, both.Notes("", names), "the server reused none of the history or of the shared prefix (0 of 1400 prompt tokens came from its cache): no prefix cache, or it is off; TTFT pays for the whole prompt every time")

	// Ollama says nothing of its cache: nothing to conclude.
	ollama := stats.Compute([]stats.Round{{Wall: time.Second, Results: []runtimes.Result{turn(1, 10, 100, -1), turn(2, 30, 300, -1)}}}, stats.SLO{})
	for _, n := range ollama.Notes("", names) {
		assert.NotContains(t, n, "reused none")
	}
}

// Turns never sent are counted in the row and said; the failed turn is
// counted under its class.
func TestNotSentTurns(t *testing.T) {
	failed := runtimes.Result{Turn: 2, Err: errors.New("connection reset")}
	m := stats.Compute([]stats.Round{{Wall: time.Second, NotSent: 2, Results: []runtimes.Result{turn(1, 10, 100, 0), failed}}}, stats.SLO{})
	assert.Equal(t, 2, m.NotSent)
	assert.Equal(t, 1, m.Failures)
	assert.Equal(t, 1, m.Errors[runtimes.ClassOther].Count)
	assert.Contains(t, m.Notes("", names), "2 turns were not sent: an earlier turn of their conversation failed")
	assert.Equal(t, 2, newRow(bench.Key{Runtime: "sim", Concurrency: 1}, m, nil).NotSent)
}

// Ollama's count includes cached tokens: its prompt rate is taken only
// from a request nothing of which can have been cached — turn 1, cold,
// with no shared prefix.
func TestPromptRateOnlyFromColdFirstTurns(t *testing.T) {
	ollama := func(t int) runtimes.Result {
		r := turn(t, 10, 1000, -1)
		r.PromptEval = 100 * time.Millisecond
		return r
	}
	m := stats.Compute([]stats.Round{{Wall: time.Second, Cold: true, Results: []runtimes.Result{ollama(1), ollama(2)}}}, stats.SLO{})
	assert.Equal(t, 1, m.Prompt.N, "only turn 1's prompt rate")
	assert.InDelta(t, 10000.0, m.Prompt.Mean, 1e-6)
	m = stats.Compute([]stats.Round{{Wall: time.Second, Cold: true, SharedPrefix: 500, Results: []runtimes.Result{ollama(1)}}}, stats.SLO{})
	assert.Equal(t, 0, m.Prompt.N, "a shared prefix may have been cached")
	assert.True(t, m.PromptCountsCached)
}

// A turn whose prompt count is not above the turn before's lost some of
// its history to the server (Ollama drops the first messages of a
// conversation beyond its context): it counts as cut, and is said.
func TestDroppedHistoryCountsAsCut(t *testing.T) {
	a1, a2, a3 := turn(1, 10, 125, -1), turn(2, 12, 176, -1), turn(3, 14, 115, -1)
	b1, b2 := turn(1, 10, 125, -1), turn(2, 12, 180, -1)
	a1.Conversation, a2.Conversation, a3.Conversation = 1, 1, 1
	b1.Conversation, b2.Conversation = 2, 2
	m := stats.Compute([]stats.Round{{Wall: time.Second, Results: []runtimes.Result{a1, a2, a3, b1, b2}}}, stats.SLO{})
	assert.Equal(t, 1, m.Truncated, "turn 3 of conversation 1; conversation 2's turn 1 follows a longer turn 3 of another")
	assert.Contains(t, strings.Join(m.Notes("", names), "\n"), "1 of 5 requests had their prompt cut by the server")
	assert.Contains(t, strings.Join(m.Notes("", names), "\n"), "on Ollama raise NUM_CTX_SETTING")
}

// names are the settings the notes name, as a caller calls them.
var names = stats.NoteSettings{KeepAlive: "KEEP_ALIVE_SETTING", NumCtx: "NUM_CTX_SETTING", Cache: "CACHE_SETTING"}
