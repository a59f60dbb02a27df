package runtimes

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContextLimit(t *testing.T) {
	for _, tc := range []struct {
		name, models string
		limit        int
		source       string
	}{
		{"vLLM", `{"data":[{"id":"other","max_model_len":4096},{"id":"m","max_model_len":32768}]}`, 32768, "/v1/models max_model_len"},
		{"llama-server", `{"data":[{"id":"m"}],"props":{"n_ctx":16384,"default_generation_settings":{"n_ctx":4096}}}`, 4096, "/props default_generation_settings.n_ctx"},
		{"older llama-server", `{"props":{"n_ctx":8192}}`, 8192, "/props n_ctx"},
		{"Ollama", `{"data":[{"id":"m"}],"show":{"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}}`, 40960, "/api/show model_info qwen3.context_length"},
		{"LM Studio", `{"data":[{"id":"m"}]}`, 0, ""},
		{"nothing", ``, 0, ""},
	} {
		limit, source := Info{Models: json.RawMessage(tc.models)}.ContextLimit("m")
		assert.Equal(t, tc.limit, limit, tc.name)
		assert.Equal(t, tc.source, source, tc.name)
	}
}

func TestTokenize(t *testing.T) {
	var f fakeServer
	var got map[string]any
	llama := f.start(t, map[string]http.HandlerFunc{
		"GET /props": reply(`{"total_slots":1}`),
		"POST /tokenize": func(w http.ResponseWriter, r *http.Request) {
			json.NewDecoder(r.Body).Decode(&got)
			io.WriteString(w, `{"tokens":[1,2,3,4,5]}`)
		},
	})
	n, err := freshRuntime(t, KindOpenAI, llama).Tokenize(context.Background(), "some text")
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	assert.Equal(t, map[string]any{"content": "some text", "add_special": false}, got)

	got = nil
	vllm := f.start(t, map[string]http.HandlerFunc{
		"POST /tokenize": func(w http.ResponseWriter, r *http.Request) {
			json.NewDecoder(r.Body).Decode(&got)
			io.WriteString(w, `{"count":7,"max_model_len":4096,"tokens":[1,2,3,4,5,6,7]}`)
		},
	})
	n, err = freshRuntime(t, KindOpenAI, vllm).Tokenize(context.Background(), "other text")
	require.NoError(t, err)
	assert.Equal(t, 7, n)
	assert.Equal(t, map[string]any{"model": "m", "prompt": "other text", "add_special_tokens": false}, got)

	none := f.start(t, nil)
	_, err = freshRuntime(t, KindOpenAI, none).Tokenize(context.Background(), "x")
	assert.ErrorIs(t, err, ErrNoTokenize)
	_, err = freshRuntime(t, KindOllama, none).Tokenize(context.Background(), "x")
	assert.ErrorIs(t, err, ErrNoTokenize)
}

// A request refused as too long for the context is a class of its own,
// with the server's words.
func TestContextRefusal(t *testing.T) {
	for _, body := range []string{
		`{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8872 in the messages, 128 in the completion).","type":"BadRequestError","param":null,"code":400}`,
		`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
	} {
		var f fakeServer
		url := f.start(t, map[string]http.HandlerFunc{"POST /v1/chat/completions": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, body)
		}})
		res := freshRuntime(t, KindOpenAI, url).Do(context.Background(), Request{Prompt: "long", MaxTokens: 8})
		require.Error(t, res.Err)
		assert.Equal(t, ClassContext, ErrorClass(res.Err))
		assert.True(t, strings.Contains(res.Err.Error(), "context length is 8192") || strings.Contains(res.Err.Error(), "exceeds the available context size"), res.Err)
	}
	// Another 400 stays http_4xx.
	var f fakeServer
	url := f.start(t, map[string]http.HandlerFunc{"POST /v1/chat/completions": func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"temperature must be at most 2"}}`)
	}})
	res := freshRuntime(t, KindOpenAI, url).Do(context.Background(), Request{Prompt: "x", MaxTokens: 8})
	assert.Equal(t, ClassHTTP4xx, ErrorClass(res.Err))
}
