package driver

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// text-generation-inference, added as one descriptor: on another's port
// (vLLM's) its GET /info names it, and says its version and context.
func TestTGIFoundByItsInfo(t *testing.T) {
	t.Parallel()
	env := isolated(t)
	srv := flavoredSim(t, sim.FlavorTGI, "SIM_VERSION", "3.3.6", "SIM_CONTEXT", "8192")
	env["VLLM_URL"] = srv.URL
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	require.Len(t, d.Runtimes, 1, log.String())
	assert.Equal(t, runtimes.ServerTGI, d.Runtimes[0].Name)
	assert.Contains(t, log.String(), "found tgi at "+srv.URL+" (vllm's port; it answers text-generation-inference's GET /info)")
	require.NotNil(t, d.Run.Versions["tgi"])
	assert.Equal(t, "3.3.6", *d.Run.Versions["tgi"])
	require.Len(t, d.Run.Runtimes, 1)
	assert.Equal(t, 8192, d.Run.Runtimes[0].ContextLimit)
	assert.Equal(t, "/info max_total_tokens", d.Run.Runtimes[0].ContextSource)
}

// BENCH_RUNTIMES=tgi TGI_URL=… benchmarks it through the OpenAI chat,
// every request counted by the server's usage, and leaves it as it is
// between leaves (it has no reset). TGI serves its one model whatever a
// request names (its docs send "model": "tgi"): a name it does not list
// is no error.
func TestTGIBenchmarked(t *testing.T) {
	t.Parallel()
	srv := flavoredSim(t, sim.FlavorTGI, "SIM_TTFT", "5ms", "SIM_TOKENS_PER_SEC", "2000")
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "tgi", "TGI_URL": srv.URL, "TGI_MODEL": "tgi", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "2",
		"BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "12", "BENCH_CONTROL": "off",
	})
	var log bytes.Buffer
	d, err := setup(context.Background(), env, &log, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	f, recs := runLeaves(t, d, 2)
	require.Len(t, f.Runtimes, 1)
	assert.Equal(t, "tgi", f.Runtimes[0].Name)
	assert.Equal(t, string(runtimes.KindOpenAI), f.Runtimes[0].Kind)
	require.Len(t, f.Summary, 1)
	assert.Equal(t, "tgi", f.Summary[0].Runtime)
	timedRecs := timed(recs)
	require.Len(t, timedRecs, 4, "2 rounds of 2")
	for _, r := range timedRecs {
		assert.Nil(t, r.Error)
		assert.Equal(t, 12, r.OutputTokens)
		assert.False(t, r.OutputTokensApprox, "the server's usage counts them")
	}
	assert.Equal(t, runtimes.FreshNone, d.Runtimes[0].FreshWay(context.Background()))
}
