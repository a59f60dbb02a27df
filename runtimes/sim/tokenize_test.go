package sim_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// vLLM's POST /tokenize: a prompt's tokens, or a chat's with the template,
// the same count a chat request's usage reports.
func TestTokenizeVLLM(t *testing.T) {
	srv := startEnv(t)
	c := newClient(t, 1)
	type reply struct {
		Count       int   `json:"count"`
		MaxModelLen int   `json:"max_model_len"`
		Tokens      []int `json:"tokens"`
	}
	tokenize := func(body string) reply {
		t.Helper()
		w := post(t, c, srv.URL, "/tokenize", body)
		require.Equal(t, http.StatusOK, w.status, string(w.body))
		assert.Equal(t, "application/json; charset=utf-8", w.header.Get("Content-Type"))
		var r reply
		d := json.NewDecoder(bytesReader(w.body))
		d.DisallowUnknownFields()
		require.NoError(t, d.Decode(&r), string(w.body))
		assert.Len(t, r.Tokens, r.Count)
		assert.Equal(t, sim.ContextLength, r.MaxModelLen)
		return r
	}
	r := tokenize(`{"model":"m","prompt":"extraordinary claims need a cat"}`)
	assert.Equal(t, 4+2+1+1+1, r.Count)
	assert.Equal(t, r.Tokens, tokenize(`{"model":"m","prompt":"extraordinary   claims need a cat"}`).Tokens, "the same words, the same ids")
	assert.Equal(t, 0, tokenize(`{"model":"m","prompt":""}`).Count)

	msgs := `[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"extraordinary claims"}]}]`
	r = tokenize(`{"model":"m","messages":` + msgs + `}`)
	assert.Equal(t, sim.PromptTokens("Be brief.", "extraordinary claims"), r.Count)
	// The count a chat request reports for the same messages.
	u := parseReply(t, openaiPath, do(t.Context(), c, srv.URL, openaiPath, `{"messages":`+msgs+`,"stream":true,"max_tokens":1,"stream_options":{"include_usage":true}}`))
	assert.Equal(t, u.prompt, r.Count)

	for _, body := range []string{``, `{}`, `{"model":"m"}`, `not json`, `{"messages":[{"content":1}]}`} {
		w := post(t, c, srv.URL, "/tokenize", body)
		assert.Equal(t, http.StatusBadRequest, w.status, body)
		assert.Contains(t, string(w.body), `"object":"error"`, body)
	}
}

// llama-server's POST /tokenize: the content's tokens, after one BOS token
// with add_special.
func TestTokenizeLlama(t *testing.T) {
	srv := startEnv(t, "SIM_FLAVOR", "llamacpp")
	c := newClient(t, 1)
	tokenize := func(body string) []int {
		t.Helper()
		w := post(t, c, srv.URL, "/tokenize", body)
		require.Equal(t, http.StatusOK, w.status, string(w.body))
		var r struct {
			Tokens []int `json:"tokens"`
		}
		decodeStrict(t, string(w.body), &r)
		require.NotNil(t, r.Tokens, "a list, never null")
		return r.Tokens
	}
	plain := tokenize(`{"content":"extraordinary claims"}`)
	assert.Len(t, plain, 6)
	assert.Equal(t, plain, tokenize(`{"content":"extraordinary claims","add_special":false}`))
	special := tokenize(`{"content":"extraordinary claims","add_special":true}`)
	assert.Len(t, special, 7)
	assert.Equal(t, plain, special[1:], "one BOS token before the content's")
	assert.Empty(t, tokenize(`{"content":""}`))
	assert.Empty(t, tokenize(`{}`))
	w := post(t, c, srv.URL, "/tokenize", `not json`)
	assert.Equal(t, http.StatusBadRequest, w.status)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
