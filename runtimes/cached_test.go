package runtimes_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// llama-server b1-4227c9b (the simulator's llamacpp flavor at that
// version) states its cached prompt tokens only as usage.prompt_tokens
// less timings.prompt_n: a conversation's turns after the first, and a
// first turn after a shared system prompt, are read so, and say so.
func TestCachedTokensOfAnOlderLlamaServer(t *testing.T) {
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorLlamaCpp, Version: sim.LlamaCachedByPromptN, TTFT: time.Millisecond, TokensPerSec: 5000})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Timeout: 10 * time.Second})
	require.NoError(t, err)
	_, err = rt.Describe(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []runtimes.CachedSource{runtimes.CachedUsage, runtimes.CachedTimings, runtimes.CachedPromptLessEvaluated}, rt.CachedOrder(),
		"its /props names it llama-server: its descriptor's order")
	system := strings.Repeat("The shared prefix of every conversation. ", 40)
	// A first conversation caches the system prompt; the second's turns
	// find it, then their own history.
	for range 2 {
		turns := rt.Converse(t.Context(), runtimes.Request{System: system, Prompt: "Tell me a story.", MaxTokens: 8}, []string{"Go on.", "And then?"})
		require.Len(t, turns, 3)
		for i, r := range turns {
			require.NoError(t, r.Err, "turn %d", i+1)
			require.True(t, r.CachedReported, "turn %d: stated as a difference", i+1)
			assert.Equal(t, runtimes.CachedPromptLessEvaluated, r.CachedSource, "turn %d", i+1)
			assert.Equal(t, r.PromptTokens-r.PromptEvalTokens, r.CachedTokens, "turn %d", i+1)
			if i > 0 {
				assert.Greater(t, r.CachedTokens, turns[i-1].PromptTokens/2, "turn %d: the turn before is cached", i+1)
			}
		}
	}
}

// The order of the sources is the server's descriptor's: a reply stating
// two counts is read by the first its server lists, and one stating a
// source its server does not list (vLLM: usage only) is not read there,
// while a server unknown reads DefaultCachedOrder.
func TestCachedSourceOrder(t *testing.T) {
	chunk := func(usage, timings string) string {
		return `data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}` + "\n\n" +
			`data: {"choices":[],"usage":` + usage + timings + "}\n\n" + "data: [DONE]\n\n"
	}
	for _, c := range []struct {
		name, usage, timings string
		want                 runtimes.CachedSource
		n                    int
	}{
		{"llamacpp", `{"prompt_tokens":100,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":90}}`, `,"timings":{"prompt_n":10,"prompt_ms":5,"predicted_n":1,"cache_n":80}`, runtimes.CachedUsage, 90},
		{"llamacpp", `{"prompt_tokens":100,"completion_tokens":1}`, `,"timings":{"prompt_n":10,"prompt_ms":5,"predicted_n":1,"cache_n":80}`, runtimes.CachedTimings, 80},
		{"llamacpp@b1-4227c9b", `{"prompt_tokens":100,"completion_tokens":1}`, `,"timings":{"prompt_n":30,"prompt_ms":5,"predicted_n":1}`, runtimes.CachedPromptLessEvaluated, 70},
		{"vllm", `{"prompt_tokens":100,"completion_tokens":1}`, `,"timings":{"prompt_n":10,"prompt_ms":5,"predicted_n":1,"cache_n":80}`, "", 0},
		{"vllm", `{"prompt_tokens":100,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":64}}`, ``, runtimes.CachedUsage, 64},
		{"somebox", `{"prompt_tokens":100,"completion_tokens":1}`, `,"timings":{"prompt_n":30,"prompt_ms":5,"predicted_n":1}`, runtimes.CachedPromptLessEvaluated, 70},
	} {
		t.Run(fmt.Sprintf("%s/%s", c.name, c.want), func(t *testing.T) {
			body := chunk(c.usage, c.timings)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, body)
			}))
			t.Cleanup(ts.Close)
			rt, err := runtimes.New(runtimes.Config{Name: c.name, Kind: runtimes.KindOpenAI, URL: ts.URL, Model: "m", Timeout: 5 * time.Second})
			require.NoError(t, err)
			res := rt.Do(t.Context(), runtimes.Request{Prompt: "hi", MaxTokens: 1})
			require.NoError(t, res.Err)
			assert.Equal(t, c.want, res.CachedSource)
			assert.Equal(t, c.want != "", res.CachedReported)
			assert.Equal(t, c.n, res.CachedTokens)
			assert.Equal(t, 100, res.PromptTokens)
		})
	}
}

// Every known server's descriptor lists its sources as data, each one of
// CachedSources; a server that lists none is read in the default order.
func TestKnownServersCachedSources(t *testing.T) {
	for _, s := range runtimes.KnownServers {
		for _, src := range s.Cached {
			assert.Contains(t, runtimes.CachedSources, src, s.Name)
		}
		rt, err := runtimes.New(runtimes.Config{Name: s.Name, Kind: s.Kind, URL: "http://127.0.0.1:1"})
		require.NoError(t, err)
		want := s.Cached
		if len(want) == 0 {
			want = runtimes.DefaultCachedOrder
		}
		assert.Equal(t, want, rt.CachedOrder(), s.Name)
	}
}
