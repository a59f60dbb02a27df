package runtimes

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With images, the last user message carries them after its text: an
// OpenAI-kind request as image_url parts of data URLs, an Ollama one as
// base64 texts in "images"; the system message and the history stay text.
// Without images the prompt is a plain string, as before.
func TestRequestImages(t *testing.T) {
	req := Request{
		Prompt: "Describe.", System: "Be brief.", MaxTokens: 8,
		History: []Message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}},
		Images:  []Image{NewImage("image/png", []byte("png!")), NewImage("image/jpeg", []byte{0xff, 0xd8})},
	}
	messages := func(v any) string {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		var body struct {
			Messages json.RawMessage `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(data, &body))
		return string(body.Messages)
	}
	assert.JSONEq(t, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
		{"role":"user","content":[{"type":"text","text":"Describe."},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,cG5nIQ=="}},
			{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9g="}}]}]`,
		messages(newOpenAIChatRequest("m", req)))
	assert.JSONEq(t, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
		{"role":"user","content":"Describe.","images":["cG5nIQ==","/9g="]}]`,
		messages(newOllamaChatRequest("m", req)))

	req.Images = nil
	assert.JSONEq(t, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
		{"role":"user","content":"Describe."}]`, messages(newOpenAIChatRequest("m", req)))
	assert.JSONEq(t, `[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},
		{"role":"user","content":"Describe."}]`, messages(newOllamaChatRequest("m", req)))
}

func TestImageBase64(t *testing.T) {
	im := NewImage("image/png", []byte{1, 2, 3})
	assert.Equal(t, "data:image/png;base64,AQID", im.URL)
	assert.Equal(t, "AQID", im.Base64())
}

// Ollama's /api/show capabilities, or llama-server's /props modalities,
// say whether the model takes images; a server without them says nothing.
func TestTakesImages(t *testing.T) {
	for _, tc := range []struct {
		models       string
		takes, known bool
		source       string
	}{
		{`{"show":{"capabilities":["completion","vision"]}}`, true, true, "/api/show capabilities"},
		{`{"show":{"capabilities":["completion","tools"]}}`, false, true, "/api/show capabilities"},
		{`{"show":{"template":"{{ .Prompt }}"}}`, false, false, ""},
		{`{"data":[{"id":"Qwen/Qwen2.5-VL-3B-Instruct"}]}`, false, false, ""},
		{`{"data":[{"id":"m"}],"props":{"modalities":{"vision":true,"audio":false}}}`, true, true, "/props modalities"},
		{`{"data":[{"id":"m"}],"props":{"modalities":{"vision":false,"audio":true}}}`, false, true, "/props modalities"},
		{`{"props":{"total_slots":1,"default_generation_settings":{"n_ctx":4096}}}`, false, false, ""},
		{`{"props":{"modalities":{}}}`, false, false, ""},
		// llama-server's own Ollama-like /api/show says "multimodal".
		{`{"show":{"capabilities":["completion","multimodal"]},"props":{"modalities":{"vision":true}}}`, true, true, "/props modalities"},
		{``, false, false, ""},
	} {
		takes, known, source := Info{Models: json.RawMessage(tc.models)}.TakesImages()
		assert.Equal(t, []bool{tc.takes, tc.known}, []bool{takes, known}, tc.models)
		assert.Equal(t, tc.source, source, tc.models)
	}
}

// Describe keeps llama-server's /props "modalities" (testdata: the /props
// bodies a real llama-server b1-0c1e570 served here, cmd/genmodel's model
// started with and without --mmproj and cmd/genmodel -format mmproj's
// projector), so that TakesImages knows; an older build's /props, without
// "modalities", leaves it unknown.
func TestTakesImagesFromProps(t *testing.T) {
	older := func(t *testing.T) string {
		var p map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(readTestdata(t, "props-novision.json"), &p))
		delete(p, "modalities")
		b, err := json.Marshal(p)
		require.NoError(t, err)
		return string(b)
	}
	for _, tc := range []struct {
		name         string
		props        func(t *testing.T) string
		takes, known bool
		source       string
	}{
		{"--mmproj", func(t *testing.T) string { return string(readTestdata(t, "props-vision.json")) }, true, true, "/props modalities"},
		{"no --mmproj", func(t *testing.T) string { return string(readTestdata(t, "props-novision.json")) }, false, true, "/props modalities"},
		{"older build", older, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f fakeServer
			url := f.start(t, map[string]http.HandlerFunc{
				"GET /v1/models": reply(`{"object":"list","data":[{"id":"/models/Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf","object":"model","owned_by":"llamacpp"}]}`),
				"GET /props":     reply(tc.props(t)),
			})
			info, err := freshRuntime(t, KindOpenAI, url).Describe(context.Background())
			require.NoError(t, err)
			takes, known, source := info.TakesImages()
			assert.Equal(t, []bool{tc.takes, tc.known}, []bool{takes, known}, "%s", info.Models)
			assert.Equal(t, tc.source, source)
		})
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}
