package sim_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/envtest"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// startEnv starts a server configured by config.LoadSim from the variables
// kv (NAME, value, ...) on a fast schedule, as a user would configure one.
func startEnv(t *testing.T, kv ...string) *sim.Server {
	t.Helper()
	envtest.Clean(t)
	t.Setenv("SIM_TTFT", "1ms")
	t.Setenv("SIM_TOKENS_PER_SEC", "20000")
	for i := 0; i < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
	cfg, err := config.LoadSim()
	require.NoError(t, err)
	return start(t, cfg)
}

// getJSON GETs path and decodes its JSON body.
func getJSON(t *testing.T, c *http.Client, url, path string) map[string]any {
	t.Helper()
	resp, err := c.Get(url + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, path)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// SIM_SERVED_MODEL on a llama-server: every reply names the served model,
// whatever was asked, and the listings list it.
func TestServedModel(t *testing.T) {
	const served = "/models/Qwen3-8B-Q4_K_M.gguf"
	srv := startEnv(t, "SIM_SERVED_MODEL", served, "SIM_FLAVOR", "llamacpp")
	c := newClient(t, 1)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			r := chat(t, c, srv.URL, path, "hi", 3, "")
			require.True(t, r.ended)
			require.NotEmpty(t, r.models)
			for _, m := range r.models {
				assert.Equal(t, served, m, "the request asked for m")
			}
		})
	}
	res := do(context.Background(), c, srv.URL, ollamaPath, `{"model":"m","stream":false,"messages":[{"content":"hi"}],"options":{"num_predict":2}}`)
	require.NoError(t, res.err)
	assert.True(t, strings.HasPrefix(res.lines[0].text, `{"model":"`+served+`",`), res.lines[0].text)

	for path, list := range map[string]string{"/v1/models": "data", "/api/tags": "models", "/api/ps": "models"} {
		models := getJSON(t, c, srv.URL, path)[list].([]any)
		require.Len(t, models, 1, path)
		m := models[0].(map[string]any)
		for _, k := range []string{"id", "root", "name", "model"} {
			if v, ok := m[k]; ok {
				assert.Equal(t, served, v, "%s %s", path, k)
			}
		}
	}
}

// SIM_STOP_AFTER=N: replies end after min(N, n) tokens, "stop" when N <= n,
// on schedule; OpenAI's ignore_eos runs to n.
func TestStopAfter(t *testing.T) {
	// 100 tokens/s: ending at N = 5 (51 ms) or at n = 100 (1 s) is plain to
	// see on a loaded machine too.
	srv := startEnv(t, "SIM_STOP_AFTER", "5", "SIM_TOKENS_PER_SEC", "100")
	cfg := srv.Config()
	c := newClient(t, 1)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			for _, tc := range []struct {
				n      int
				extra  string
				want   int
				finish string
			}{
				{100, "", 5, "stop"},
				{5, "", 5, "stop"},   // the end of sequence is token 5
				{3, "", 3, "length"}, // the length comes first
				{100, `"ignore_eos":false`, 5, "stop"},
				{8, `"ignore_eos":true`, 8, "length"}, // Ollama: ignored, no such option
			} {
				if path == ollamaPath && strings.Contains(tc.extra, "true") {
					tc.want, tc.finish = 5, "stop"
				}
				r := chat(t, c, srv.URL, path, "hi", tc.n, tc.extra)
				require.True(t, r.ended, "n %d %s", tc.n, tc.extra)
				assert.Equal(t, strings.Join(tokens("hi", 0, tc.want), ""), r.text(false), "n %d %s", tc.n, tc.extra)
				assert.Len(t, r.pieces, tc.want)
				assert.Equal(t, tc.finish, r.finish, "n %d %s", tc.n, tc.extra)
				assert.Equal(t, tc.want, r.count, "eval_count / completion_tokens")
				if path == ollamaPath {
					assert.Equal(t, int64(cfg.Offset(tc.want)-cfg.TTFT), r.evalDuration, "eval_duration")
				}
				// On schedule: the end when token `want` would be due, not n.
				assert.GreaterOrEqual(t, r.end, cfg.Offset(tc.want))
				if tc.n == 100 {
					assert.Less(t, r.end, cfg.Offset(tc.n)/2, "ends early: at 51 ms, not 1 s")
				}
			}
		})
	}
	// stream:false too.
	res := do(context.Background(), c, srv.URL, ollamaPath, `{"stream":false,"messages":[{"content":"hi"}],"options":{"num_predict":100}}`)
	require.NoError(t, res.err)
	var whole ndjsonChunk
	decodeStrict(t, res.lines[0].text, &whole)
	assert.Equal(t, strings.Join(tokens("hi", 0, 5), ""), whole.Message.Content)
	assert.Equal(t, "stop", whole.DoneReason)
	assert.Equal(t, 5, *whole.EvalCount)
}

// SIM_REASONING_TOKENS=N: the first min(N, n) tokens are reasoning, in the
// protocol's reasoning field, the rest answer; counts cover both; the first
// answer token comes at TTFT + N/rate.
func TestReasoning(t *testing.T) {
	for _, field := range []string{"", "reasoning_content", "reasoning"} {
		t.Run("field="+field, func(t *testing.T) {
			srv := startEnv(t, "SIM_REASONING_TOKENS", "3", "SIM_REASONING_FIELD", field, "SIM_TOKENS_PER_SEC", "1000")
			cfg := srv.Config()
			c := newClient(t, 1)
			for _, path := range paths {
				for _, tc := range []struct{ n, think int }{{8, 3}, {3, 3}, {2, 2}} {
					r := chat(t, c, srv.URL, path, "hi", tc.n, "")
					require.True(t, r.ended)
					assert.Equal(t, strings.Join(tokens("hi", 0, tc.think), ""), r.text(true), "%s n=%d: reasoning", path, tc.n)
					assert.Equal(t, strings.Join(tokens("hi", tc.think, tc.n), ""), r.text(false), "%s n=%d: answer", path, tc.n)
					require.Len(t, r.pieces, tc.n, "one token per chunk")
					for i, p := range r.pieces {
						assert.Equal(t, i < tc.think, p.think, "%s n=%d: chunk %d", path, tc.n, i)
					}
					assert.Equal(t, tc.n, r.count, "%s: reasoning counts as tokens", path)
					assert.Equal(t, "length", r.finish)
					if path == openaiPath {
						assert.Equal(t, cmp.Or(field, "reasoning_content"), r.reasoningField)
						assert.Equal(t, tc.think, r.reasoningTokens, "usage.completion_tokens_details.reasoning_tokens")
					} else {
						assert.Equal(t, -1, r.reasoningTokens)
					}
					if tc.think < tc.n {
						assert.GreaterOrEqual(t, r.firstAnswer(), cfg.Offset(tc.think), "first answer token at TTFT + N/rate")
					}
				}
			}
			// Ollama "stream": false: the reasoning in message.thinking.
			res := do(context.Background(), c, srv.URL, ollamaPath, `{"stream":false,"messages":[{"content":"hi"}],"options":{"num_predict":5}}`)
			require.NoError(t, res.err)
			var whole ndjsonChunk
			decodeStrict(t, res.lines[0].text, &whole)
			require.NotNil(t, whole.Message.Thinking)
			assert.Equal(t, strings.Join(tokens("hi", 0, 3), ""), *whole.Message.Thinking)
			assert.Equal(t, strings.Join(tokens("hi", 3, 5), ""), whole.Message.Content)
			assert.Equal(t, 5, *whole.EvalCount)
		})
	}
}

// SIM_TOKENS_PER_CHUNK=k: k tokens' text per chunk, fewer at the end of a
// run; runs restart at the reasoning/answer boundary; a chunk goes out
// when its last token is due; counts stay in tokens.
func TestTokensPerChunk(t *testing.T) {
	srv := startEnv(t, "SIM_TOKENS_PER_CHUNK", "3", "SIM_TOKENS_PER_SEC", "1000")
	cfg := srv.Config()
	c := newClient(t, 1)
	for _, path := range paths {
		r := chat(t, c, srv.URL, path, "hi", 8, "")
		require.True(t, r.ended)
		var texts []string
		for _, p := range r.pieces {
			texts = append(texts, p.text)
		}
		join := func(a, b int) string { return strings.Join(tokens("hi", a, b), "") }
		assert.Equal(t, []string{join(0, 3), join(3, 6), join(6, 8)}, texts, path)
		assert.Equal(t, 8, r.count, "%s: counts in tokens", path)
		// Each chunk when its last token is due: the first at TTFT + 2/rate.
		for i, last := range []int{2, 5, 7} {
			assert.GreaterOrEqual(t, r.pieces[i].at, cfg.Offset(last), "%s: chunk %d", path, i)
		}
		assert.GreaterOrEqual(t, r.end, cfg.Offset(8))
	}

	t.Run("reasoning", func(t *testing.T) {
		srv := startEnv(t, "SIM_TOKENS_PER_CHUNK", "3", "SIM_REASONING_TOKENS", "4")
		for _, path := range paths {
			r := chat(t, c, srv.URL, path, "hi", 9, "")
			var got []piece
			for _, p := range r.pieces {
				got = append(got, piece{text: p.text, think: p.think})
			}
			join := func(a, b int) string { return strings.Join(tokens("hi", a, b), "") }
			assert.Equal(t, []piece{
				{join(0, 3), true, 0}, {join(3, 4), true, 0}, // the reasoning's run
				{join(4, 7), false, 0}, {join(7, 9), false, 0}, // the answer's, restarted
			}, got, path)
			assert.Equal(t, 9, r.count)
		}
	})

	t.Run("faults", func(t *testing.T) {
		// Chunking restarts at the token a fault acts at (k = 4 of 8).
		for _, tc := range []struct {
			f     sim.Fault
			kinds []string
		}{
			{sim.FaultMalformed, []string{"tok", "tok", "broken", "tok", "tok"}},
			{sim.FaultTruncate, []string{"tok", "tok"}},
		} {
			srv := startEnv(t, "SIM_TOKENS_PER_CHUNK", "3", "SIM_FAULT", string(tc.f))
			for _, path := range paths {
				w := fetch(context.Background(), t, c, srv.URL, path, faultBodies[path])
				require.NoError(t, w.err)
				kinds, texts := frames(t, path, w)
				assert.Equal(t, framed(path, tc.kinds, tc.f == sim.FaultMalformed), kinds, "%s %s", tc.f, path)
				want := []string{strings.Join(tokens(faultPrompt, 0, 3), ""), sim.Token(faultPrompt, 3)}
				if tc.f == sim.FaultMalformed {
					want = append(want, strings.Join(tokens(faultPrompt, 4, 7), ""), sim.Token(faultPrompt, 7))
				}
				assert.Equal(t, want, texts, "%s %s", tc.f, path)
			}
		}
	})
}

// The prompt cache: C, in tokens, for the longest prefix an earlier prompt
// shared, compared word by word and message by message (a message's
// header, 2 tokens, its words, its end, 1 token; the reply's header, 2;
// P-1 when all of it was shared; 0 when no word was), in OpenAI's
// usage.prompt_tokens_details.cached_tokens and in Ollama's
// prompt_eval_duration = TTFT * (P-C)/P; the schedule does not change. P
// is PromptTokens: 3 + the words' tokens + 2 for one message.
func TestPromptCache(t *testing.T) {
	ttft := 10 * time.Millisecond
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			srv := startEnv(t, "SIM_TTFT", ttft.String())
			c := newClient(t, 1)
			for _, tc := range []struct {
				prompt string
				p, c   int
			}{
				{"a b c d", 9, 0},
				{"a b c d", 9, 8}, // all of it was seen: the last token is evaluated
				{"a  b\tx", 8, 4}, // the header and a b: 2 + 2
				{"q", 6, 0},
				{"a b c d e f", 11, 6},
				{"b c", 7, 0}, // a prefix, not any substring
				{"", 5, 0},
				{"", 5, 0}, // no words: P is the template's, and C 0
				{"a b c d e f", 11, 10},
				{"extraordinary claims", 11, 0},   // 4 + 2 tokens
				{"extraordinary evidence", 11, 6}, // 2 + 4
			} {
				r := chat(t, c, srv.URL, path, tc.prompt, 2, "")
				require.True(t, r.ended)
				assert.Equal(t, tc.p, r.prompt, "%q: P", tc.prompt)
				assert.Equal(t, sim.PromptTokens(tc.prompt), r.prompt, "%q: P", tc.prompt)
				if path == openaiPath {
					assert.Equal(t, tc.c, r.cached, "%q: cached_tokens", tc.prompt)
				} else {
					assert.Equal(t, -1, r.cached)
					assert.Equal(t, int64(ttft)*int64(tc.p-tc.c)/int64(tc.p), r.promptEvalDuration, "%q: prompt_eval_duration", tc.prompt)
				}
				// The schedule is the same, cached or not.
				assert.GreaterOrEqual(t, r.pieces[0].at, ttft, "%q", tc.prompt)
			}
		})
	}
	t.Run("across messages and endpoints", func(t *testing.T) {
		srv := startEnv(t)
		c := newClient(t, 1)
		res := do(context.Background(), c, srv.URL, ollamaPath, `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi there"}],"options":{"num_predict":1}}`)
		require.NoError(t, res.err)
		p1 := sim.PromptTokens("Be brief.", "Hi there") // 14
		openai := func(msgs string) parsed {
			return parseReply(t, openaiPath, do(context.Background(), c, srv.URL, openaiPath, `{"messages":`+msgs+`,"stream":true,"max_tokens":1,"stream_options":{"include_usage":true}}`))
		}
		// The same words in another role: nothing.
		r := openai(`[{"role":"user","content":"Be brief."},{"role":"user","content":"Hi there"}]`)
		assert.Equal(t, p1, r.prompt)
		assert.Zero(t, r.cached, "another role")
		// The same words, cut into other messages: up to the cut.
		r = openai(`[{"role":"system","content":"Be brief. Hi"},{"role":"user","content":"there"}]`)
		assert.Equal(t, 2+sim.Tokens("Be brief."), r.cached, "the header and the words before the cut")
		// The conversation's next turn, its text in parts, asked of the
		// other endpoint: all of the first prompt, whose reply header the
		// assistant's message begins with.
		r = openai(`[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi"},{"type":"text","text":" there"}]},{"role":"assistant","content":"Yes."},{"role":"user","content":"again"}]`)
		assert.Equal(t, sim.PromptTokens("Be brief.", "Hi there", "Yes.", "again"), r.prompt)
		assert.Equal(t, p1, r.cached)
	})
}

// SIM_SERVED_MODEL on a vLLM or an Ollama: a request for another model is
// refused with 404 and the server's own body, as the real servers do
// (vLLM: "The model `x` does not exist."; Ollama: "model \"x\" not found,
// try pulling it first", on /api/chat and, in OpenAI's error shape, on
// /v1); Ollama takes "name" for "name:latest", and an empty name is served.
func TestUnservedModelRefused(t *testing.T) {
	c := newClient(t, 1)
	ollama := `{"model":%q,"stream":false,"messages":[{"content":"hi"}],"options":{"num_predict":2}}`
	openai := `{"model":%q,"stream":true,"max_tokens":2,"messages":[{"content":"hi"}]}`
	cases := []struct {
		flavor, served, path, body, asked string
		status                            int
		want                              string
	}{
		{"vllm", "e2e", openaiPath, openai, "llama3", 404, `{"code":404,"message":"The model ` + "`llama3`" + ` does not exist.","object":"error","param":null,"type":"NotFoundError"}`},
		{"vllm", "e2e", openaiPath, openai, "e2e", 200, ""},
		{"vllm", "e2e", openaiPath, openai, "", 200, ""},
		{"ollama", "e2e:latest", ollamaPath, ollama, "llama3", 404, `{"error":"model \"llama3\" not found, try pulling it first"}`},
		{"ollama", "e2e:latest", openaiPath, openai, "llama3", 404, `{"error":{"code":null,"message":"model \"llama3\" not found, try pulling it first","param":null,"type":"api_error"}}`},
		{"ollama", "e2e:latest", ollamaPath, ollama, "e2e", 200, ""},
		{"ollama", "e2e", openaiPath, openai, "e2e:latest", 200, ""},
		{"llamacpp", "e2e", openaiPath, openai, "llama3", 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.flavor+tc.path+"/"+tc.asked, func(t *testing.T) {
			srv := startEnv(t, "SIM_SERVED_MODEL", tc.served, "SIM_FLAVOR", tc.flavor)
			res := do(context.Background(), c, srv.URL, tc.path, fmt.Sprintf(tc.body, tc.asked))
			require.NoError(t, res.err)
			require.Equal(t, tc.status, res.status, "%v", res.lines)
			if tc.want != "" {
				require.Len(t, res.lines, 1)
				assert.JSONEq(t, tc.want, res.lines[0].text)
			}
		})
	}
}
