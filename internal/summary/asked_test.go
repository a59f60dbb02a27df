package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Requests that asked lengths of their own (Round.Asked) are judged by
// their own: a reply short of its own max_tokens is short, one that
// reached it is not, a prompt cut short of its own length is truncated.
// The row summarises the lengths asked, and the records carry each.
func TestAskedLengthsPerRequest(t *testing.T) {
	res := func(prompt, out int) runtimes.Result {
		return runtimes.Result{TTFT: 10 * time.Millisecond, Total: 50 * time.Millisecond, OutputTokens: out, Chunks: out, PromptTokens: prompt, Turn: 1}
	}
	rd := stats.Round{Wall: time.Second, MaxTokens: 200, InputTokens: 0,
		Results: []runtimes.Result{res(100, 40), res(300, 60), res(100, 150)},
		Asked:   []stats.Asked{{InputTokens: 100, MaxTokens: 40}, {InputTokens: 400, MaxTokens: 60}, {InputTokens: 100, MaxTokens: 200}},
	}
	m := stats.Compute([]stats.Round{rd}, stats.SLO{})
	assert.Equal(t, 1, m.Short.Count, "only the third stopped short of what it asked (150 of 200)")
	assert.Equal(t, 3, m.Short.Of)
	assert.Equal(t, 1, m.Truncated, "the second counted 300 of the 400 it was sized to")
	assert.Equal(t, stats.Lengths{N: 3, Sum: 600, Min: 100, Max: 400}, m.AskedInput)
	assert.Zero(t, m.InputTokens, "no one target length: input_tokens_target stays null")
	assert.Equal(t, stats.Lengths{N: 3, Sum: 300, Min: 40, Max: 200}, m.AskedMax)

	row := newRow(bench.Key{Runtime: "sim", Prompt: "p", Concurrency: 1}, m, nil)
	require.NotNil(t, row.InputTokensAskedMean)
	assert.InDelta(t, 200, *row.InputTokensAskedMean, 1e-9)
	assert.Equal(t, 100, *row.InputTokensAskedMin)
	assert.Equal(t, 400, *row.InputTokensAskedMax)
	assert.InDelta(t, 100, *row.MaxTokensAskedMean, 1e-9)
	assert.Equal(t, 40, *row.MaxTokensAskedMin)
	assert.Equal(t, 200, *row.MaxTokensAskedMax)

	recs := records.OfRound(bench.Key{Runtime: "sim", Prompt: "p", Concurrency: 1}, 1, 1, false, time.Now(), rd.Results, records.Keep{})
	records.SetAsked(recs, rd.Asked)
	b, err := json.Marshal(recs[1])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"input_tokens":400,"max_tokens":60`)
}

// Rounds whose requests all asked the same keep rows and records as
// they were: no asked keys.
func TestAskedLengthsAbsentWhenTheSame(t *testing.T) {
	rd := stats.Round{Wall: time.Second, MaxTokens: 64,
		Results: []runtimes.Result{{TTFT: time.Millisecond, Total: 2 * time.Millisecond, OutputTokens: 64, Chunks: 64, Turn: 1}}}
	m := stats.Compute([]stats.Round{rd}, stats.SLO{})
	row := newRow(bench.Key{Runtime: "sim", Prompt: "p", Concurrency: 1}, m, nil)
	b, err := json.Marshal(row)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "asked")
	recs := records.OfRound(bench.Key{Runtime: "sim", Prompt: "p", Concurrency: 1}, 1, 1, false, time.Now(), rd.Results, records.Keep{})
	b, err = json.Marshal(recs[0])
	require.NoError(t, err)
	assert.NotContains(t, string(b), "max_tokens")
	assert.NotContains(t, string(b), "input_tokens")
}
