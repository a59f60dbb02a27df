package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// post posts body to path and reads the whole reply.
func post(t *testing.T, c *http.Client, url, path, body string) wire {
	t.Helper()
	w := fetch(context.Background(), t, c, url, path, body)
	require.NoError(t, w.err)
	return w
}

// get GETs path and reads the whole reply.
func get(t *testing.T, c *http.Client, url, path string) wire {
	t.Helper()
	resp, err := c.Get(url + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return wire{resp.StatusCode, resp.Header, b, nil}
}

// listed is the number of models GET /api/ps lists.
func listed(t *testing.T, c *http.Client, url string) int {
	t.Helper()
	return len(getJSON(t, c, url, "/api/ps")["models"].([]any))
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// finalLoad reads the load_duration of an Ollama reply's final line.
func finalLoad(t *testing.T, w wire) time.Duration {
	t.Helper()
	lines := w.lines()
	var fin ndjsonChunk
	decodeStrict(t, lines[len(lines)-1], &fin)
	require.True(t, fin.Done)
	require.NotNil(t, fin.LoadDuration)
	return time.Duration(*fin.LoadDuration)
}

var createdAt = regexp.MustCompile(`"created_at":"[^"]+"`)

// Ollama's way: an /api/chat without messages and with keep_alive 0
// unloads the model (done_reason "unload"), /api/ps lists none, the prompt
// cache is forgotten, and the next chat request loads the model again:
// its load_duration is SIM_LOAD_TIME and its first token that much later.
// Without keep_alive 0 the same request loads the model.
func TestOllamaUnload(t *testing.T) {
	const load = 200 * time.Millisecond
	srv := startEnv(t, "SIM_LOAD_TIME", load.String())
	c := newClient(t, 1)
	body := func(prompt string) string {
		return `{"model":"m","messages":[{"content":"` + prompt + `"}],"options":{"num_predict":2}}`
	}

	w := post(t, c, srv.URL, ollamaPath, body("a b c d"))
	assert.Zero(t, finalLoad(t, w), "loaded from the start")
	assert.Equal(t, 1, listed(t, c, srv.URL))

	for _, ka := range []string{`0`, `"0"`, `"0s"`, `0.5`, `"500ms"`} {
		t.Run("keep_alive="+ka, func(t *testing.T) {
			resets := srv.Resets()
			for _, stream := range []string{``, `,"stream":false`, `,"stream":true`} {
				w := post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[],"keep_alive":`+ka+stream+`}`)
				assert.Equal(t, http.StatusOK, w.status)
				assert.Equal(t, "application/json; charset=utf-8", w.header.Get("Content-Type"), "one JSON object, as Ollama's c.JSON")
				assert.Equal(t, `{"model":"m","created_at":"T","message":{"role":"assistant","content":""},"done_reason":"unload","done":true}`,
					createdAt.ReplaceAllString(string(w.body), `"created_at":"T"`))
				var ch ndjsonChunk
				decodeStrict(t, string(w.body), &ch)
				_, err := time.Parse(time.RFC3339Nano, ch.CreatedAt)
				assert.NoError(t, err)
				assert.Equal(t, 0, listed(t, c, srv.URL), "unloaded: /api/ps lists nothing")
			}
			assert.Equal(t, resets+3, srv.Resets())

			// The next chat request loads it, and finds nothing cached.
			loads := srv.Loads()
			start := time.Now()
			res := do(context.Background(), c, srv.URL, ollamaPath, body("a b c d"))
			r := parseReply(t, ollamaPath, res)
			assert.GreaterOrEqual(t, r.pieces[0].at, load+time.Millisecond, "the first token after the load and TTFT")
			assert.GreaterOrEqual(t, time.Since(start), load)
			assert.Equal(t, sim.PromptTokens("a b c d"), r.prompt)
			assert.Equal(t, int64(time.Millisecond), r.promptEvalDuration, "nothing cached: the whole TTFT")
			var fin ndjsonChunk
			decodeStrict(t, res.lines[len(res.lines)-1].text, &fin)
			assert.Equal(t, int64(load), *fin.LoadDuration)
			assert.GreaterOrEqual(t, *fin.TotalDuration, int64(load), "total_duration includes the load")
			assert.Equal(t, loads+1, srv.Loads())
			assert.Equal(t, 1, listed(t, c, srv.URL))
			// Loaded now.
			assert.Zero(t, finalLoad(t, post(t, c, srv.URL, ollamaPath, body("x"))))
		})
	}

	t.Run("load", func(t *testing.T) {
		// Empty messages without keep_alive 0 load the model: once it is
		// loaded, so the reply waits for the load.
		for _, req := range []string{`{"model":"m"}`, `{"model":"m","messages":[]}`, `{"model":"m","messages":null,"keep_alive":"5m"}`, `{"model":"m","messages":[],"keep_alive":-1}`} {
			post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[],"keep_alive":0}`)
			require.Equal(t, 0, listed(t, c, srv.URL))
			resets, loads := srv.Resets(), srv.Loads()
			start := time.Now()
			w := post(t, c, srv.URL, ollamaPath, req)
			assert.GreaterOrEqual(t, time.Since(start), load, req)
			assert.Equal(t, http.StatusOK, w.status, req)
			assert.Equal(t, `{"model":"m","created_at":"T","message":{"role":"assistant","content":""},"done_reason":"load","done":true}`,
				createdAt.ReplaceAllString(string(w.body), `"created_at":"T"`), req)
			assert.Equal(t, 1, listed(t, c, srv.URL), req)
			assert.Equal(t, resets, srv.Resets(), "%s: a load is no reset", req)
			assert.Equal(t, loads+1, srv.Loads(), req)
			assert.Zero(t, finalLoad(t, post(t, c, srv.URL, ollamaPath, body("y"))), "%s: loaded already", req)
		}
		// Loaded already: at once.
		start := time.Now()
		post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[]}`)
		assert.Less(t, time.Since(start), load)
	})

	t.Run("the client", func(t *testing.T) {
		// What the client reads of the request that loaded the model.
		post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[],"keep_alive":0}`)
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOllama, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
		require.NoError(t, err)
		res := rt.Do(context.Background(), runtimes.Request{Prompt: "Say something.", MaxTokens: 4})
		require.NoError(t, res.Err)
		assert.Equal(t, load, res.LoadDuration)
		assert.GreaterOrEqual(t, res.TTFT, load+time.Millisecond)
		res = rt.Do(context.Background(), runtimes.Request{Prompt: "Say something.", MaxTokens: 4})
		require.NoError(t, res.Err)
		assert.Zero(t, res.LoadDuration)
	})
}

// A load or unload request is no chat request: it never gets a fault,
// and the chat requests are numbered without it.
func TestOllamaUnloadNoFault(t *testing.T) {
	srv := startEnv(t, "SIM_FAULT", "http-503", "SIM_FAULT_EVERY", "2")
	c := newClient(t, 1)
	for k := 1; k <= 4; k++ {
		w := post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[],"keep_alive":0}`)
		assert.Equal(t, http.StatusOK, w.status)
		w = post(t, c, srv.URL, ollamaPath, faultBodies[ollamaPath])
		assert.Equal(t, map[bool]int{true: 503, false: 200}[k%2 == 0], w.status, "chat request %d", k)
	}
}

// vLLM's way: POST /reset_prefix_cache forgets the prompt cache (and the
// degradation); the model stays loaded.
func TestResetPrefixCache(t *testing.T) {
	srv := startEnv(t)
	c := newClient(t, 1)
	assert.Equal(t, 0, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached)
	assert.Equal(t, 8, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached)
	for _, body := range []string{``, `{}`} {
		w := post(t, c, srv.URL, "/reset_prefix_cache", body)
		assert.Equal(t, http.StatusOK, w.status)
		assert.Empty(t, w.body)
		assert.Equal(t, 0, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached, "forgotten")
	}
	assert.Equal(t, 2, srv.Resets())
	assert.Equal(t, 1, listed(t, c, srv.URL), "still loaded")
	assert.Zero(t, srv.Loads())
	assert.Equal(t, http.StatusMethodNotAllowed, get(t, c, srv.URL, "/reset_prefix_cache").status)
}

// llama-server's way: POST /slots/{id}?action=erase for each slot; GET
// /props says how many there are, GET /slots lists them.
func TestLlamaSlots(t *testing.T) {
	srv := startEnv(t, "SIM_FLAVOR", "llamacpp", "SIM_SLOTS", "2", "SIM_CONTEXT", "4096", "SIM_SERVED_MODEL", "/models/q.gguf")
	c := newClient(t, 1)
	props := getJSON(t, c, srv.URL, "/props")
	assert.Equal(t, map[string]any{
		"total_slots": 2.0, "n_ctx": 4096.0, "build_info": sim.Version,
		"default_generation_settings": map[string]any{"n_ctx": 4096.0}, "model_path": "/models/q.gguf",
		"modalities": map[string]any{"vision": false, "video": false, "audio": false},
	}, props)
	w := get(t, c, srv.URL, "/slots")
	require.Equal(t, http.StatusOK, w.status)
	var slots []map[string]any
	require.NoError(t, json.Unmarshal(w.body, &slots))
	require.Len(t, slots, 2)
	for i, s := range slots {
		assert.Equal(t, float64(i), s["id"])
		assert.Equal(t, 4096.0, s["n_ctx"])
		assert.Equal(t, false, s["is_processing"])
	}

	p := chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").prompt
	assert.Equal(t, 8, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached)
	w = post(t, c, srv.URL, "/slots/0?action=erase", "")
	assert.Equal(t, http.StatusOK, w.status)
	assert.JSONEq(t, `{"id_slot":0,"n_erased":`+itoa(p)+`}`, string(w.body), "the last prompt's tokens")
	w = post(t, c, srv.URL, "/slots/1?action=erase", "{}")
	assert.Equal(t, http.StatusOK, w.status)
	assert.JSONEq(t, `{"id_slot":1,"n_erased":0}`, string(w.body), "nothing left")
	assert.Equal(t, 0, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached, "forgotten")
	assert.Equal(t, 2, srv.Resets())

	for path, msg := range map[string]string{
		"/slots/2?action=erase":  "Invalid slot ID",
		"/slots/-1?action=erase": "Invalid slot ID",
		"/slots/x?action=erase":  "Invalid slot ID",
		"/slots/0?action=save":   "Invalid action",
		"/slots/0":               "Invalid action",
	} {
		w := post(t, c, srv.URL, path, "")
		assert.Equal(t, http.StatusBadRequest, w.status, path)
		assert.JSONEq(t, `{"error":{"code":400,"message":"`+msg+`","type":"invalid_request_error"}}`, string(w.body), path)
	}
	assert.Equal(t, 2, srv.Resets(), "no reset")

	// No slot limit: one slot.
	srv = startEnv(t, "SIM_FLAVOR", "llamacpp")
	assert.Equal(t, 1.0, getJSON(t, c, srv.URL, "/props")["total_slots"])
	assert.Equal(t, float64(sim.ContextLength), getJSON(t, c, srv.URL, "/props")["n_ctx"])
	assert.Equal(t, http.StatusOK, post(t, c, srv.URL, "/slots/0?action=erase", "").status)
	assert.Equal(t, http.StatusBadRequest, post(t, c, srv.URL, "/slots/1?action=erase", "").status)
}

// Each flavor serves its own endpoints; the others' answer 404. The chat
// and Ollama endpoints are served whatever the flavor.
func TestFlavorEndpoints(t *testing.T) {
	served := map[string][]string{
		"vllm":     {"GET /version", "POST /reset_prefix_cache", "POST /tokenize"},
		"llamacpp": {"GET /props", "GET /slots", "POST /slots/0?action=erase", "POST /tokenize"},
		"plain":    {},
	}
	all := []string{"GET /version", "POST /reset_prefix_cache", "POST /tokenize", "GET /props", "GET /slots", "POST /slots/0?action=erase"}
	for _, flavor := range []string{"", "vllm", "llamacpp", "plain"} {
		t.Run("flavor="+flavor, func(t *testing.T) {
			srv := startEnv(t, "SIM_FLAVOR", flavor)
			c := newClient(t, 1)
			own := served[flavor]
			if flavor == "" {
				own = served["vllm"]
			}
			for _, ep := range all {
				method, path, _ := strings.Cut(ep, " ")
				var w wire
				if method == "GET" {
					w = get(t, c, srv.URL, path)
				} else {
					w = post(t, c, srv.URL, path, `{"prompt":"a","content":"a"}`)
				}
				if contains(own, ep) {
					assert.Equal(t, http.StatusOK, w.status, ep)
				} else {
					assert.Equal(t, http.StatusNotFound, w.status, ep)
				}
			}
			for _, path := range []string{"/api/version", "/api/tags", "/api/ps", "/v1/models", "/health"} {
				assert.Equal(t, http.StatusOK, get(t, c, srv.URL, path).status, path)
			}
			for _, path := range paths {
				assert.True(t, chat(t, c, srv.URL, path, "hi", 2, "").ended, path)
			}
			assert.Equal(t, http.StatusOK, post(t, c, srv.URL, ollamaPath, `{"messages":[],"keep_alive":0}`).status)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SIM_RESET=refuse: every reset endpoint answers the error of a server
// that does not allow it, and nothing is forgotten.
func TestResetRefuse(t *testing.T) {
	for _, tc := range []struct {
		flavor, path, body string
		status             int
		reply              string // JSON; "" for Ollama's, checked apart
	}{
		{"vllm", "/reset_prefix_cache", "", http.StatusNotFound, `{"detail":"Not Found"}`},
		{"llamacpp", "/slots/0?action=erase", "", http.StatusNotImplemented,
			`{"error":{"code":501,"message":"This server does not support slots action. Start it with ` + "`--slot-save-path`" + `","type":"not_supported_error"}}`},
		{"llamacpp", "/slots/9?action=save", "", http.StatusNotImplemented,
			`{"error":{"code":501,"message":"This server does not support slots action. Start it with ` + "`--slot-save-path`" + `","type":"not_supported_error"}}`},
		{"plain", ollamaPath, `{"model":"m","messages":[],"keep_alive":0}`, http.StatusInternalServerError, ""},
	} {
		t.Run(tc.flavor+tc.path, func(t *testing.T) {
			srv := startEnv(t, "SIM_RESET", "refuse", "SIM_FLAVOR", tc.flavor, "SIM_DEGRADE", "0.5")
			c := newClient(t, 1)
			chat(t, c, srv.URL, openaiPath, "a b c d", 2, "")
			w := post(t, c, srv.URL, tc.path, tc.body)
			assert.Equal(t, tc.status, w.status)
			assert.Equal(t, "application/json; charset=utf-8", w.header.Get("Content-Type"))
			if tc.reply != "" {
				assert.JSONEq(t, tc.reply, string(w.body))
			} else {
				var e struct{ Error string }
				decodeStrict(t, string(w.body), &e)
				assert.Contains(t, e.Error, "simulated refusal")
			}
			assert.Equal(t, 8, chat(t, c, srv.URL, openaiPath, "a b c d", 2, "").cached, "not forgotten")
			assert.Equal(t, 1, listed(t, c, srv.URL), "still loaded")
			assert.Zero(t, srv.Resets())
			// A load is no reset: it is allowed.
			w = post(t, c, srv.URL, ollamaPath, `{"model":"m","messages":[]}`)
			assert.Equal(t, http.StatusOK, w.status)
			assert.Contains(t, string(w.body), `"done_reason":"load"`)
		})
	}
	t.Run("degraded stays", func(t *testing.T) {
		srv := startEnv(t, "SIM_RESET", "refuse", "SIM_DEGRADE", "0.5")
		c := newClient(t, 2)
		overlap(t, c, srv.URL)
		require.True(t, srv.Degraded())
		post(t, c, srv.URL, "/reset_prefix_cache", "")
		post(t, c, srv.URL, ollamaPath, `{"messages":[],"keep_alive":0}`)
		assert.True(t, srv.Degraded())
	})
}
