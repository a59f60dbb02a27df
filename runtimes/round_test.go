package runtimes

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A round ends with its last stream, as the client stamped it: a server
// that keeps the body open after data: [DONE] (so the client's drain for
// connection reuse waits) does not make the round longer.
func TestRoundEndsWithTheLastStream(t *testing.T) {
	const hold = 300 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(hold):
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	rt, err := New(Config{Name: "held", Kind: KindOpenAI, URL: srv.URL, Model: "m", Timeout: 10 * time.Second, Client: &http.Client{Transport: NewTransport(4)}})
	require.NoError(t, err)

	start := time.Now()
	wall, results := rt.Round(context.Background(), Copies(Request{Prompt: "x", MaxTokens: 1}, 4))
	took := time.Since(start)
	for _, r := range results {
		require.NoError(t, r.Err)
	}
	assert.Greater(t, took, hold, "the drain did wait for the server")
	assert.Less(t, wall, hold/3, "but the round ended with the streams")
}
