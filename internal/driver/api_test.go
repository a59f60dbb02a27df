package driver

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A server that does not serve BENCH_API's API is refused at setup,
// before any benchmark request, naming the setting, the runtime and its
// answer: mlx_lm.server has no /v1/messages.
func TestAPIUnservedRefusedAtSetup(t *testing.T) {
	t.Parallel()
	url, requests := countingSim(t, sim.FlavorMLX)
	env := isolated(t)
	env["BENCH_RUNTIMES"] = "mlx"
	env["MLX_URL"] = url
	env["BENCH_API"] = "messages"
	s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.Error(t, err)
	assert.Nil(t, s)
	assert.Contains(t, err.Error(), "BENCH_API=messages: mlx ("+url+") does not serve the messages API: POST /v1/messages answered HTTP 404")
	assert.Zero(t, requests.chats.Load(), "no chat request either")
}

// An API the server serves runs as a leaf named by it last, and its
// requests reach the API's endpoint: embeddings, whose row has the
// requests and input tokens a second; the chat's leaves keep their names.
func TestAPILeafOnSim(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ api, suffix string }{{"chat", "/conc=2"}, {"responses", "/conc=2/api=responses"}, {"embeddings", "/conc=2/api=embeddings"}} {
		t.Run(c.api, func(t *testing.T) {
			t.Parallel()
			env := isolated(t)
			env["BENCH_RUNTIMES"] = "sim"
			env["BENCH_API"] = c.api
			env["BENCH_EMBED_BATCH"] = "3"
			env["BENCH_PROMPTS"] = "short"
			env["BENCH_CONCURRENCY"] = "2"
			env["BENCH_WARMUPS"] = "0"
			env["SIM_TOKENS_PER_SEC"] = "5000"
			d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
			require.NoError(t, err)
			t.Cleanup(d.Close)
			keys := slices.Collect(d.Leaves())
			require.Len(t, keys, 1)
			assert.True(t, strings.HasSuffix(keys[0].Levels(), c.suffix), keys[0].Levels())
			// The batch is in no leaf name: a config line keeps runs of
			// other batch sizes apart, and only an embeddings run has it.
			if c.api == "embeddings" {
				assert.Contains(t, d.ConfigLines(), "\nembed-batch: 3\n")
			} else {
				assert.NotContains(t, d.ConfigLines(), "embed-batch")
			}
			out := runLeaf(t, d, keys[0], 2)
			require.NoError(t, out.Failed)
			assert.Equal(t, 4, out.Metrics.Successes)
			if c.api == "embeddings" {
				assert.Positive(t, out.Metrics.EmbedRPS)
				// Each request's three inputs, their tokens all counted.
				assert.InDelta(t, out.Metrics.PromptTokens.Mean*out.Metrics.EmbedRPS, out.Metrics.EmbedInputTPS, 1e-6*out.Metrics.EmbedInputTPS)
				assert.Zero(t, out.Metrics.Short.Count, "embeddings are not short of BENCH_MAX_TOKENS")
			} else {
				assert.Zero(t, out.Metrics.EmbedRPS)
				assert.Positive(t, out.Metrics.Decode.Mean)
			}
		})
	}
}

// Ollama's two kinds reach one endpoint for the APIs beside the chat
// (/v1/completions), so the pair is refused as one server benchmarked
// twice; for embeddings they reach two (/api/embed, /v1/embeddings).
func TestAPIOneServerTwoKinds(t *testing.T) {
	t.Parallel()
	url, requests := countingSim(t, sim.FlavorOllama)
	for _, c := range []struct {
		api     string
		refused bool
	}{{"completions", true}, {"embeddings", false}} {
		env := isolated(t)
		env["BENCH_RUNTIMES"] = "ollama,ollama-v1"
		env["OLLAMA_URL"], env["OLLAMA_V1_URL"] = url, url
		env["BENCH_API"] = c.api
		s, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
		if !c.refused {
			require.NoError(t, err, c.api)
			s.Close()
			continue
		}
		require.Error(t, err, c.api)
		assert.Contains(t, err.Error(), "are one server, reached through the same API (/v1/completions)")
		assert.Zero(t, requests.chats.Load())
	}
}
