package runtimes

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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

// servedCase is a server's recorded-shaped replies (testdata/served) and
// what Describe should make of them.
type servedCase struct {
	About   string                     `json:"about"`
	Kind    Kind                       `json:"kind"`
	Replies map[string]json.RawMessage `json:"replies"` // "METHOD /path" → body
	// Unknown is the 200 reply to any other endpoint (LM Studio's
	// habit); without it, 404.
	Unknown json.RawMessage `json:"unknown"`
	Version *string         `json:"version"`
	Want    json.RawMessage `json:"want"`
}

// replay serves c's replies.
func (c servedCase) replay(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := c.Replies[r.Method+" "+r.URL.Path]; ok {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		if c.Unknown != nil {
			_, _ = w.Write(c.Unknown)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Each server states its model its own way; Describe fetches what it
// says and Served normalizes it: the same fields, null where unsaid.
func TestServedFromEachServer(t *testing.T) {
	files, err := filepath.Glob("testdata/served/*.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 6)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			var c servedCase
			require.NoError(t, json.Unmarshal(b, &c))
			srv := c.replay(t)
			rt, err := New(Config{Name: "x", Kind: c.Kind, URL: srv.URL, Client: srv.Client()})
			require.NoError(t, err)
			info, err := rt.Describe(context.Background())
			require.NoError(t, err, c.About)
			got, err := json.Marshal(info.Served)
			require.NoError(t, err)
			assert.JSONEq(t, string(c.Want), string(got), c.About)
			assert.Equal(t, c.Version, info.Version, "version")
			// What Describe kept is enough to normalize again (the
			// summary's model_metadata).
			assert.Equal(t, info.Served, ServedOf(info.Models, rt.Model))

			// And the probe names the server by its answers.
			says := map[string][]string{"ollama": {ServerOllama}, "ollama-v1": {ServerOllama},
				"llamacpp": {ServerLlamaCpp}, "lmstudio": {ServerLMStudio}}[filepath.Base(strings.TrimSuffix(file, ".json"))]
			p := rt.Probe(context.Background())
			assert.True(t, p.Answered)
			assert.Equal(t, says, p.Says)
		})
	}
}

// A metadata endpoint that fails, answers nonsense or hangs leaves its
// facts unknown: Describe still succeeds, within optTimeout or so.
func TestDescribeSurvivesBadMetadata(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m-Q8_0","owned_by":"x","max_model_len":4096}]}`))
		case "/version":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/props":
			_, _ = w.Write([]byte(`{"build_info":`)) // cut short
		case "/api/v0/models":
			<-r.Context().Done() // hangs
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	rt, err := New(Config{Name: "x", Kind: KindOpenAI, URL: srv.URL, Client: srv.Client()})
	require.NoError(t, err)
	start := time.Now()
	info, err := rt.Describe(context.Background())
	require.NoError(t, err)
	assert.Less(t, time.Since(start), optTimeout+2*time.Second)
	assert.Nil(t, info.Version)
	require.NotNil(t, info.Served.Quantization)
	assert.Equal(t, "Q8_0", *info.Served.Quantization, "from the name")
	assert.Nil(t, info.Served.Family)
	require.NotNil(t, info.Served.Context)
	assert.Equal(t, 4096, *info.Served.Context)
	// The facts lost are said: the 500 and the hang; not the 404s, nor
	// the answer cut short (the server answered).
	require.Len(t, info.Unread, 2, "%q", info.Unread)
	assert.Contains(t, info.Unread[0], "GET /version: ")
	assert.Contains(t, info.Unread[0], "HTTP 500")
	assert.Equal(t, "GET /api/v0/models: no answer within 3s while others were in flight, nor within 1s asked again alone", info.Unread[1])
}

func TestQuantizationInName(t *testing.T) {
	for name, want := range map[string]string{
		"/models/Qwen3-8B-Q4_K_M.gguf":       "Q4_K_M",
		"qwen3:8b-q8_0":                      "Q8_0",
		"unsloth/Qwen3-8B-GGUF:IQ4_XS":       "IQ4_XS",
		"mlx-community/Qwen3-8B-4bit":        "4-bit",
		"mlx-community/Qwen3-8B-8bit-DWQ":    "8-bit",
		"Qwen/Qwen3-8B-AWQ":                  "AWQ",
		"Qwen/Qwen3-8B-FP8":                  "FP8",
		"qwen3.8-27b-nvfp4":                  "NVFP4",
		"model-fp16.gguf":                    "F16",
		"Qwen/Qwen3-8B":                      "",
		"qwen3:8b":                           "",
		"llama-3.1-8b-instruct-Q4_K_M-00001": "Q4_K_M",
	} {
		assert.Equal(t, want, QuantizationInName(name), name)
	}
	assert.Equal(t, "4-bit", NormalizeQuantization("4bit"))
	assert.Equal(t, "Q4_K_M", NormalizeQuantization("q4_k_m"))
	assert.Equal(t, "", NormalizeQuantization("unknown"))
}

func TestParameters(t *testing.T) {
	for s, want := range map[string]float64{"8.2B": 8.2e9, "494.03M": 494.03e6, "1.5T": 1.5e12, "7b": 7e9, "123": 123} {
		got, ok := ParseParameters(s)
		assert.True(t, ok, s)
		assert.InDelta(t, want, got, want*1e-9, s)
	}
	for _, s := range []string{"", "B", "x8B", "-1B"} {
		_, ok := ParseParameters(s)
		assert.False(t, ok, s)
	}
	assert.Equal(t, "8.2B", FormatParameters(8190735360))
	assert.Equal(t, "494.03M", FormatParameters(494032768))
}
