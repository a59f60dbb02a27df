package sim_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// What varies from run to run: the id, the clock, measured durations.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"id":"chatcmpl-[0-9a-f]{32}"`), `"id":"chatcmpl-ID"`},
	{regexp.MustCompile(`"created":\d+`), `"created":0`},
	{regexp.MustCompile(`"created_at":"[^"]+"`), `"created_at":"T"`},
	{regexp.MustCompile(`"total_duration":\d+`), `"total_duration":0`},
	{regexp.MustCompile(`"(modified_at|expires_at)":"[^"]+"`), `"$1":"T"`},
}

// goldenRequests are replayed, in order, on one server with the default
// settings (but a fast schedule); each reply is compared, byte for byte but
// for the volatile fields (and Content-Length), with testdata/golden/NAME.
// A request without a body is a GET.
var goldenRequests = []struct{ name, path, body string }{
	{"ollama-stream", ollamaPath, `{"model":"llama3:8b","messages":[{"role":"user","content":"Say something nice."}],"options":{"num_predict":5}}`},
	{"ollama-whole", ollamaPath, `{"model":"llama3:8b","stream":false,"messages":[{"role":"user","content":"Say something else."}],"options":{"num_predict":3}}`},
	{"ollama-repeat", ollamaPath, `{"model":"llama3:8b","messages":[{"role":"user","content":"Say something nice."}],"options":{"num_predict":2}}`},
	{"openai-stream", openaiPath, `{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"one two three"}],"stream":true,"max_tokens":4}`},
	{"openai-usage", openaiPath, `{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"four five six"}],"stream":true,"max_tokens":4,"stream_options":{"include_usage":true}}`},
	{"openai-repeat", openaiPath, `{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"four five six seven"}],"stream":true,"max_tokens":2,"stream_options":{"include_usage":true}}`},
	{"tags", "/api/tags", ""},
	{"ps", "/api/ps", ""},
	{"models", "/v1/models", ""},
}

// The default settings' wire bytes are pinned: a new setting must leave
// them as they are.
func TestGoldenDefaults(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.TokensPerSec = time.Millisecond, 20000
	golden(t, cfg, "", goldenRequests)
}

// The wire shapes of the settings that change them, together: reasoning
// (in both OpenAI fields), chunks of several tokens, an early stop, the
// served model; testdata/golden/settings-*.
func TestGoldenSettings(t *testing.T) {
	cfg := sim.Config{TTFT: time.Millisecond, TokensPerSec: 20000,
		ServedModel: "/models/q.gguf", StopAfter: 5, ReasoningTokens: 2, TokensPerChunk: 2}
	reqs := []struct{ name, path, body string }{
		{"ollama-stream", ollamaPath, `{"model":"/models/q.gguf","messages":[{"content":"a b"}],"options":{"num_predict":8}}`},
		{"ollama-whole", ollamaPath, `{"model":"/models/q.gguf","stream":false,"messages":[{"content":"a b"}],"options":{"num_predict":8}}`},
		{"openai-usage", openaiPath, `{"model":"/models/q.gguf","messages":[{"content":"a b"}],"stream":true,"max_tokens":8,"stream_options":{"include_usage":true}}`},
		{"openai-ignore-eos", openaiPath, `{"model":"/models/q.gguf","messages":[{"content":"c"}],"stream":true,"max_tokens":4,"ignore_eos":true,"stream_options":{"include_usage":true}}`},
	}
	golden(t, cfg, "settings-", reqs)
	cfg.ReasoningField = sim.Reasoning
	golden(t, cfg, "settings-reasoning-", reqs[2:3])
}

// golden replays reqs, in order, on one server with cfg and compares each
// reply with testdata/golden/PREFIX+NAME.
func golden(t *testing.T, cfg sim.Config, prefix string, reqs []struct{ name, path, body string }) {
	t.Helper()
	srv := start(t, cfg)
	c := newClient(t, 1)
	for _, g := range reqs {
		var w wire
		if g.body == "" {
			resp, err := c.Get(srv.URL + g.path)
			require.NoError(t, err)
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			w = wire{resp.StatusCode, resp.Header, b, err}
		} else {
			w = fetch(context.Background(), t, c, srv.URL, g.path, g.body)
		}
		require.NoError(t, w.err)
		// The status and the headers, but for Date and Content-Length
		// (the times in the metadata vary in length), then the body.
		got := fmt.Sprintf("%d\n", w.status)
		for _, k := range slices.Sorted(maps.Keys(w.header)) {
			if k != "Date" && k != "Content-Length" {
				got += fmt.Sprintf("%s: %s\n", k, strings.Join(w.header[k], ", "))
			}
		}
		got += "\n" + string(w.body)
		for _, v := range volatile {
			got = v.re.ReplaceAllString(got, v.with)
		}
		file := filepath.Join("testdata", "golden", prefix+g.name)
		if *testkit.Update {
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(file)
		require.NoError(t, err, "go test -run TestGolden -update writes it")
		assert.Equal(t, string(want), got, "%s: %s", g.name, strings.TrimSpace(g.body))
	}
}
