package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// chunkObjects posts a streamed OpenAI chat request asking for usage and
// returns its data: objects in order, [DONE] left out.
func chunkObjects(t *testing.T, srv *sim.Server, extra string) []map[string]any {
	t.Helper()
	w := post(t, newClient(t, 1), srv.URL, openaiPath,
		`{"model":"m","messages":[{"content":"hi"}],"stream":true,"max_tokens":3,"stream_options":{"include_usage":true}`+extra+`}`)
	require.Equal(t, http.StatusOK, w.status)
	var objs []map[string]any
	for _, l := range w.lines() {
		d, ok := strings.CutPrefix(l, "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(d), &m), d)
		objs = append(objs, m)
	}
	// role, 3 tokens, finish, usage
	require.Len(t, objs, 6, "%s", w.body)
	return objs
}

// The flavor's own keys in the chat stream: mlx_lm.server's fingerprint in
// every chunk, right after the id as it writes it; vLLM's in the usage
// chunk and its null prompt fields in the first; none in the others.
func TestFlavorFingerprint(t *testing.T) {
	t.Run("mlx", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "mlx")
		for i, o := range chunkObjects(t, srv, "") {
			assert.Equal(t, sim.MLXFingerprint, o["system_fingerprint"], "chunk %d", i)
		}
		w := post(t, newClient(t, 1), srv.URL, openaiPath, `{"model":"m","messages":[{"content":"hi"}],"stream":true,"max_tokens":1}`)
		assert.True(t, strings.HasPrefix(w.lines()[0], `data: {"id":"chatcmpl-`), w.lines()[0])
		assert.Contains(t, w.lines()[0], `","system_fingerprint":"0.32.2-0.32.4-Linux-sim-x86_64","object":"chat.completion.chunk",`)
		// The chunks of the faults carry it too: they are the same head.
		srv = startEnv(t, "SIM_FLAVOR", "mlx", "SIM_FAULT", "keepalive", "SIM_TOKENS_PER_CHUNK", "2", "SIM_REASONING_TOKENS", "1")
		w = post(t, newClient(t, 1), srv.URL, openaiPath, `{"model":"m","messages":[{"content":"hi"}],"stream":true,"max_tokens":5}`)
		for _, l := range w.lines() {
			if strings.HasPrefix(l, "data: {") {
				assert.Contains(t, l, `"system_fingerprint":"`+sim.MLXFingerprint+`"`)
			}
		}
	})
	t.Run("vllm", func(t *testing.T) {
		for _, flavor := range []string{"vllm", ""} { // the default
			srv := startEnv(t, "SIM_FLAVOR", flavor)
			objs := chunkObjects(t, srv, "")
			for i, o := range objs[:len(objs)-1] {
				assert.NotContains(t, o, "system_fingerprint", "chunk %d", i)
			}
			usage := objs[len(objs)-1]
			require.Contains(t, usage, "usage")
			assert.Equal(t, sim.VLLMFingerprint, usage["system_fingerprint"])
			assert.Equal(t, "vllm-sim-1-sim", sim.VLLMFingerprint, "vLLM's shape, the version GET /version states")
			role := objs[0]
			assert.Contains(t, role, "prompt_token_ids")
			assert.Nil(t, role["prompt_token_ids"])
			assert.Contains(t, role, "prompt_text")
			assert.Nil(t, role["prompt_text"])
			for _, o := range objs[1:] {
				assert.NotContains(t, o, "prompt_token_ids", "the first chunk's only")
			}
		}
	})
	for _, flavor := range []string{"plain", "llamacpp", "lmstudio"} {
		t.Run(flavor, func(t *testing.T) {
			for i, o := range chunkObjects(t, startEnv(t, "SIM_FLAVOR", flavor), "") {
				assert.NotContains(t, o, "system_fingerprint", "chunk %d", i)
				assert.NotContains(t, o, "prompt_token_ids", "chunk %d", i)
			}
		})
	}
}

// SIM_MODELS=empty: GET /v1/models answers 200 and its headers, HTTP/1.0
// with no Content-Length, then closes the connection, as mlx_lm.server
// 0.32 without a Hugging Face cache folder; the rest is served as usual.
func TestModelsEmpty(t *testing.T) {
	for _, flavor := range []string{"mlx", "vllm"} {
		t.Run(flavor, func(t *testing.T) {
			srv := startEnv(t, "SIM_FLAVOR", flavor, "SIM_MODELS", "empty")
			c := newClient(t, 1)
			for range 2 { // the closed connection does not trouble the next request
				resp, err := c.Get(srv.URL + "/v1/models")
				require.NoError(t, err)
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.NoError(t, err, "a clean end: the body is empty, not cut")
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Empty(t, b)
				assert.Equal(t, "HTTP/1.0", resp.Proto)
				assert.Equal(t, int64(-1), resp.ContentLength, "no Content-Length: the body ends with the connection")
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.True(t, resp.Close, "the connection closes")
			}
			r := chat(t, c, srv.URL, openaiPath, "hi", 3, "")
			assert.True(t, r.ended, "chats are served")
			assert.Eventually(t, func() bool { return srv.OpenConns() <= 1 }, 5e9, 1e6, "the hijacked connections count as closed")
		})
	}
	// listed, the default, lists the model.
	srv := startEnv(t, "SIM_MODELS", "listed")
	assert.Len(t, getJSON(t, newClient(t, 1), srv.URL, "/v1/models")["data"], 1)
}
