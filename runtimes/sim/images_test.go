package sim_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The llamacpp flavor says and does as llama-server does: /props
// modalities say vision only with SIM_MODEL_VISION=on (llama-server
// started with --mmproj); without it a chat request with an image_url
// part gets llama-server's 500, whose body its OpenAI-compatible handler
// writes for the std::runtime_error its chat parser throws.
func TestLlamaVision(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, image.NewGray(image.Rect(0, 0, 56, 56))))
	body := `{"model":"m","stream":true,"max_tokens":2,"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"What is this?"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `"}}]}]}`
	for _, vision := range []string{"off", "on"} {
		t.Run(vision, func(t *testing.T) {
			srv := startEnv(t, "SIM_FLAVOR", "llamacpp", "SIM_MODEL_VISION", vision)
			c := newClient(t, 1)
			assert.Equal(t, map[string]any{"vision": vision == "on", "video": false, "audio": false}, getJSON(t, c, srv.URL, "/props")["modalities"])
			w := post(t, c, srv.URL, "/v1/chat/completions", body)
			if vision == "on" {
				assert.Equal(t, http.StatusOK, w.status, "%s", w.body)
				assert.Contains(t, string(w.body), "data: [DONE]")
				return
			}
			assert.Equal(t, http.StatusInternalServerError, w.status)
			var got map[string]any
			require.NoError(t, json.Unmarshal(w.body, &got), "%s", w.body)
			assert.Equal(t, map[string]any{"error": map[string]any{
				"code":    500.0,
				"message": "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
				"type":    "server_error",
			}}, got)
		})
	}
}
