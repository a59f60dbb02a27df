package runtimes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// startGreedySim starts a simulator of cfg (fast, the defaults' TTFT
// cut) and a runtime of kind and api on it.
func startGreedySim(t *testing.T, cfg sim.Config, kind runtimes.Kind, api runtimes.API) *runtimes.Runtime {
	t.Helper()
	cfg.TTFT, cfg.TokensPerSec = time.Millisecond, 20000
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, API: api})
	require.NoError(t, err)
	return rt
}

// checkGreedy checks what every greedy reply with log-probabilities
// holds: the tokens from..n-1 of the simulator's reply to last, whose
// texts make Text, each with its log-probability and k alternatives, most
// likely first, the token itself the first of them.
func checkGreedy(t *testing.T, g runtimes.Greedy, last string, from, n, k int) {
	t.Helper()
	require.True(t, g.Logprobs)
	require.Len(t, g.Tokens, n-from)
	assert.Equal(t, k, g.TopK)
	var text strings.Builder
	for j, tok := range g.Tokens {
		i := from + j
		text.WriteString(tok.Text)
		want := sim.Candidates(last, i, 0)
		assert.Equal(t, sim.Token(last, i), tok.Text, "token %d", i)
		assert.InDelta(t, want[0].LogProb, tok.LogProb, 1e-12, "token %d", i)
		assert.LessOrEqual(t, tok.LogProb, 0.0)
		require.Len(t, tok.Top, k, "token %d", i)
		for r, a := range tok.Top {
			assert.Equal(t, want[r].Text, a.Text, "token %d, alternative %d", i, r)
			assert.InDelta(t, want[r].LogProb, a.LogProb, 1e-12)
			if r > 0 {
				assert.Less(t, a.LogProb, tok.Top[r-1].LogProb, "token %d: alternatives most likely first", i)
			}
		}
		if k > 0 {
			assert.Equal(t, tok.Text, tok.Top[0].Text, "a greedy token is its position's most likely")
		}
	}
	assert.Equal(t, text.String(), g.Text, "the tokens make the text")
	assert.Zero(t, g.NotTop)
}

// Greedy against the simulator in each API that gives
// log-probabilities, in each shape: OpenAI's chat, Ollama's /api/chat,
// the completions' legacy shape (vLLM).
func TestGreedyAgainstSim(t *testing.T) {
	const prompt, n, k = "Name a Latin word.", 16, 5
	for _, c := range []struct {
		name   string
		kind   runtimes.Kind
		api    runtimes.API
		flavor sim.Flavor
	}{
		{"openai-chat", runtimes.KindOpenAI, "", sim.FlavorVLLM},
		{"llamacpp-chat", runtimes.KindOpenAI, "", sim.FlavorLlamaCpp},
		{"ollama-chat", runtimes.KindOllama, "", sim.FlavorOllama},
		{"ollama-v1-chat", runtimes.KindOpenAI, "", sim.FlavorOllama},
		{"completions-legacy", runtimes.KindOpenAI, runtimes.APICompletions, sim.FlavorVLLM},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := sim.Config{Flavor: c.flavor}
			if c.flavor == sim.FlavorOllama {
				cfg.Version = "0.12.11" // the first that answers them
			}
			rt := startGreedySim(t, cfg, c.kind, c.api)
			g, err := rt.Greedy(t.Context(), prompt, n, k)
			require.NoError(t, err)
			assert.Equal(t, sim.ReplyText(prompt, 0, n), g.Text)
			assert.Equal(t, "length", g.Finish)
			checkGreedy(t, g, prompt, 0, n, k)

			again, err := rt.Greedy(t.Context(), prompt, n, k)
			require.NoError(t, err)
			assert.Equal(t, g, again, "temperature 0: the same reply every time")

			// k 0: the chosen token's log-probability alone.
			g0, err := rt.Greedy(t.Context(), prompt, n, 0)
			require.NoError(t, err)
			checkGreedy(t, g0, prompt, 0, n, 0)
		})
	}
}

// A reasoning model's tokens: the answer's alone, as Text, on both
// protocols (the reasoning's log-probabilities are left out).
func TestGreedyLeavesReasoningOut(t *testing.T) {
	const prompt, n, think, k = "Think, then answer.", 12, 4, 3
	for _, kind := range []runtimes.Kind{runtimes.KindOpenAI, runtimes.KindOllama} {
		t.Run(string(kind), func(t *testing.T) {
			rt := startGreedySim(t, sim.Config{Flavor: sim.FlavorOllama, ReasoningTokens: think}, kind, "")
			g, err := rt.Greedy(t.Context(), prompt, n, k)
			require.NoError(t, err)
			assert.Equal(t, sim.ReplyText(prompt, think, n), g.Text)
			checkGreedy(t, g, prompt, think, n, k)
		})
	}
}

// top_logprobs is capped at what the server takes: mlx_lm.server's 11
// for a runtime known as mlx, which is asked unstreamed (its streams
// carry none) and whose pieces ("▁lorem") are read as text; the
// simulator, as the servers, refuses more with a 400, which Greedy
// returns naming the runtime and its URL.
func TestGreedyCapsTopK(t *testing.T) {
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorMLX, TTFT: time.Millisecond, TokensPerSec: 20000})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	mlx, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 11, mlx.TopLogprobsCap())
	g, err := mlx.Greedy(t.Context(), "Cap it.", 4, 15)
	require.NoError(t, err)
	checkGreedy(t, g, "Cap it.", 0, 4, 11)
	assert.Equal(t, "length", g.Finish)

	// A runtime of another name: asked streamed, as the server is not
	// known yet; the reply's fingerprint says mlx_lm.server, and it is
	// asked again as mlx.
	learner, err := runtimes.New(runtimes.Config{Name: "learner", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, runtimes.MaxTopLogprobs, learner.TopLogprobsCap())
	g, err = learner.Greedy(t.Context(), "Cap it.", 4, 5)
	require.NoError(t, err)
	checkGreedy(t, g, "Cap it.", 0, 4, 5)
	assert.Equal(t, 11, learner.TopLogprobsCap(), "known as mlx now")

	// Before it is known, 20 is refused, with the most it takes: asked
	// again for 11 (streamed, then as mlx).
	other, err := runtimes.New(runtimes.Config{Name: "other", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second})
	require.NoError(t, err)
	g, err = other.Greedy(t.Context(), "Cap it.", 4, 25)
	require.NoError(t, err)
	checkGreedy(t, g, "Cap it.", 0, 4, 11)
}

// A refusal of too many alternatives in each server's words is asked
// again for as many as it says; another 400 is an error naming the
// runtime, its URL and the server's words.
func TestGreedyRefusedTopK(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		want      float64 // the top_logprobs of the second request; 0: none
	}{
		{"mlx", `{"error": "top_logprobs must be at most 11"}`, 11},
		{"ollama", `{"error":"top_logprobs must be between 0 and 20"}`, 0}, // 20 was asked: not fewer
		{"vllm", `{"object":"error","message":"Requested sample logprobs of 20, which is greater than max allowed: 5","type":"BadRequestError","code":400}`, 5},
		{"other", `{"error":"model not found"}`, 0},
		{"other-logprobs", `{"error":"logprobs must be of type bool"}`, 0}, // on the chat: not mlx's completions
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked []float64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m map[string]any
				_ = json.NewDecoder(r.Body).Decode(&m)
				k, _ := m["top_logprobs"].(float64)
				asked = append(asked, k)
				if len(asked) == 1 {
					w.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(w, c.msg)
					return
				}
				_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\" a\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			}))
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
			require.NoError(t, err)
			g, err := rt.Greedy(t.Context(), "Hello", 5, 20)
			if c.want == 0 {
				var re *runtimes.RequestError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, runtimes.ClassHTTP4xx, re.Class)
				assert.Contains(t, err.Error(), "stub ("+srv.URL+"): greedy request: ")
				assert.Equal(t, []float64{20}, asked)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []float64{20, c.want}, asked)
			assert.Equal(t, int(c.want), g.TopK)
			assert.Equal(t, " a", g.Text)
		})
	}
}

// A server that gives no log-probabilities and is not mlx_lm.server is
// asked once: its text alone.
func TestGreedyAsksOnce(t *testing.T) {
	var got []map[string]any
	srv := stubServer(t, "data: {\"system_fingerprint\":\"fp_ollama\",\"choices\":[{\"delta\":{\"content\":\" a\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", &got)
	rt, err := runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
	require.NoError(t, err)
	g, err := rt.Greedy(t.Context(), "Hello", 5, 3)
	require.NoError(t, err)
	assert.False(t, g.Logprobs)
	assert.Len(t, got, 1)
	assert.Equal(t, runtimes.MaxTopLogprobs, rt.TopLogprobsCap())
}

// Token texts as a tokenizer's pieces are read as text where that makes
// the reply's text: SentencePiece's "▁" and byte pieces, byte-level
// BPE's "Ġ" and "Ċ"; texts that are neither are left as written.
func TestGreedyDecodesPieces(t *testing.T) {
	const tail = `]},"finish_reason":"length"}]}`
	for _, c := range []struct {
		name, content, entries string
		want                   []string
	}{
		{"sentencepiece", `by into\nx`, `{"token":"\u2581by","logprob":-1,"top_logprobs":[{"token":"\u2581by","logprob":-1},{"token":"\u2581at","logprob":-2}]},` +
			`{"token":"\u2581into","logprob":-1},{"token":"<0x0A>","logprob":-1},{"token":"x","logprob":-1}`,
			[]string{" by", " into", "\n", "x"}},
		{"byte-level", ` by into\n`, `{"token":"\u0120by","logprob":-1},{"token":"\u0120into","logprob":-1},{"token":"\u010a","logprob":-1}`,
			[]string{" by", " into", "\n"}},
		{"text", " by into", `{"token":" by","logprob":-1},{"token":" into","logprob":-1}`, []string{" by", " into"}},
		{"neither", "something else", `{"token":"\u2581by","logprob":-1}`, []string{"\u2581by"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"object":"chat.completion","choices":[{"message":{"content":"` + c.content + `"},"logprobs":{"content":[` + c.entries + tail
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m map[string]any
				_ = json.NewDecoder(r.Body).Decode(&m)
				assert.Equal(t, false, m["stream"], "mlx is asked unstreamed")
				assert.Nil(t, m["stream_options"])
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, body)
			}))
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
			require.NoError(t, err)
			g, err := rt.Greedy(t.Context(), "Hello", 4, 2)
			require.NoError(t, err)
			var got []string
			for _, tok := range g.Tokens {
				got = append(got, tok.Text)
			}
			assert.Equal(t, c.want, got)
			if c.name == "sentencepiece" {
				assert.Equal(t, " at", g.Tokens[0].Top[1].Text, "the alternatives too")
			}
		})
	}
}

// An unstreamed reply that is broken or an error is an error naming the
// runtime and its URL.
func TestGreedyBrokenUnstreamed(t *testing.T) {
	for _, c := range []struct {
		name, body string
		class      runtimes.Class
		msg        string
	}{
		{"not JSON", `{"choices":[`, runtimes.ClassMalformed, "bad reply"},
		{"an error", `{"error":"model crashed"}`, runtimes.ClassStreamError, "model crashed"},
		{"no text", `{"choices":[{"message":{"content":""},"finish_reason":"stop"}]}`, runtimes.ClassNoOutput, "without any generated text"},
		{"bad logprob", `{"choices":[{"message":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":3}]}}]}`, runtimes.ClassMalformed, "not a number at most 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := stubServer(t, c.body, nil)
			rt, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
			require.NoError(t, err)
			_, err = rt.Greedy(t.Context(), "Hello", 4, 2)
			var re *runtimes.RequestError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, c.class, re.Class, "%v", err)
			assert.Contains(t, err.Error(), "mlx ("+srv.URL+"): greedy request: ")
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

// A server that ignores the fields (SIM_LOGPROBS=off, as LM Studio and
// Ollama before 0.12.11; Ollama's /v1/completions, which drops them):
// Logprobs false, no tokens, the text kept.
func TestGreedyWithoutLogprobs(t *testing.T) {
	const prompt, n = "No numbers, please.", 8
	for _, c := range []struct {
		name string
		kind runtimes.Kind
		api  runtimes.API
		cfg  sim.Config
	}{
		{"openai-off", runtimes.KindOpenAI, "", sim.Config{Flavor: sim.FlavorOllama, Logprobs: sim.LogprobsOff}},
		{"ollama-off", runtimes.KindOllama, "", sim.Config{Flavor: sim.FlavorOllama, Logprobs: sim.LogprobsOff}},
		{"ollama-completions", runtimes.KindOpenAI, runtimes.APICompletions, sim.Config{Flavor: sim.FlavorOllama, Logprobs: sim.LogprobsOn}},
		{"ollama-0.6.5", runtimes.KindOllama, "", sim.Config{Flavor: sim.FlavorOllama, Version: "0.6.5"}},
		{"ollama-0.12.10-v1", runtimes.KindOpenAI, "", sim.Config{Flavor: sim.FlavorOllama, Version: "0.12.10"}},
		{"lmstudio", runtimes.KindOpenAI, "", sim.Config{Flavor: sim.FlavorLMStudio}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := startGreedySim(t, c.cfg, c.kind, c.api)
			g, err := rt.Greedy(t.Context(), prompt, n, 5)
			require.NoError(t, err)
			assert.False(t, g.Logprobs)
			assert.Empty(t, g.Tokens)
			assert.Equal(t, sim.ReplyText(prompt, 0, n), g.Text)
			assert.Equal(t, "length", g.Finish)
		})
	}
}

// stubServer answers every request with body, as written, with status
// 200 and the content type of kind's stream; it records the request
// bodies it got.
func stubServer(t *testing.T, body string, got *[]map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err == nil && got != nil {
			*got = append(*got, m)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The request asks what the API takes: temperature 0, the seed,
// logprobs and top_logprobs (OpenAI chat, Ollama) or logprobs: k
// (completions); a server that answers without them (recorded from
// Ollama 0.6.5's /api/chat and LM Studio's shape) leaves Logprobs false.
func TestGreedyRequestAndIgnoringServer(t *testing.T) {
	for _, c := range []struct {
		name string
		kind runtimes.Kind
		api  runtimes.API
		body string
		want map[string]any
	}{
		{"openai", runtimes.KindOpenAI, "",
			"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" Salve\"},\"finish_reason\":null}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			map[string]any{"temperature": 0.0, "seed": 1.0, "logprobs": true, "top_logprobs": 3.0, "max_tokens": 5.0}},
		{"ollama", runtimes.KindOllama, "",
			`{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":" Salve"},"done":false}` + "\n" +
				`{"model":"m","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":1}` + "\n",
			map[string]any{"logprobs": true, "top_logprobs": 3.0}},
		{"completions", runtimes.KindOpenAI, runtimes.APICompletions,
			"data: {\"choices\":[{\"index\":0,\"text\":\" Salve\",\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			map[string]any{"temperature": 0.0, "seed": 1.0, "logprobs": 3.0, "max_tokens": 5.0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []map[string]any
			srv := stubServer(t, c.body, &got)
			rt, err := runtimes.New(runtimes.Config{Name: "stub", Kind: c.kind, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: c.api})
			require.NoError(t, err)
			g, err := rt.Greedy(t.Context(), "Hello", 5, 3)
			require.NoError(t, err)
			assert.Equal(t, runtimes.Greedy{Text: " Salve", Finish: "stop", TopK: 3}, g)
			require.Len(t, got, 1)
			for key, v := range c.want {
				assert.Equal(t, v, got[0][key], "request field %s", key)
			}
			if c.kind == runtimes.KindOllama {
				opts, _ := got[0]["options"].(map[string]any)
				assert.Equal(t, 0.0, opts["temperature"])
				assert.Equal(t, 1.0, opts["seed"])
				assert.Equal(t, 5.0, opts["num_predict"])
			}
		})
	}
}

// A broken reply is an error naming the runtime, its URL and what is
// wrong, never a panic nor a partial Greedy.
func TestGreedyBrokenReplies(t *testing.T) {
	const chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"},\"logprobs\":%s}]}\n\n"
	for _, c := range []struct {
		name, body string
		class      runtimes.Class
		msg        string
	}{
		{"cut before [DONE]", fmt.Sprintf(chunk, `{"content":[{"token":" a","logprob":-0.5,"top_logprobs":[]}]}`),
			runtimes.ClassTruncated, "stream ended before data: [DONE]"},
		{"not JSON", "data: {\"choices\": [\n\ndata: [DONE]\n\n", runtimes.ClassMalformed, "bad chunk"},
		{"logprob a string", fmt.Sprintf(chunk, `{"content":[{"token":" a","logprob":"x"}]}`) + "data: [DONE]\n\n",
			runtimes.ClassMalformed, "bad log-probabilities"},
		{"logprob missing", fmt.Sprintf(chunk, `{"content":[{"token":" a"}]}`) + "data: [DONE]\n\n",
			runtimes.ClassMalformed, `token " a" has no log-probability`},
		{"logprob above 0", fmt.Sprintf(chunk, `{"content":[{"token":" a","logprob":0.7}]}`) + "data: [DONE]\n\n",
			runtimes.ClassMalformed, `token " a" has log-probability 0.7, not a number at most 0`},
		{"alternative above 0", fmt.Sprintf(chunk, `{"content":[{"token":" a","logprob":-1,"top_logprobs":[{"token":" b","logprob":2}]}]}`) + "data: [DONE]\n\n",
			runtimes.ClassMalformed, `token " b" has log-probability 2`},
		{"an error in the stream", "data: {\"error\":{\"message\":\"out of memory\"}}\n\n", runtimes.ClassStreamError, "out of memory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := stubServer(t, c.body, nil)
			rt, err := runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
			require.NoError(t, err)
			g, err := rt.Greedy(t.Context(), "Hello", 5, 3)
			var re *runtimes.RequestError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, c.class, re.Class, "%v", err)
			assert.Contains(t, err.Error(), "stub ("+srv.URL+"): greedy request: ")
			assert.Contains(t, err.Error(), c.msg)
			assert.Zero(t, g)
		})
	}
}

// A legacy completions reply whose alternatives come as an object is
// sorted most likely first, and cut to k; the chat's shape there is read
// too; one whose lists disagree is an error.
func TestGreedyLegacyShape(t *testing.T) {
	const done = "data: [DONE]\n\n"
	ok := `data: {"choices":[{"text":" a b","logprobs":{"tokens":[" a"," b"],"token_logprobs":[-0.1,-0.2],` +
		`"top_logprobs":[{" z":-3," a":-0.1," y":-2},{" b":-0.2," q":-1.5}]}}]}` + "\n\n" + done
	srv := stubServer(t, ok, nil)
	rt, err := runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: runtimes.APICompletions})
	require.NoError(t, err)
	g, err := rt.Greedy(t.Context(), "Hello", 5, 2)
	require.NoError(t, err)
	assert.Equal(t, []runtimes.TokenProb{
		{Text: " a", LogProb: -0.1, Top: []runtimes.TopProb{{" a", -0.1}, {" y", -2}}},
		{Text: " b", LogProb: -0.2, Top: []runtimes.TopProb{{" b", -0.2}, {" q", -1.5}}},
	}, g.Tokens)
	assert.Equal(t, " a b", g.Text)

	// The chat's shape in a completion (the field Ollama's
	// CompleteChunkChoice has).
	chatShape := `data: {"choices":[{"text":" a","logprobs":{"content":[{"token":" a","logprob":-0.1,"top_logprobs":[{"token":" y","logprob":-2},{"token":" a","logprob":-0.1},{"token":" z","logprob":-3}]}]}}]}` + "\n\n" + done
	srv = stubServer(t, chatShape, nil)
	rt, err = runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: runtimes.APICompletions})
	require.NoError(t, err)
	g, err = rt.Greedy(t.Context(), "Hello", 5, 2)
	require.NoError(t, err)
	assert.Equal(t, []runtimes.TokenProb{{Text: " a", LogProb: -0.1, Top: []runtimes.TopProb{{" a", -0.1}, {" y", -2}}}}, g.Tokens)
	assert.Zero(t, g.NotTop)

	bad := `data: {"choices":[{"text":" a","logprobs":{"tokens":[" a"," b"],"token_logprobs":[-0.1]}}]}` + "\n\n" + done
	srv = stubServer(t, bad, nil)
	rt, err = runtimes.New(runtimes.Config{Name: "stub", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: runtimes.APICompletions})
	require.NoError(t, err)
	_, err = rt.Greedy(t.Context(), "Hello", 5, 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "log-probabilities of 2 tokens with 1 values")
}

// Bad arguments are refused before any request, naming the argument.
func TestGreedyBadArguments(t *testing.T) {
	rt, err := runtimes.New(runtimes.Config{Name: "nowhere", Kind: runtimes.KindOpenAI, URL: "http://127.0.0.1:1"})
	require.NoError(t, err)
	_, err = rt.Greedy(t.Context(), "x", 0, 3)
	assert.EqualError(t, err, "greedy request to nowhere: maxTokens is 0, want at least 1")
	_, err = rt.Greedy(t.Context(), "x", 5, -1)
	assert.EqualError(t, err, "greedy request to nowhere: topK is -1, want 0 or more")
	rt.API = runtimes.APIEmbeddings
	_, err = rt.Greedy(t.Context(), "x", 5, 3)
	assert.EqualError(t, err, "greedy request to nowhere: its API is embeddings, which generates no text")
}

// A server that stops answering does not hang Greedy: the caller's
// context ends it, with the class that says so.
func TestGreedyStalledServer(t *testing.T) {
	srv, err := sim.Start(sim.Config{Fault: sim.FaultStall, TTFT: time.Millisecond, TokensPerSec: 20000})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = rt.Greedy(ctx, "Wait.", 50, 3)
	var re *runtimes.RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, runtimes.ClassTimeout, re.Class, "%v", err)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// Ollama 0.17.4's /api/chat as recorded (the project's random-weight
// model, a Modelfile's repeat_penalty 1.5): a top-level logprobs array in
// each line, with bytes; the fourth token is not its position's most
// likely, as the penalty chose it.
func TestGreedyRecordedOllama(t *testing.T) {
	const body = `{"model":"tiny","created_at":"2026-12-07T17:42:35.4271419Z","message":{"role":"assistant","content":"cf"},"done":false,"logprobs":[{"token":"cf","logprob":-3.842092514038086,"bytes":[99,102],"top_logprobs":[{"token":"cf","logprob":-3.842092514038086,"bytes":[99,102]},{"token":" model","logprob":-4.032894134521484,"bytes":[32,109,111,100,101,108]}]}]}
{"model":"tiny","created_at":"2026-12-07T17:42:35.432377573Z","message":{"role":"assistant","content":"@"},"done":false,"logprobs":[{"token":"@","logprob":-2.8361003398895264,"bytes":[64],"top_logprobs":[{"token":"@","logprob":-2.8361003398895264,"bytes":[64]},{"token":" can","logprob":-3.389320135116577,"bytes":[32,99,97,110]}]}]}
{"model":"tiny","created_at":"2026-12-07T17:42:35.448987008Z","message":{"role":"assistant","content":"x"},"done":false,"logprobs":[{"token":"x","logprob":-3.9191882610321045,"bytes":[120],"top_logprobs":[{"token":"x","logprob":-3.9191882610321045,"bytes":[120]},{"token":"bv","logprob":-4.243234157562256,"bytes":[98,118]}]}]}
{"model":"tiny","created_at":"2026-12-07T17:42:35.452326051Z","message":{"role":"assistant","content":"c"},"done":false,"logprobs":[{"token":"c","logprob":-4.145583152770996,"bytes":[99],"top_logprobs":[{"token":"x","logprob":-3.5125699043273926,"bytes":[120]},{"token":"c","logprob":-4.145583152770996,"bytes":[99]}]}]}
{"model":"tiny","created_at":"2026-12-07T17:42:35.452377007Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","total_duration":600613507,"load_duration":393955309,"prompt_eval_count":12,"prompt_eval_duration":135323257,"eval_count":4,"eval_duration":32754389}
`
	srv := stubServer(t, body, nil)
	rt, err := runtimes.New(runtimes.Config{Name: "ollama", Kind: runtimes.KindOllama, URL: srv.URL, Model: "tiny", Timeout: 5 * time.Second})
	require.NoError(t, err)
	g, err := rt.Greedy(t.Context(), "Hello there", 4, 2)
	require.NoError(t, err)
	assert.Equal(t, "cf@xc", g.Text)
	assert.Equal(t, "length", g.Finish)
	require.Len(t, g.Tokens, 4)
	assert.Equal(t, runtimes.TokenProb{Text: "c", LogProb: -4.145583152770996, Top: []runtimes.TopProb{{"x", -3.5125699043273926}, {"c", -4.145583152770996}}}, g.Tokens[3])
	assert.Equal(t, 1, g.NotTop)
}

// mlx_lm.server 0.32.2's completions as recorded (the project's
// random-weight model in its Hugging Face form): asked unstreamed with
// "logprobs": true and "top_logprobs", as it refuses a number; its
// pieces read as text.
func TestGreedyRecordedMLXCompletions(t *testing.T) {
	const body = `{"id": "cmpl-4ee3f86b", "system_fingerprint": "0.32.2-0.32.4-Linux-6.18.44-fc-v1300-x86_64-with-glibc2.36-x86_64", "object": "text_completion", "model": "/tmp/qagree/hf", "created": 1796665848, "choices": [{"index": 0, "finish_reason": "length", "logprobs": {"content": [{"id": 491, "token": "cf", "logprob": -3.8426315784454346, "top_logprobs": [{"id": 491, "token": "cf", "logprob": -3.8426315784454346}, {"id": 425, "token": "\u2581model", "logprob": -4.033183574676514}]}, {"id": 347, "token": "@", "logprob": -2.835934638977051, "top_logprobs": [{"id": 347, "token": "@", "logprob": -2.835934638977051}, {"id": 396, "token": "\u2581can", "logprob": -3.389509916305542}]}]}, "text": "cf@"}], "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14, "prompt_tokens_details": {"cached_tokens": 2}}}`
	var got []map[string]any
	srv := stubServer(t, body, &got)
	rt, err := runtimes.New(runtimes.Config{Name: "mlx", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: runtimes.APICompletions})
	require.NoError(t, err)
	g, err := rt.Greedy(t.Context(), "Hello there", 2, 2)
	require.NoError(t, err)
	assert.Equal(t, runtimes.Greedy{Text: "cf@", Finish: "length", Logprobs: true, TopK: 2, Tokens: []runtimes.TokenProb{
		{Text: "cf", LogProb: -3.8426315784454346, Top: []runtimes.TopProb{{"cf", -3.8426315784454346}, {" model", -4.033183574676514}}},
		{Text: "@", LogProb: -2.835934638977051, Top: []runtimes.TopProb{{"@", -2.835934638977051}, {" can", -3.389509916305542}}},
	}}, g)
	require.Len(t, got, 1)
	assert.Equal(t, false, got[0]["stream"])
	assert.Equal(t, true, got[0]["logprobs"])
	assert.Equal(t, 2.0, got[0]["top_logprobs"])
	assert.NotContains(t, got[0], "stream_options")
}

// An mlx_lm.server under another name refuses the completions' numeric
// logprobs in its words (as recorded): it is asked again as mlx,
// unstreamed, with "logprobs": true.
func TestGreedyLearnsMLXFromItsRefusal(t *testing.T) {
	var asked []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		asked = append(asked, m)
		if _, ok := m["logprobs"].(bool); !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error": "logprobs must be of type bool"}`)
			return
		}
		_, _ = io.WriteString(w, `{"object":"text_completion","choices":[{"text":"cf","finish_reason":"length","logprobs":{"content":[{"token":"x","logprob":-9,"top_logprobs":[{"token":"x","logprob":-9},{"token":"cf","logprob":-3.8}]}]}}]}`)
	}))
	t.Cleanup(srv.Close)
	rt, err := runtimes.New(runtimes.Config{Name: "mine", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: "m", Timeout: 5 * time.Second, API: runtimes.APICompletions})
	require.NoError(t, err)
	g, err := rt.Greedy(t.Context(), "Hello", 1, 20)
	require.NoError(t, err)
	require.Len(t, asked, 2)
	assert.Equal(t, 20.0, asked[0]["logprobs"])
	assert.Equal(t, false, asked[1]["stream"])
	assert.Equal(t, 11.0, asked[1]["top_logprobs"], "mlx's bound")
	assert.Equal(t, []runtimes.TokenProb{{Text: "cf", LogProb: -3.8, Top: []runtimes.TopProb{{"cf", -3.8}, {"x", -9}}}}, g.Tokens)
}
