package summary

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A native Ollama simulator and an OpenAI one in one run give their
// decode rate the same way: output tokens over the client's total − TTFT.
// Their streams are held and let go (SIM_FAULT=burst on every request),
// so the client's span is far from the simulator's eval_duration, the
// scheduled decode time: native Ollama's own rate (20 tok/s; the slow schedule keeps the
// burst's one step, 50 ms, far above the machine's jitter) is
// server_decode_tps and server-decode-tok/s, in its row and line only,
// and decode_tps is the client's on both. (Before, native Ollama's
// decode_tps was its eval_count / eval_duration, the OpenAI one's the
// client's: scripts/compare.sh compared the two.)
func TestDecodeMeasuredAlikeOnBothKinds(t *testing.T) {
	run := NewRun(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	clientRate := map[string]float64{}
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		srv, err := sim.Start(sim.Config{TTFT: 20 * time.Millisecond, TokensPerSec: 20, Fault: sim.FaultBurst})
		require.NoError(t, err)
		t.Cleanup(srv.Close)
		rt, err := runtimes.New(runtimes.Config{Name: string(kind), Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
		require.NoError(t, err)
		var rounds []stats.Round
		sum := 0.0
		// One reply a leaf: with two, a loaded machine can deliver one
		// burst in a single read and the other in several, and the row
		// then rightly calls them unlike (BurstReplies), which is not what
		// this test is about.
		for range 1 {
			res := rt.Do(context.Background(), runtimes.Request{Prompt: "decode", MaxTokens: 16, IgnoreEOS: true})
			require.NoError(t, res.Err)
			require.Equal(t, 16, res.OutputTokens)
			sum += float64(res.OutputTokens) / (res.Total - res.TTFT).Seconds()
			rounds = append(rounds, stats.Round{Wall: res.Total, MaxTokens: 16, Results: []runtimes.Result{res}})
		}
		clientRate[string(kind)] = sum
		run.Add(bench.Key{Runtime: string(kind), Model: sim.Model, Prompt: "short", Concurrency: 1}, rounds, Telemetry{})
	}
	rows := run.Rows()
	require.Len(t, rows, 2)
	for _, row := range rows {
		require.NotNil(t, row.DecodeTPSMean, row.Runtime)
		assert.InDelta(t, clientRate[row.Runtime], *row.DecodeTPSMean, 1e-6*clientRate[row.Runtime], "%s: decode_tps is the client's", row.Runtime)
		require.NotNil(t, row.BurstReplies)
		assert.Zero(t, *row.BurstReplies, "%s: both replies alike, neither unlike its leaf", row.Runtime)
	}
	ollama, openai := rows[0], rows[1]
	require.NotNil(t, ollama.ServerDecodeTPSMean, "native Ollama's own rate is a key of its own")
	assert.InDelta(t, 20, *ollama.ServerDecodeTPSMean, 0.1)
	assert.Greater(t, *ollama.DecodeTPSMean, 2*20.0, "the client saw the burst; the server's clock did not")
	assert.Nil(t, openai.ServerDecodeTPSMean, "an OpenAI server gives no decode time of its own")

	txt, err := run.Benchfmt()
	require.NoError(t, err)
	for _, line := range strings.Split(string(txt), "\n") {
		switch {
		case strings.HasPrefix(line, "BenchmarkInference/runtime=ollama/"):
			assert.Contains(t, line, " server-decode-tok/s")
			assert.Contains(t, line, " decode-tok/s")
		case strings.HasPrefix(line, "BenchmarkInference/runtime=openai/"):
			assert.NotContains(t, line, "server-decode-tok/s")
			assert.Contains(t, line, " decode-tok/s")
		}
	}
	assert.NotContains(t, string(txt), "Unit server-decode-tok/s", "no Unit line: benchstat has no better or worse for it")
}
