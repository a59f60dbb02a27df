package sim_test

import (
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

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

func TestOllamaStream(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)
	body := `{"model":"llama3:8b","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"  Say\tsomething\nnice.  "}],"options":{"num_predict":20,"temperature":0}}`
	res := do(context.Background(), c, srv.URL, "/api/chat", body)
	require.NoError(t, res.err)
	require.Equal(t, http.StatusOK, res.status)
	assert.Equal(t, "application/x-ndjson", res.header.Get("Content-Type"))
	require.Len(t, res.lines, 21)
	for i, l := range res.lines[:20] {
		var ch ndjsonChunk
		decodeStrict(t, l.text, &ch)
		assert.Equal(t, "llama3:8b", ch.Model)
		assert.False(t, ch.Done)
		require.NotNil(t, ch.Message)
		assert.Equal(t, "assistant", ch.Message.Role)
		assert.Equal(t, sim.Token("  Say\tsomething\nnice.  ", i), ch.Message.Content, "the last message's reply")
		assert.NotEmpty(t, strings.TrimSpace(ch.Message.Content))
		_, err := time.Parse(time.RFC3339Nano, ch.CreatedAt)
		assert.NoError(t, err, "created_at %q", ch.CreatedAt)
		assert.Nil(t, ch.EvalCount)
	}
	var fin ndjsonChunk
	decodeStrict(t, res.lines[20].text, &fin)
	assert.True(t, fin.Done)
	assert.Equal(t, "length", fin.DoneReason)
	require.NotNil(t, fin.Message)
	assert.Equal(t, "", fin.Message.Content)
	require.NotNil(t, fin.EvalCount)
	assert.Equal(t, 20, *fin.EvalCount)
	// Two messages, 3 + 3 (Be, brief.: 6 bytes, 2 tokens) and 3 + 6 (Say,
	// something: 3, nice.: 2), and the assistant's 2: tokens, not the 5
	// words.
	assert.Equal(t, 17, *fin.PromptEvalCount)
	assert.Equal(t, sim.PromptTokens("Be brief.", "  Say\tsomething\nnice.  "), *fin.PromptEvalCount)
	assert.Equal(t, int64(fast.TTFT), *fin.PromptEvalDuration)
	assert.Equal(t, int64(time.Second*20/20000), *fin.EvalDuration)
	assert.Equal(t, int64(0), *fin.LoadDuration)
	assert.GreaterOrEqual(t, *fin.TotalDuration, int64(fast.Offset(20)))
	assert.Less(t, *fin.TotalDuration, int64(fast.Offset(20)+time.Second))
}

func TestOllamaDefaultsAndNoStream(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)

	// No length asked (or <= 0): 128 tokens; no model: Model.
	for _, opts := range []string{``, `,"options":{}`, `,"options":{"num_predict":-1}`, `,"options":{"num_predict":0}`} {
		res := do(context.Background(), c, srv.URL, "/api/chat", `{"messages":[{"role":"user","content":""}]`+opts+`}`)
		require.NoError(t, res.err)
		require.Len(t, res.lines, sim.DefaultMaxTokens+1, opts)
		var fin ndjsonChunk
		decodeStrict(t, res.lines[len(res.lines)-1].text, &fin)
		assert.Equal(t, sim.Model, fin.Model)
		assert.Equal(t, sim.DefaultMaxTokens, *fin.EvalCount)
		assert.Equal(t, sim.MessageTokens+sim.ReplyTokens, *fin.PromptEvalCount, "the template's tokens")
	}

	// "stream": false: one object with all the text, at the end time.
	res := do(context.Background(), c, srv.URL, "/api/chat", `{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}],"options":{"num_predict":3}}`)
	require.NoError(t, res.err)
	assert.Equal(t, "application/json; charset=utf-8", res.header.Get("Content-Type"))
	require.Len(t, res.lines, 1)
	var whole ndjsonChunk
	decodeStrict(t, res.lines[0].text, &whole)
	assert.True(t, whole.Done)
	assert.Equal(t, sim.Token("hi", 0)+sim.Token("hi", 1)+sim.Token("hi", 2), whole.Message.Content)
	assert.Equal(t, 3, *whole.EvalCount)
	assert.GreaterOrEqual(t, res.lines[0].at, fast.Offset(3))
}

func TestOpenAIStream(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)
	for _, usage := range []bool{false, true} {
		t.Run(fmt.Sprintf("include_usage=%v", usage), func(t *testing.T) {
			body := fmt.Sprintf(`{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"one two three"},{"role":"user","content":[{"type":"text","text":"four five"},{"type":"input_audio","input_audio":{"data":"x","format":"wav"}}]}],"stream":true,"max_tokens":7,"max_completion_tokens":20,"stream_options":{"include_usage":%v}}`, usage)
			res := do(context.Background(), c, srv.URL, "/v1/chat/completions", body)
			require.NoError(t, res.err)
			require.Equal(t, http.StatusOK, res.status)
			assert.Equal(t, "text/event-stream", res.header.Get("Content-Type"))
			data := sseData(t, res.lines)
			want := 1 + 20 + 1 + 1 // role, tokens, finish, [DONE]
			if usage {
				want++
			}
			require.Len(t, data, want)
			assert.Equal(t, "[DONE]", data[len(data)-1])

			var chunks []sseChunk
			for _, d := range data[:len(data)-1] {
				var ch sseChunk
				decodeStrict(t, d, &ch)
				assert.Equal(t, "chat.completion.chunk", ch.Object)
				assert.Equal(t, "Qwen/Qwen3-8B", ch.Model)
				assert.True(t, strings.HasPrefix(ch.ID, "chatcmpl-"), ch.ID)
				assert.InDelta(t, time.Now().Unix(), ch.Created, 5)
				chunks = append(chunks, ch)
			}
			for _, ch := range chunks[1:] {
				assert.Equal(t, chunks[0].ID, ch.ID, "one id per stream")
			}

			// Role-only first chunk, not a token.
			role := chunks[0]
			require.Len(t, role.Choices, 1)
			require.NotNil(t, role.Choices[0].Delta.Role)
			assert.Equal(t, "assistant", *role.Choices[0].Delta.Role)
			require.NotNil(t, role.Choices[0].Delta.Content)
			assert.Equal(t, "", *role.Choices[0].Delta.Content)
			assert.Nil(t, role.Choices[0].FinishReason)

			for i, ch := range chunks[1:21] {
				require.Len(t, ch.Choices, 1)
				assert.Nil(t, ch.Choices[0].Delta.Role)
				require.NotNil(t, ch.Choices[0].Delta.Content)
				assert.Equal(t, sim.Token("four five", i), *ch.Choices[0].Delta.Content, "the last message's text parts' reply")
				assert.Nil(t, ch.Choices[0].FinishReason)
				assert.Nil(t, ch.Usage)
			}

			fin := chunks[21]
			require.Len(t, fin.Choices, 1)
			assert.Equal(t, "", *fin.Choices[0].Delta.Content)
			require.NotNil(t, fin.Choices[0].FinishReason)
			assert.Equal(t, "length", *fin.Choices[0].FinishReason)

			if usage {
				u := chunks[22]
				assert.NotNil(t, u.Choices, `"choices": [] is present`)
				assert.Empty(t, u.Choices)
				require.NotNil(t, u.Usage)
				// 3 + one two three (4: three is 5 bytes), 3 + four five
				// (2), 2: the text parts count, the image does not.
				assert.Equal(t, 14, u.Usage.PromptTokens)
				assert.Equal(t, sim.PromptTokens("one two three", "four five"), u.Usage.PromptTokens)
				assert.Equal(t, 20, u.Usage.CompletionTokens)
				assert.Equal(t, 34, u.Usage.TotalTokens)
				assert.Contains(t, data[22], `"choices":[],"usage":`)
			}
			for _, ch := range chunks {
				if !usage {
					assert.NotEmpty(t, ch.Choices, "no usage chunk without include_usage")
				}
			}
		})
	}
}

func TestOpenAILengths(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)
	for body, want := range map[string]int{
		`"max_tokens":7`:                                     7,
		`"max_completion_tokens":9`:                          9,
		`"max_completion_tokens":0,"max_tokens":4`:           4,
		`"max_tokens":null`:                                  sim.DefaultMaxTokens,
		`"max_tokens":-1`:                                    sim.DefaultMaxTokens,
		`"max_tokens":3.0`:                                   3,
		`"stream_options":{"include_usage":false}`:           sim.DefaultMaxTokens,
		`"model":"","stream_options":{"include_usage":true}`: sim.DefaultMaxTokens,
	} {
		res := do(context.Background(), c, srv.URL, "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"stream":true,`+body+`}`)
		require.NoError(t, res.err, body)
		_, _, tokens := firstTokenAndEnd(t, "/v1/chat/completions", res.lines)
		assert.Len(t, tokens, want, body)
		var ch sseChunk
		decodeStrict(t, strings.TrimPrefix(res.lines[0].text, "data: "), &ch)
		if !strings.Contains(body, `"model"`) {
			assert.Equal(t, sim.Model, ch.Model)
		}
	}
}

func TestBadRequests(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)
	// ({}, "messages": [] and null are no error for Ollama: they load the
	// model, see reset_test.go.)
	for _, body := range []string{``, `not json`, `{"messages":"hi"}`,
		`{"messages":[{"content":42}]}`, `{"messages":[{"content":"hi"}]} trailing`, `{"messages":[{"content":"hi"}],"options":{"num_predict":"x"}}`,
		`{"messages":[{"content":"hi"}],"keep_alive":"5"}`, `{"messages":[{"content":"hi"}],"keep_alive":true}`, `{"messages":[],"keep_alive":"soon"}`} {
		res := do(context.Background(), c, srv.URL, "/api/chat", body)
		require.NoError(t, res.err)
		assert.Equal(t, http.StatusBadRequest, res.status, "ollama %q", body)
		require.Len(t, res.lines, 1, body)
		var e struct{ Error string }
		decodeStrict(t, res.lines[0].text, &e)
		assert.NotEmpty(t, e.Error, body)
	}
	for _, body := range []string{``, `not json`, `{}`, `{"messages":[],"stream":true}`,
		`{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}]}`,
		`{"messages":[{"role":"user","content":"hi"}],"stream":true,"top_logprobs":21}`,
		`{"messages":[{"role":"user","content":"hi"}],"stream":"yes"}`, `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":"x"}`} {
		res := do(context.Background(), c, srv.URL, "/v1/chat/completions", body)
		require.NoError(t, res.err)
		assert.Equal(t, http.StatusBadRequest, res.status, "openai %q", body)
		require.Len(t, res.lines, 1, body)
		var e struct {
			Object  string
			Message string
			Type    string
			Code    int
		}
		decodeStrict(t, res.lines[0].text, &e)
		assert.Equal(t, "error", e.Object)
		assert.NotEmpty(t, e.Message)
		assert.Equal(t, "BadRequestError", e.Type)
		assert.Equal(t, 400, e.Code)
	}
	// A wrong method is refused by the mux.
	resp, err := c.Get(srv.URL + "/api/chat")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

func TestMetadata(t *testing.T) {
	srv := start(t, fast)
	c := newClient(t, 1)
	get := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var m map[string]any
		if len(b) > 0 {
			require.NoError(t, json.Unmarshal(b, &m), "%s %s: %s", method, path, b)
		}
		return resp.StatusCode, m
	}
	for _, p := range []string{"/api/version", "/version"} {
		code, m := get("GET", p, "")
		assert.Equal(t, 200, code)
		assert.Equal(t, map[string]any{"version": sim.Version}, m)
	}
	code, m := get("POST", "/api/show", `{"model":"anything"}`)
	assert.Equal(t, 200, code)
	assert.Equal(t, map[string]any{"family": "sim", "families": []any{"sim"}, "parameter_size": "500.00M", "quantization_level": "Q4_K_M", "format": "gguf"}, m["details"])
	assert.Equal(t, map[string]any{"general.architecture": "sim", "sim.context_length": float64(sim.ContextLength)}, m["model_info"])
	assert.Equal(t, []any{"completion", "tools"}, m["capabilities"], "the model takes tools unless SIM_MODEL_TOOLS=off")
	assert.Contains(t, m["template"], ".Tools")
	code, m = get("POST", "/api/show", `{"model":`)
	assert.Equal(t, 400, code)
	assert.NotEmpty(t, m["error"])

	code, m = get("GET", "/api/tags", "")
	assert.Equal(t, 200, code)
	models := m["models"].([]any)
	require.Len(t, models, 1)
	assert.Equal(t, sim.Model, models[0].(map[string]any)["name"])
	assert.Equal(t, sim.Model, models[0].(map[string]any)["model"])

	code, m = get("GET", "/api/ps", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, float64(sim.ContextLength), m["models"].([]any)[0].(map[string]any)["context_length"])

	code, m = get("GET", "/v1/models", "")
	assert.Equal(t, 200, code)
	assert.Equal(t, "list", m["object"])
	data := m["data"].([]any)
	require.Len(t, data, 1)
	d := data[0].(map[string]any)
	assert.Equal(t, sim.Model, d["id"])
	assert.Equal(t, "model", d["object"])
	assert.Equal(t, "sim", d["owned_by"])
	assert.Equal(t, sim.Model, d["root"])
	assert.Contains(t, d, "parent")
	assert.Nil(t, d["parent"])
	assert.Equal(t, float64(sim.ContextLength), d["max_model_len"])
	assert.InDelta(t, float64(time.Now().Unix()), d["created"], 60)

	code, _ = get("GET", "/health", "")
	assert.Equal(t, 200, code)
}
