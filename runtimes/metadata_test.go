package runtimes

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Loaded finds the model in Ollama's /api/ps, which names a model asked
// for without a tag under ":latest" (seen on Ollama 0.6.5: asked for
// "tiny", /api/ps lists "tiny:latest"), and says nothing of another model
// or of a server without the endpoint.
func TestLoaded(t *testing.T) {
	const ps = `{"models":[{"name":"other:latest","model":"other:latest","size":1},` +
		`{"name":"tiny:latest","model":"tiny:latest","size":145503232,"size_vram":0}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/ps" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(ps))
	}))
	t.Cleanup(srv.Close)
	loaded := func(kind Kind, model string) string {
		rt, err := New(Config{Name: "o", Kind: kind, URL: srv.URL, Model: model, Timeout: 5 * time.Second, Client: srv.Client()})
		require.NoError(t, err)
		return string(rt.Loaded(context.Background()))
	}
	want := `{"name":"tiny:latest","model":"tiny:latest","size":145503232,"size_vram":0}`
	assert.JSONEq(t, want, loaded(KindOllama, "tiny"))
	assert.JSONEq(t, want, loaded(KindOllama, "tiny:latest"))
	assert.Empty(t, loaded(KindOllama, "tiny:7b"))
	assert.Empty(t, loaded(KindOllama, "absent"))
	assert.Empty(t, loaded(KindOpenAI, "tiny"), "only Ollama's native API has /api/ps")

	srv404 := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv404.Close)
	rt, err := New(Config{Name: "o", Kind: KindOllama, URL: srv404.URL, Model: "tiny", Timeout: 5 * time.Second, Client: srv404.Client()})
	require.NoError(t, err)
	assert.Nil(t, rt.Loaded(context.Background()))
}

func TestSameOllamaModel(t *testing.T) {
	assert.True(t, SameOllamaModel("m", "m"))
	assert.True(t, SameOllamaModel("m:latest", "m"))
	assert.False(t, SameOllamaModel("m:7b", "m"))
	assert.False(t, SameOllamaModel("m:latest", "m:7b"))
	assert.False(t, SameOllamaModel("mm:latest", "m"))
}
