package summary

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that counts its cached prompt tokens in /metrics gives the row
// their mean per request, over all the row's leaf runs, even where its
// replies state none (vLLM without --enable-prompt-tokens-details).
func TestRowServerCachedPromptTokens(t *testing.T) {
	scrape := func(cached int) telemetry.Snapshot {
		s, err := telemetry.Parse(strings.NewReader(fmt.Sprintf(
			"# TYPE vllm:prompt_tokens_cached_total counter\nvllm:prompt_tokens_cached_total{model_name=\"m\"} %d.0\n", cached)))
		require.NoError(t, err)
		return s
	}
	r := NewRun(time.Now())
	k := bench.Key{Runtime: "vllm", Model: "m", Prompt: "short", Concurrency: 2}
	// Two leaf runs: 4 requests and 300 cached tokens, then 2 and 60.
	for _, run := range []struct{ requests, from, to int }{{4, 1000, 1300}, {2, 1300, 1360}} {
		var rd stats.Round
		rd.Wall = time.Second
		for range run.requests {
			rd.Results = append(rd.Results, resulttest.Sent(time.Now(), 100*ms, time.Second, 80, 16))
		}
		d := telemetry.Delta(scrape(run.from), scrape(run.to))
		r.Add(k, []stats.Round{rd}, Telemetry{Server: &d})
	}
	row := r.Rows()[0]
	assert.Nil(t, row.CachedPromptTokensMean, "the replies stated no cached tokens")
	require.NotNil(t, row.ServerCachedPromptTokensMean)
	assert.InDelta(t, 360.0/6, *row.ServerCachedPromptTokensMean, 1e-9, "(300 + 60) cached tokens over 6 requests")

	// A server without the counter, or without /metrics: null.
	r = NewRun(time.Now())
	d := telemetry.Delta(telemetry.Snapshot{}, telemetry.Snapshot{})
	r.Add(k, []stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Sent(time.Now(), 100*ms, time.Second, 80, 16)}}}, Telemetry{Server: &d})
	r.Add(bench.Key{Runtime: "ollama", Model: "m", Prompt: "short", Concurrency: 1},
		[]stats.Round{{Wall: time.Second, Results: []runtimes.Result{resulttest.Sent(time.Now(), 100*ms, time.Second, 80, 16)}}}, Telemetry{})
	for _, row := range r.Rows() {
		assert.Nil(t, row.ServerCachedPromptTokensMean, row.Runtime)
	}
}
