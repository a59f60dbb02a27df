package runtimes

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer answers the paths of handlers and 404 elsewhere, and logs
// every request as "METHOD /path?query".
type fakeServer struct {
	mu  sync.Mutex
	log []string
}

func (f *fakeServer) start(t *testing.T, handlers map[string]http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.log = append(f.log, r.Method+" "+r.URL.RequestURI())
		f.mu.Unlock()
		if h := handlers[r.Method+" "+r.URL.Path]; h != nil {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *fakeServer) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func reply(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) }
}

func freshRuntime(t *testing.T, kind Kind, url string) *Runtime {
	t.Helper()
	rt, err := New(Config{Name: "rt", Kind: kind, URL: url, Model: "m"})
	require.NoError(t, err)
	return rt
}

// Ollama unloads the model: a chat with no messages and keep_alive 0,
// then /api/ps until the model is gone, which Ollama does after it has
// answered.
func TestFreshUnloadsOllama(t *testing.T) {
	var f fakeServer
	var unloaded atomic.Int32
	var body map[string]any
	url := f.start(t, map[string]http.HandlerFunc{
		"POST /api/chat": func(w http.ResponseWriter, r *http.Request) {
			json.NewDecoder(r.Body).Decode(&body)
			io.WriteString(w, `{"model":"m","message":{"role":"assistant","content":""},"done_reason":"unload","done":true}`)
		},
		"GET /api/ps": func(w http.ResponseWriter, _ *http.Request) {
			// Still listed twice after the unload was answered.
			if unloaded.Add(1) <= 2 {
				io.WriteString(w, `{"models":[{"name":"m:latest","model":"m:latest"}]}`)
				return
			}
			io.WriteString(w, `{"models":[]}`)
		},
	})
	rt := freshRuntime(t, KindOllama, url)
	way, err := rt.Fresh(context.Background())
	require.NoError(t, err)
	assert.Equal(t, FreshUnload, way)
	assert.Equal(t, map[string]any{"model": "m", "messages": []any{}, "keep_alive": 0.0, "stream": false}, body)
	assert.Equal(t, []string{"POST /api/chat", "GET /api/ps", "GET /api/ps", "GET /api/ps"}, f.requests(),
		"it waits until /api/ps no longer lists the model")
}

// Each kind of OpenAI server is told apart by what it answers, and reset
// its own way.
func TestFreshFindsTheWay(t *testing.T) {
	ok := reply(`{}`)
	for _, tc := range []struct {
		name     string
		handlers map[string]http.HandlerFunc
		want     FreshWay
		sent     []string // the requests of the reset itself
	}{
		{"llama-server", map[string]http.HandlerFunc{
			"GET /props": reply(`{"total_slots":2,"n_ctx":4096}`), "POST /slots/0": ok, "POST /slots/1": ok,
		}, FreshEraseSlots, []string{"GET /props", "POST /slots/0?action=erase", "POST /slots/1?action=erase"}},
		{"vLLM in development mode", map[string]http.HandlerFunc{
			"GET /version": reply(`{"version":"0.11.0"}`), "POST /reset_prefix_cache": ok,
		}, FreshResetPrefixCache, []string{"POST /reset_prefix_cache"}},
		{"SGLang", map[string]http.HandlerFunc{
			"GET /version": reply(`{"version":"0.5"}`), "POST /flush_cache": ok,
		}, FreshFlushCache, []string{"POST /reset_prefix_cache", "POST /flush_cache"}},
		{"vLLM outside development mode", map[string]http.HandlerFunc{
			"GET /version": reply(`{"version":"0.11.0"}`),
		}, FreshNone, []string{"POST /reset_prefix_cache", "POST /flush_cache"}},
		{"Ollama's /v1", map[string]http.HandlerFunc{
			"GET /api/version": reply(`{"version":"0.6.5"}`),
			"POST /api/chat":   reply(`{"done_reason":"unload","done":true}`),
			"GET /api/ps":      reply(`{"models":[]}`),
		}, FreshUnload, []string{"POST /api/chat", "GET /api/ps"}},
		{"LM Studio or mlx_lm", map[string]http.HandlerFunc{"GET /v1/models": reply(`{"data":[]}`)}, FreshNone, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeServer
			rt := freshRuntime(t, KindOpenAI, f.start(t, tc.handlers))
			before := rt.FreshWay(context.Background())
			if tc.want == FreshFlushCache || tc.name == "vLLM outside development mode" {
				// Told apart from vLLM only by trying its reset.
				assert.Equal(t, FreshResetPrefixCache, before)
			} else {
				assert.Equal(t, tc.want, before)
			}
			found := len(f.requests())
			way, err := rt.Fresh(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, way)
			assert.Equal(t, tc.sent, append([]string(nil), f.requests()[found:]...))
			// The way is found once; a second reset sends only the reset.
			found = len(f.requests())
			way, err = rt.Fresh(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, way)
			if tc.want != FreshNone && tc.want != FreshUnload {
				assert.Equal(t, tc.sent[len(tc.sent)-1], f.requests()[len(f.requests())-1])
			}
			if tc.want == FreshNone {
				assert.Len(t, f.requests(), found, "nothing is sent to a server that offers no way")
			}
		})
	}
}

// A server that refuses says so in an error that names the runtime and
// quotes the server, llama-server's refusal with the command that avoids
// it; the way is still reported.
func TestFreshRefused(t *testing.T) {
	var f fakeServer
	url := f.start(t, map[string]http.HandlerFunc{
		"GET /props": reply(`{"total_slots":1}`),
		"POST /slots/0": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"This server does not support slots action. Start it with `+"`--slot-save-path`"+`","type":"not_supported_error"}}`)
		},
	})
	rt := freshRuntime(t, KindOpenAI, url)
	way, err := rt.Fresh(context.Background())
	assert.Equal(t, FreshEraseSlots, way)
	require.Error(t, err)
	assert.Equal(t, "rt ("+url+"): returning the server to a known state (erase-slots): POST /slots/0?action=erase: HTTP 501: "+
		"llama-server serves slot actions, erase among them, only when started with a folder for saved slots: "+
		"llama-server -m MODEL.gguf --slot-save-path DIR (e.g. /tmp/llama-slots; erasing writes nothing there)", err.Error(),
		"llama-server's 501, said with the command that avoids it")

	// Another 501 is quoted as it is.
	url = f.start(t, map[string]http.HandlerFunc{
		"GET /props": reply(`{"total_slots":1}`),
		"POST /slots/0": func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `not here`)
		},
	})
	_, err = freshRuntime(t, KindOpenAI, url).Fresh(context.Background())
	require.Error(t, err)
	assert.Equal(t, "rt ("+url+"): returning the server to a known state (erase-slots): POST /slots/0?action=erase: HTTP 501: not here", err.Error())

	// An Ollama that answers the unload with anything else.
	url = f.start(t, map[string]http.HandlerFunc{"POST /api/chat": reply(`{"done_reason":"load","done":true}`)})
	_, err = freshRuntime(t, KindOllama, url).Fresh(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `not done_reason "unload"`)
}
