package sim_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Each flavor lists its model in its server's shape, and LM Studio's and
// mlx_lm's have none of Ollama's endpoints, as those servers have none.
func TestFlavorModels(t *testing.T) {
	entry := func(t *testing.T, srv *sim.Server, path string) map[string]any {
		t.Helper()
		data := getJSON(t, newClient(t, 1), srv.URL, path)["data"].([]any)
		require.Len(t, data, 1)
		return data[0].(map[string]any)
	}
	t.Run("llamacpp", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "llamacpp", "SIM_CONTEXT", "4096")
		e := entry(t, srv, "/v1/models")
		assert.Equal(t, "llamacpp", e["owned_by"])
		meta := e["meta"].(map[string]any)
		assert.Equal(t, float64(sim.Parameters), meta["n_params"])
		assert.Equal(t, 4096.0, meta["n_ctx_train"])
		assert.Equal(t, http.StatusOK, get(t, newClient(t, 1), srv.URL, "/api/version").status, "the Ollama endpoints stay")
	})
	t.Run("lmstudio", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "lmstudio", "SIM_QUANTIZATION", "4bit", "SIM_SERVED_MODEL", "qwen/qwen3-8b")
		assert.Equal(t, map[string]any{"id": "qwen/qwen3-8b", "object": "model", "owned_by": "organization_owner"}, entry(t, srv, "/v1/models"))
		assert.Equal(t, map[string]any{
			"id": "qwen/qwen3-8b", "object": "model", "type": "llm", "publisher": "sim", "arch": "sim",
			"compatibility_type": "mlx", "quantization": "4bit", "state": "loaded", "max_context_length": float64(sim.ContextLength),
		}, entry(t, srv, "/api/v0/models"))
		c := newClient(t, 1)
		for _, path := range []string{"/api/version", "/api/tags", "/version", "/props"} {
			assert.Equal(t, http.StatusNotFound, get(t, c, srv.URL, path).status, path)
		}
		assert.Equal(t, http.StatusNotFound, post(t, c, srv.URL, "/api/chat", `{"model":"m","messages":[]}`).status)
	})
	t.Run("lmstudio gguf", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "lmstudio")
		e := entry(t, srv, "/api/v0/models")
		assert.Equal(t, "gguf", e["compatibility_type"])
		assert.Equal(t, sim.DefaultQuantization, e["quantization"])
	})
	t.Run("mlx", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "mlx")
		e := entry(t, srv, "/v1/models")
		assert.Equal(t, sim.Model, e["id"])
		assert.NotContains(t, e, "owned_by", "mlx_lm lists ids only")
		c := newClient(t, 1)
		for _, path := range []string{"/api/version", "/api/v0/models", "/version", "/props"} {
			assert.Equal(t, http.StatusNotFound, get(t, c, srv.URL, path).status, path)
		}
	})
}

func TestQuantizationSetting(t *testing.T) {
	_, err := config.LoadSimFrom(map[string]string{"SIM_QUANTIZATION": "Q4 K M"})
	assert.ErrorContains(t, err, `SIM_QUANTIZATION="Q4 K M": want a quantization's name`)
	srv := startEnv(t, "SIM_QUANTIZATION", "Q8_0")
	show := post(t, newClient(t, 1), srv.URL, "/api/show", `{"model":"m"}`)
	require.Equal(t, http.StatusOK, show.status)
	assert.Contains(t, string(show.body), `"quantization_level":"Q8_0"`)
}

// The ollama flavor plays Ollama: its native endpoints and its /v1, with
// Ollama's model entry and fingerprint, and none of vLLM's or
// llama-server's endpoints.
func TestFlavorOllama(t *testing.T) {
	srv := startEnv(t, "SIM_FLAVOR", "ollama")
	c := newClient(t, 1)
	data := getJSON(t, c, srv.URL, "/v1/models")["data"].([]any)
	require.Len(t, data, 1)
	e := data[0].(map[string]any)
	assert.Equal(t, "library", e["owned_by"])
	assert.Equal(t, sim.Model, e["id"])
	assert.NotContains(t, e, "max_model_len", "vLLM's key")
	assert.Equal(t, map[string]any{"version": sim.Version}, getJSON(t, c, srv.URL, "/api/version"))
	for _, path := range []string{"/api/tags", "/api/ps"} {
		assert.Equal(t, http.StatusOK, get(t, c, srv.URL, path).status, path)
	}
	for _, path := range []string{"/version", "/props", "/slots", "/api/v0/models"} {
		assert.Equal(t, http.StatusNotFound, get(t, c, srv.URL, path).status, path)
	}
	for _, path := range []string{"/tokenize", "/reset_prefix_cache"} {
		assert.Equal(t, http.StatusNotFound, post(t, c, srv.URL, path, `{}`).status, path)
	}
	for i, o := range chunkObjects(t, srv, "") {
		assert.Equal(t, sim.OllamaFingerprint, o["system_fingerprint"], "chunk %d", i)
	}
	r := chat(t, c, srv.URL, ollamaPath, "hi", 3, "")
	assert.True(t, r.ended, "/api/chat is served")
}

// SIM_VERSION is the version each flavor states, where and as its server
// does; at the defaults they state Version, and mlx MLXVersion.
func TestVersionSetting(t *testing.T) {
	c := newClient(t, 1)
	for _, flavor := range []string{"ollama", "vllm", "llamacpp", "plain"} {
		t.Run(flavor, func(t *testing.T) {
			srv := startEnv(t, "SIM_FLAVOR", flavor, "SIM_VERSION", "0.7.0")
			assert.Equal(t, map[string]any{"version": "0.7.0"}, getJSON(t, c, srv.URL, "/api/version"), "Ollama's /api/version")
			switch flavor {
			case "vllm":
				assert.Equal(t, map[string]any{"version": "0.7.0"}, getJSON(t, c, srv.URL, "/version"))
				objs := chunkObjects(t, srv, "")
				assert.Equal(t, "vllm-0.7.0-sim", objs[len(objs)-1]["system_fingerprint"])
			case "llamacpp":
				assert.Equal(t, "0.7.0", getJSON(t, c, srv.URL, "/props")["build_info"])
			}
		})
	}
	t.Run("mlx", func(t *testing.T) {
		srv := startEnv(t, "SIM_FLAVOR", "mlx", "SIM_VERSION", "0.33.1")
		for i, o := range chunkObjects(t, srv, "") {
			assert.Equal(t, "0.33.1-0.32.4-Linux-sim-x86_64", o["system_fingerprint"], "chunk %d", i)
		}
		assert.Equal(t, "0.32.2-0.32.4-Linux-sim-x86_64", chunkObjects(t, startEnv(t, "SIM_FLAVOR", "mlx"), "")[0]["system_fingerprint"])
	})
	t.Run("default", func(t *testing.T) {
		srv := startEnv(t)
		assert.Equal(t, map[string]any{"version": sim.Version}, getJSON(t, c, srv.URL, "/version"))
		assert.Equal(t, map[string]any{"version": sim.Version}, getJSON(t, c, srv.URL, "/api/version"))
	})
	for _, bad := range []string{`0.7"`, "0.7\n0.8", strings.Repeat("9", 101)} {
		_, err := config.LoadSimFrom(map[string]string{"SIM_VERSION": bad})
		assert.ErrorContains(t, err, fmt.Sprintf("SIM_VERSION=%q: want a version on one line", bad))
	}
}
