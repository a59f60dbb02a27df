package sim_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// long is a prompt of k words of 8 bytes: 2k tokens, 2k + 5 with the
// template; each word its own, so that no two long prompts share a prefix
// unless they are meant to.
func long(tag string, k int) string {
	var b strings.Builder
	for i := range k {
		fmt.Fprintf(&b, "%s%07d ", tag, i%10000000)
	}
	return b.String()
}

// openaiBody is a streamed OpenAI request of prompt with extra members.
func openaiBody(prompt, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"stream":true,"stream_options":{"include_usage":true}%s}`, prompt, extra)
}

// OpenAI kind: a request whose prompt and length (asked, or 128) do not fit
// in SIM_CONTEXT tokens gets vLLM's 400; one that fits exactly is served.
// A refused prompt is not remembered.
func TestContextOpenAI(t *testing.T) {
	srv := startEnv(t, "SIM_CONTEXT", "8192")
	c := newClient(t, 1)
	prompt := long("a", 4000) // 8005 tokens
	p := sim.PromptTokens(prompt)
	require.Equal(t, 8005, p)

	w := post(t, c, srv.URL, openaiPath, openaiBody(prompt, `"max_tokens":200`))
	assert.Equal(t, http.StatusBadRequest, w.status)
	assert.JSONEq(t, `{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 8205 tokens (8005 in the messages, 200 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, string(w.body))
	// No length: the default 128. 8005 + 128 fits; 8085 + 128 does not.
	w = post(t, c, srv.URL, openaiPath, openaiBody(long("c", 4040), ""))
	require.Equal(t, http.StatusBadRequest, w.status)
	assert.Contains(t, string(w.body), "you requested 8213 tokens (8085 in the messages, 128 in the completion)")
	// max_completion_tokens first, as for the length.
	w = post(t, c, srv.URL, openaiPath, openaiBody(prompt, `"max_tokens":10,"max_completion_tokens":188`))
	assert.Equal(t, http.StatusBadRequest, w.status)

	// Exactly the context: served, and nothing was cached by the refusals.
	r := parseReply(t, openaiPath, do(context.Background(), c, srv.URL, openaiPath, openaiBody(prompt, `"max_tokens":187`)))
	assert.Equal(t, 187, r.count)
	assert.Equal(t, p, r.prompt)
	assert.Equal(t, 0, r.cached, "refused prompts are not remembered")

	t.Run("llamacpp", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "llamacpp", "SIM_CONTEXT", "100")
		w := post(t, c, srv.URL, openaiPath, openaiBody("hi", `"max_tokens":95`)) // 6 + 95
		assert.Equal(t, http.StatusBadRequest, w.status)
		assert.JSONEq(t, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, string(w.body))
		assert.Equal(t, http.StatusOK, post(t, c, srv.URL, openaiPath, openaiBody("hi", `"max_tokens":94`)).status)
	})

	t.Run("the client", func(t *testing.T) {
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
		require.NoError(t, err)
		res := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: 200})
		require.Error(t, res.Err)
		// An HTTP 4xx with the server's words: the client's http_4xx, or
		// the class it gives a refusal for the context, "context".
		assert.Contains(t, []runtimes.Class{runtimes.ClassHTTP4xx, "context"}, runtimes.ErrorClass(res.Err))
		assert.Contains(t, res.Err.Error(), "HTTP 400")
		assert.Contains(t, res.Err.Error(), "maximum context length is 8192 tokens")
		res = rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: 100})
		require.NoError(t, res.Err)
		assert.Equal(t, p, res.PromptTokens)
	})
}

// Ollama kind: options.num_ctx (2048 by default, at most SIM_CONTEXT) is
// the context; a longer prompt is cut silently to num_ctx tokens, reported
// in prompt_eval_count, and the reply goes on as usual. Another num_ctx
// than the loaded model's reloads it.
func TestContextOllama(t *testing.T) {
	const load = 100 * time.Millisecond
	srv := startEnv(t, "SIM_LOAD_TIME", load.String(), "SIM_TTFT", "10ms")
	c := newClient(t, 1)
	prompt := long("b", 1500) // 3005 tokens
	body := func(opts string) string {
		return fmt.Sprintf(`{"model":"m","messages":[{"content":%q}],"options":{"num_predict":3%s}}`, prompt, opts)
	}
	final := func(opts string) ndjsonChunk {
		t.Helper()
		res := do(context.Background(), c, srv.URL, ollamaPath, body(opts))
		r := parseReply(t, ollamaPath, res)
		require.True(t, r.ended)
		assert.Equal(t, 3, r.count, "the reply goes on")
		var fin ndjsonChunk
		decodeStrict(t, res.lines[len(res.lines)-1].text, &fin)
		return fin
	}

	fin := final("")
	assert.Equal(t, sim.DefaultNumCtx, *fin.PromptEvalCount, "cut to the default num_ctx")
	assert.Zero(t, *fin.LoadDuration, "the default num_ctx is the loaded one")
	assert.Equal(t, int64(10*time.Millisecond), *fin.PromptEvalDuration, "nothing cached")
	fin = final("")
	assert.Equal(t, int64(10*time.Millisecond)/2048, *fin.PromptEvalDuration, "the same cut prompt: all but its last token cached")

	fin = final(`,"num_ctx":4096`)
	assert.Equal(t, 3005, *fin.PromptEvalCount, "fits")
	assert.Equal(t, int64(load), *fin.LoadDuration, "another num_ctx: a reload")
	fin = final(`,"num_ctx":4096`)
	assert.Zero(t, *fin.LoadDuration)
	fin = final(`,"num_ctx":100000`)
	assert.Equal(t, 3005, *fin.PromptEvalCount, "capped at SIM_CONTEXT")
	assert.Equal(t, int64(load), *fin.LoadDuration, "8192 is another num_ctx")
	fin = final(`,"num_ctx":1000.9`)
	assert.Equal(t, 1000, *fin.PromptEvalCount)
	fin = final(`,"num_ctx":0`)
	assert.Equal(t, 2048, *fin.PromptEvalCount, "0: the default")
	assert.Equal(t, int64(load), *fin.LoadDuration)

	// "stream": false alike.
	res := do(context.Background(), c, srv.URL, ollamaPath, strings.Replace(body(`,"num_ctx":512`), `{"model"`, `{"stream":false,"model"`, 1))
	require.NoError(t, res.err)
	require.Equal(t, http.StatusOK, res.status)
	var whole ndjsonChunk
	decodeStrict(t, res.lines[0].text, &whole)
	assert.Equal(t, 512, *whole.PromptEvalCount)

	t.Run("SIM_CONTEXT below the default", func(t *testing.T) {
		srv := startEnv(t, "SIM_CONTEXT", "1000")
		r := chat(t, c, srv.URL, ollamaPath, prompt, 2, "")
		assert.Equal(t, 1000, r.prompt)
		assert.Zero(t, srv.Loads(), "the default num_ctx is then 1000, the loaded one")
	})

	t.Run("the client", func(t *testing.T) {
		srv := startEnv(t)
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOllama, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
		require.NoError(t, err)
		res := rt.Do(context.Background(), runtimes.Request{Prompt: prompt, MaxTokens: 5})
		require.NoError(t, res.Err, "a cut prompt is no error")
		assert.Equal(t, sim.DefaultNumCtx, res.PromptTokens)
		assert.Equal(t, 5, res.OutputTokens)
	})
}

// The metadata endpoints report SIM_CONTEXT.
func TestContextMetadata(t *testing.T) {
	for _, tc := range []struct{ env, want string }{{"", "40960"}, {"32768", "32768"}} {
		srv := startEnv(t, "SIM_CONTEXT", tc.env)
		c := newClient(t, 1)
		var want float64
		fmt.Sscan(tc.want, &want)
		assert.Equal(t, want, getJSON(t, c, srv.URL, "/v1/models")["data"].([]any)[0].(map[string]any)["max_model_len"])
		assert.Equal(t, want, getJSON(t, c, srv.URL, "/api/ps")["models"].([]any)[0].(map[string]any)["context_length"])
		w := post(t, c, srv.URL, "/api/show", `{"model":"m"}`)
		assert.Contains(t, string(w.body), `"sim.context_length":`+tc.want)
		w = post(t, c, srv.URL, "/tokenize", `{"model":"m","prompt":"a"}`)
		assert.Contains(t, string(w.body), `"max_model_len":`+tc.want)
		srv = startEnv(t, "SIM_CONTEXT", tc.env, "SIM_FLAVOR", "llamacpp")
		props := getJSON(t, c, srv.URL, "/props")
		assert.Equal(t, want, props["n_ctx"])
		assert.Equal(t, want, props["default_generation_settings"].(map[string]any)["n_ctx"])
	}
}
