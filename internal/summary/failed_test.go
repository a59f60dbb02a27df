package summary

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
)

// A leaf run in which every request failed has no result line in the
// benchstat file (go test prints none either) but keeps its row in the
// summary, with its failures; Failed names it.
func TestFailedLeafRuns(t *testing.T) {
	r := NewRun(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	ok := runtimes.Result{TTFT: 100 * time.Millisecond, Total: time.Second, OutputTokens: 50}
	bad := runtimes.Result{Total: time.Millisecond, Err: runtimes.NewError(runtimes.ClassHTTP5xx, "HTTP 500 Internal Server Error")}
	good := bench.Key{Runtime: "a", Model: "m", Prompt: "short", Concurrency: 1}
	broken := bench.Key{Runtime: "b", Model: "m", Prompt: "short", Concurrency: 1}
	r.Add(good, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{ok}}}, Telemetry{})
	r.Add(broken, []stats.Round{{Wall: time.Millisecond, Results: []runtimes.Result{bad}}}, Telemetry{})
	r.Add(good, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{ok, bad}}}, Telemetry{})
	short := runtimes.Result{TTFT: 100 * time.Millisecond, Total: time.Second, OutputTokens: 7}
	other := bench.Key{Runtime: "c", Model: "m", Prompt: "short", Concurrency: 2}
	r.Add(other, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{ok, short}}}, Telemetry{})

	assert.Equal(t, []bench.Key{broken}, r.Failed())

	txt, err := r.Benchfmt()
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(txt), "BenchmarkInference/runtime=a/"), "both runs of the good leaf, one with a failure")
	assert.NotContains(t, string(txt), "runtime=b/")

	rows := r.Rows()
	require.Len(t, rows, 3)
	assert.Equal(t, 7, *rows[2].OutputTokensMin)
	assert.Equal(t, 50, *rows[2].OutputTokensMax)
	assert.Equal(t, "b", rows[1].Runtime)
	assert.Equal(t, 1, rows[1].Failures)
	assert.Equal(t, 0, rows[1].Successes)
	assert.Nil(t, rows[1].TTFTMean)
	assert.Nil(t, rows[1].OutputTokensMin)
	require.NotNil(t, rows[0].OutputTokensMin)
	assert.Equal(t, 50, *rows[0].OutputTokensMin)
	assert.Equal(t, 50, *rows[0].OutputTokensMax)
	assert.Equal(t, 3, rows[0].Requests)
	assert.Equal(t, 1, rows[0].Failures)
}
