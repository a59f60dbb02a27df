package runtimes

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Whether a served model takes tools, from Ollama's /api/show as Describe
// keeps it: its capabilities (0.6.5-shaped replies, recorded), else, from
// an Ollama without that key, whether its template uses .Tools; a server
// that says nothing does not say "no".
func TestTakesNoTools(t *testing.T) {
	t.Parallel()
	read := func(name string) json.RawMessage {
		b, err := os.ReadFile("testdata/show/" + name)
		require.NoError(t, err)
		return b
	}
	without, with := read("ollama-0.6.5-notools.json"), read("ollama-0.6.5-tools.json")
	// The same replies without "capabilities", as an older Ollama answers.
	older := func(show json.RawMessage) json.RawMessage {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(show, &m))
		delete(m, "capabilities")
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name   string
		show   json.RawMessage // nil: no /api/show
		none   bool
		source string
	}{
		{"0.6.5, a template without .Tools", without, true, "/api/show capabilities"},
		{"0.6.5, a template with .Tools", with, false, "/api/show capabilities"},
		{"older, a template without .Tools", older(without), true, "/api/show template"},
		{"older, a template with .Tools", older(with), false, "/api/show template"},
		{"no capabilities, no template", json.RawMessage(`{"details":{"family":"llama"}}`), false, ""},
		{"not Ollama", nil, false, ""},
		{"capabilities of an embedding model", json.RawMessage(`{"capabilities":["embedding"],"template":"{{ .Prompt }}"}`), true, "/api/show capabilities"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Served as a server would, read through Describe.
			c := servedCase{Kind: KindOllama, Replies: map[string]json.RawMessage{
				"GET /api/version": json.RawMessage(`{"version":"0.6.5"}`),
				"GET /api/tags":    json.RawMessage(`{"models":[{"name":"e2e:latest"}]}`),
			}}
			if tc.show != nil {
				c.Replies["POST /api/show"] = tc.show
			}
			srv := c.replay(t)
			rt, err := New(Config{Name: "ollama", Kind: KindOllama, URL: srv.URL, Client: srv.Client()})
			require.NoError(t, err)
			info, err := rt.Describe(context.Background())
			require.NoError(t, err)
			none, source := info.TakesNoTools()
			assert.Equal(t, tc.none, none)
			assert.Equal(t, tc.source, source)
		})
	}
	none, source := Info{}.TakesNoTools()
	assert.False(t, none, "nothing described")
	assert.Empty(t, source)
}
