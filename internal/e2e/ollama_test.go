package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeOllama answers /api/generate and /api/ps as Ollama does while it
// unloads a model: /api/ps lists it the first polls times.
type fakeOllama struct {
	mu       sync.Mutex
	polls    int
	asked    map[string]any // the generate request
	status   int            // of /api/generate; 200 if 0
	psStatus int            // of /api/ps; 200 if 0
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/api/generate":
		_ = json.NewDecoder(r.Body).Decode(&f.asked)
		if f.status != 0 {
			http.Error(w, `{"error":"model \"m\" not found"}`, f.status)
			return
		}
		w.Write([]byte(`{"model":"m","done":true,"done_reason":"unload"}`))
	case "/api/ps":
		if f.psStatus != 0 {
			http.Error(w, "no", f.psStatus)
			return
		}
		if f.polls > 0 {
			f.polls--
			w.Write([]byte(`{"models":[{"name":"m:latest","model":"m:latest"},{"name":"other:latest","model":"other:latest"}]}`))
			return
		}
		w.Write([]byte(`{"models":[{"name":"other:latest","model":"other:latest"}]}`))
	default:
		http.NotFound(w, r)
	}
}

// set changes the fake's answers under its lock.
func (f *fakeOllama) set(edit func(f *fakeOllama)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	edit(f)
}

func TestUnloadModel(t *testing.T) {
	fake := &fakeOllama{polls: 3}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()
	require.NoError(t, unloadModel(ctx, srv.Client(), srv.URL, "m", time.Millisecond))
	fake.set(func(f *fakeOllama) {
		assert.Equal(t, map[string]any{"model": "m", "keep_alive": 0.0}, f.asked, "as `ollama stop` asks")
		assert.Zero(t, f.polls, "it waited until /api/ps no longer listed the model")
		f.polls = 1 << 30
	})
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err := unloadModel(short, srv.Client(), srv.URL, "m", time.Millisecond)
	assert.ErrorContains(t, err, "waiting for m to unload")

	fake.set(func(f *fakeOllama) { f.polls, f.status = 0, http.StatusNotFound })
	err = unloadModel(ctx, srv.Client(), srv.URL, "m", time.Millisecond)
	assert.ErrorContains(t, err, `unloading m: POST `+srv.URL+`/api/generate: 404 Not Found: {"error":"model \"m\" not found"}`)

	fake.set(func(f *fakeOllama) { f.status, f.psStatus = 0, http.StatusInternalServerError })
	err = unloadModel(ctx, srv.Client(), srv.URL, "m", time.Millisecond)
	assert.ErrorContains(t, err, "waiting for m to unload: GET "+srv.URL+"/api/ps: 500 Internal Server Error: no")
}
