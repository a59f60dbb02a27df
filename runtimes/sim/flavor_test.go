package sim_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	_, err := sim.ConfigFrom(map[string]string{"SIM_QUANTIZATION": "Q4 K M"})
	assert.ErrorContains(t, err, `SIM_QUANTIZATION="Q4 K M": want a quantization's name`)
	srv := startEnv(t, "SIM_QUANTIZATION", "Q8_0")
	show := post(t, newClient(t, 1), srv.URL, "/api/show", `{"model":"m"}`)
	require.Equal(t, http.StatusOK, show.status)
	assert.Contains(t, string(show.body), `"quantization_level":"Q8_0"`)
}
