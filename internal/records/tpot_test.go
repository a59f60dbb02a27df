package records

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A record's tpot_s and the row's TPOT are one formula: over the same
// successful replies, the records that have a TPOT are the samples of
// the figure, value for value. The edge cases are where the two were
// once computed under different conditions: the figures wanted a TTFT
// above 0 and took a reply of no text chunk at its tokens, the records
// wanted two chunks and took a first token stamped at 0.
func TestRecordTPOTIsTheFigures(t *testing.T) {
	ms := time.Millisecond
	results := []runtimes.Result{
		{TTFT: 100 * ms, Total: 1100 * ms, OutputTokens: 11, Chunks: 11},                    // 100 ms
		{TTFT: 200 * ms, Total: 1000 * ms, OutputTokens: 9, Chunks: 3},                      // 100 ms, chunks of several tokens
		{TTFT: 0, Total: 1800 * ms, OutputTokens: 10, Chunks: 10},                           // a first token stamped at 0: 200 ms
		{TTFT: 300 * ms, Total: 1800 * ms, OutputTokens: 11, Chunks: 0},                     // no text chunk: no decoding seen (150 ms if counted)
		{TTFT: 400 * ms, Total: 400*ms + 100*time.Microsecond, OutputTokens: 32, Chunks: 1}, // came whole
		{TTFT: 100 * ms, Total: 150 * ms, OutputTokens: 1, Chunks: 1},                       // one token
		{TTFT: 500 * ms, Total: 500 * ms, OutputTokens: 4, Chunks: 4},                       // no time after the first token
	}
	m := stats.Compute([]stats.Round{{Wall: 2 * time.Second, Results: results}}, stats.SLO{})
	require.Zero(t, m.Bursts, "no reply here is a burst: every TPOT is the same")

	recs := OfRound(bench.Key{Runtime: "sim", Prompt: "p", Concurrency: len(results)}, 1, 1, false, time.Time{}, results, Keep{})
	var tpots []float64
	for _, r := range recs {
		if r.TPOTS != nil {
			tpots = append(tpots, *r.TPOTS)
		}
	}
	require.Equal(t, m.TPOT.N, len(tpots), "as many records have a TPOT as the figure has samples")
	assert.Equal(t, 3, m.TPOT.N, "the first three replies decoded where the client saw it")
	sum := 0.0
	for _, x := range tpots {
		sum += x
	}
	assert.InDelta(t, m.TPOT.Mean, sum/float64(len(tpots)), 1e-12)
	assert.InDelta(t, (0.1+0.1+0.2)/3, m.TPOT.Mean, 1e-12, "the figure's samples are the records' values")
	assert.InDelta(t, 0.2, m.TPOT.Max, 1e-12)
	assert.Nil(t, recs[3].TPOTS, "a reply of no text chunk has no first token to count from")
	assert.NotNil(t, recs[2].TPOTS, "a first token stamped at 0 still starts the decoding")
}
