package driver

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// llama-server b1-4227c9b (the simulator's llamacpp flavor at that
// version) states its cached prompt tokens only as usage.prompt_tokens
// less timings.prompt_n, and its /metrics has no counter of them: with
// BENCH_TURNS=3 and BENCH_SHARED_PREFIX=512, every row still has a cache
// hit ratio and every turn its cached tokens, read from that difference,
// and says so in cached_prompt_tokens_source; the log does not say its
// replies state none.
func TestCachedTokensOfAnOlderLlamaServer(t *testing.T) {
	t.Parallel()
	d, log := startSim(t, map[string]string{
		"SIM_KIND": "openai", "SIM_FLAVOR": "llamacpp", "SIM_VERSION": sim.LlamaCachedByPromptN,
		"BENCH_PROMPTS": "short", "BENCH_TURNS": "3", "BENCH_SHARED_PREFIX": "512", "BENCH_WARMUPS": "1",
		"BENCH_MAX_TOKENS": "4", "BENCH_CONCURRENCY": "1", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "5000",
	})
	for _, k := range slices.Collect(d.Leaves()) {
		require.NoError(t, runLeaf(t, d, k, 1).SaveErr)
	}
	rows := d.Run.Rows()
	require.NotEmpty(t, rows)
	for _, r := range rows {
		require.NotNil(t, r.CacheHitRatio, "%s: cache_hit_ratio", r.Prompt)
		t.Logf("%s: cache_hit_ratio %.3f", r.Prompt, *r.CacheHitRatio)
		assert.Greater(t, *r.CacheHitRatio, 0.5, "%s: the shared prefix and the history are cached", r.Prompt)
		require.NotNil(t, r.CachedPromptTokensSource, r.Prompt)
		assert.Equal(t, string(runtimes.CachedPromptLessEvaluated), *r.CachedPromptTokensSource)
		require.Len(t, r.Turns, 3, r.Prompt)
		for _, turn := range r.Turns {
			if assert.NotNil(t, turn.CachedPromptTokensMean, "%s turn %d", r.Prompt, turn.Turn) {
				t.Logf("turn %d: %.0f of %.0f prompt tokens cached", turn.Turn, *turn.CachedPromptTokensMean, *turn.PromptTokensMean)
				assert.Positive(t, *turn.CachedPromptTokensMean, "%s turn %d", r.Prompt, turn.Turn)
			}
		}
	}
	assert.NotContains(t, log.String(), "state no cached prompt tokens")
}
