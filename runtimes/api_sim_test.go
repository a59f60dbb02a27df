package runtimes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Each API against the simulator that serves it: every token asked for
// arrives as text (the reasoning too, apart from the answer where the API
// tells them apart), counted by the server, the answer being the
// simulator's reply to the prompt; the first token no sooner than the
// simulator's TTFT.
func TestAPIsAgainstSim(t *testing.T) {
	const ttft, n, think = 20 * time.Millisecond, 12, 3
	const prompt = "Say something in Latin."
	for _, c := range []struct {
		api       runtimes.API
		reasoning bool // the API tells reasoning apart
		finish    string
	}{
		{runtimes.APIChat, true, "length"},
		{runtimes.APICompletions, false, "length"},
		{runtimes.APIResponses, true, "length"},
		{runtimes.APIMessages, true, "length"},
	} {
		t.Run(string(c.api), func(t *testing.T) {
			srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: 2000, ReasoningTokens: think})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, API: c.api})
			require.NoError(t, err)
			require.NoError(t, rt.CheckAPI(t.Context()))
			res := rt.Do(t.Context(), runtimes.Request{Prompt: prompt, MaxTokens: n, KeepText: true, System: "Be brief."})
			require.NoError(t, res.Err)
			assert.Equal(t, n, res.OutputTokens)
			assert.False(t, res.TokensApprox)
			assert.Equal(t, n, res.Chunks, "one token a chunk")
			assert.Equal(t, c.finish, res.FinishReason)
			assert.Positive(t, res.PromptTokens)
			assert.GreaterOrEqual(t, res.TTFT, ttft)
			if c.reasoning {
				assert.Equal(t, sim.ReplyText(prompt, think, n), res.Text)
				assert.Greater(t, res.TTFC, res.TTFT, "the answer comes after the reasoning")
			} else {
				// No messages: the system message and the prompt are one text.
				assert.Equal(t, sim.ReplyText("Be brief.\n\n"+prompt, 0, n), res.Text)
				assert.Equal(t, res.TTFT, res.TTFC)
			}
		})
	}
}

// Embeddings against the simulator, OpenAI's and Ollama's endpoints: one
// embedding per input of the batch, the inputs' tokens counted.
func TestEmbeddingsAgainstSim(t *testing.T) {
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorOllama, TTFT: 5 * time.Millisecond, TokensPerSec: 100})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, kind := range []runtimes.Kind{runtimes.KindOpenAI, runtimes.KindOllama} {
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, API: runtimes.APIEmbeddings})
		require.NoError(t, err)
		require.NoError(t, rt.CheckAPI(t.Context()))
		res := rt.Do(t.Context(), runtimes.Request{Prompt: "lorem ipsum dolor", EmbedBatch: 4})
		require.NoError(t, res.Err, kind)
		assert.Equal(t, 4, res.Embeddings, kind)
		// "1: lorem ipsum dolor": 2 words of 1 token + …, each input the same length.
		assert.Equal(t, 4*sim.Tokens("1: lorem ipsum dolor"), res.PromptTokens, kind)
		assert.Equal(t, res.Total, res.TTFT, kind)
		assert.GreaterOrEqual(t, res.TTFT, 5*time.Millisecond, kind)
	}
}

// A server that does not serve the API asked is found out before any
// benchmark request, its answer named: mlx_lm.server has no Messages,
// Responses or embeddings endpoint.
func TestCheckAPIRefusesUnserved(t *testing.T) {
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorMLX, TokensPerSec: 100})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, api := range []runtimes.API{runtimes.APIMessages, runtimes.APIResponses, runtimes.APIEmbeddings} {
		rt, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, API: api})
		require.NoError(t, err)
		err = rt.CheckAPI(t.Context())
		require.Error(t, err, api)
		assert.Contains(t, err.Error(), "does not serve the "+string(api)+" API: POST "+api.Path(runtimes.KindOpenAI)+" answered HTTP 404")
	}
	rt, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, API: runtimes.APICompletions})
	require.NoError(t, err)
	assert.NoError(t, rt.CheckAPI(t.Context()), "mlx_lm.server serves completions")
}
