package runtimes

import (
	"encoding/json"
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

// Ollama's /api/show capabilities say whether the model takes images;
// a server without them says nothing.
func TestTakesImages(t *testing.T) {
	for _, tc := range []struct {
		models       string
		takes, known bool
	}{
		{`{"show":{"capabilities":["completion","vision"]}}`, true, true},
		{`{"show":{"capabilities":["completion","tools"]}}`, false, true},
		{`{"show":{"template":"{{ .Prompt }}"}}`, false, false},
		{`{"data":[{"id":"Qwen/Qwen2.5-VL-3B-Instruct"}]}`, false, false},
		{``, false, false},
	} {
		takes, known, source := Info{Models: json.RawMessage(tc.models)}.TakesImages()
		assert.Equal(t, []bool{tc.takes, tc.known}, []bool{takes, known}, tc.models)
		assert.Equal(t, tc.known, source == "/api/show capabilities", tc.models)
	}
}
