package driver

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cachedRun runs every leaf of a run of the simulator (OpenAI API) with
// warm prompts, so that the timed rounds' prompts are cached, and the
// settings of env; it returns the rows and the log.
func cachedRun(t *testing.T, env map[string]string) ([]rowCached, string) {
	t.Helper()
	d, log := startSim(t, map[string]string{
		"SIM_KIND": "openai", "BENCH_PROMPTS": "short", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "4",
		"BENCH_CONCURRENCY": "1,2", "BENCH_CACHE": "warm", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "5000",
	}, env)
	for _, k := range slices.Collect(d.Leaves()) {
		require.NoError(t, runLeaf(t, d, k, 2).SaveErr)
	}
	var rows []rowCached
	for _, r := range d.Run.Rows() {
		rows = append(rows, rowCached{r.CachedPromptTokensMean, r.ServerCachedPromptTokensMean})
	}
	return rows, log.String()
}

type rowCached struct{ stated, server *float64 }

// vLLM without --enable-prompt-tokens-details (the simulator with
// SIM_PROMPT_TOKENS_DETAILS=0) states no cached tokens in its replies: the
// rows read them from its /metrics, and the log says why, once for the
// runtime, not at every leaf. A server that states them says nothing, and
// its own count is the replies'.
func TestCachedTokensFromTheServersCounters(t *testing.T) {
	t.Parallel()
	const said = "sim: its replies state no cached prompt tokens (vLLM states them only when started with --enable-prompt-tokens-details); its /metrics counted "
	t.Run("details off", func(t *testing.T) {
		t.Parallel()
		rows, log := cachedRun(t, map[string]string{"SIM_PROMPT_TOKENS_DETAILS": "0"})
		require.Len(t, rows, 2)
		for i, r := range rows {
			assert.Nil(t, r.stated, "row %d: the replies stated none", i)
			if assert.NotNil(t, r.server, "row %d", i) {
				assert.Positive(t, *r.server, "row %d: the warm prompt was cached", i)
			}
		}
		assert.Equal(t, 1, strings.Count(log, said), "said once, not per leaf:\n%s", log)
		assert.Contains(t, log, "cached tokens over the leaf (vllm:prompt_tokens_cached_total; server_cached_prompt_tokens_mean ")
	})
	t.Run("details on", func(t *testing.T) {
		t.Parallel()
		rows, log := cachedRun(t, nil)
		for i, r := range rows {
			require.NotNil(t, r.stated, "row %d", i)
			require.NotNil(t, r.server, "row %d", i)
			assert.Positive(t, *r.stated)
			assert.InDelta(t, *r.stated, *r.server, 1e-9, "row %d: the server's count is what its replies stated", i)
		}
		assert.NotContains(t, log, "state no cached prompt tokens")
	})
	t.Run("no metrics", func(t *testing.T) {
		t.Parallel()
		rows, log := cachedRun(t, map[string]string{"SIM_PROMPT_TOKENS_DETAILS": "0", "SIM_METRICS": "0"})
		for i, r := range rows {
			assert.Nil(t, r.stated, "row %d", i)
			assert.Nil(t, r.server, "row %d", i)
		}
		const none = "sim: its replies state no cached prompt tokens (the server's usage has no prompt_tokens_details.cached_tokens) and it serves no /metrics that counts them: its rows' cached_prompt_tokens_mean and server_cached_prompt_tokens_mean are null"
		assert.Equal(t, 1, strings.Count(log, none), "said once:\n%s", log)
	})
	t.Run("cold, no metrics", func(t *testing.T) {
		t.Parallel()
		_, log := cachedRun(t, map[string]string{"SIM_PROMPT_TOKENS_DETAILS": "0", "SIM_METRICS": "0", "BENCH_CACHE": "cold"})
		assert.NotContains(t, log, "state no cached prompt tokens", "nothing could be cached: nothing to explain")
	})
}
