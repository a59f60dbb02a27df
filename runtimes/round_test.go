package runtimes

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drainWatch wraps a transport's reply bodies to tell when the client,
// past a reply's data: [DONE], reads on: it has read every line before it,
// stamped its end, and now drains the body for the connection's reuse.
type drainWatch struct {
	base     http.RoundTripper
	draining chan time.Time // a send per body read on past [DONE]
}

func (d *drainWatch) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.base.RoundTrip(r)
	if err == nil {
		resp.Body = &watchedBody{ReadCloser: resp.Body, draining: d.draining}
	}
	return resp, err
}

type watchedBody struct {
	io.ReadCloser
	done     bool // [DONE] was read
	once     sync.Once
	draining chan<- time.Time
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.done {
		b.once.Do(func() { b.draining <- time.Now() })
	}
	n, err := b.ReadCloser.Read(p)
	if bytes.Contains(p[:n], []byte("[DONE]")) {
		b.done = true
	}
	return n, err
}

// A round ends with its last stream, as the client stamped it: a server
// that keeps the body open after data: [DONE] (so the client's drain for
// connection reuse waits) does not make the round longer. The server here
// holds every body until each of the four clients is draining, so the
// test asserts the order of events, not how long anything took: each
// stream's end, and the round's, come before the server lets go, and
// Round returns after it (the drain did wait).
func TestRoundEndsWithTheLastStream(t *testing.T) {
	const n = 4
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n" +
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	watch := &drainWatch{base: NewTransport(n), draining: make(chan time.Time, n)}
	rt, err := New(Config{Name: "held", Kind: KindOpenAI, URL: srv.URL, Model: "m", Timeout: time.Minute, Client: &http.Client{Transport: watch}})
	require.NoError(t, err)

	released := make(chan time.Time, 1)
	go func() {
		timeout := time.After(30 * time.Second) // a client that never drains: fail, not hang
		for range n {
			select {
			case <-watch.draining:
			case <-timeout:
				t.Errorf("not every client drained its body past [DONE]")
			}
		}
		released <- time.Now()
		close(release)
	}()

	start := time.Now()
	wall, results := rt.Round(context.Background(), Copies(Request{Prompt: "x", MaxTokens: 1}, n))
	returned := time.Now()
	let := <-released
	for _, r := range results {
		require.NoError(t, r.Err)
		assert.True(t, r.Start.Add(r.Total).Before(let), "a stream ended, by its stamp, before the server let go of its body")
	}
	assert.True(t, start.Add(wall).Before(let), "the round ended with its streams, before the server let go")
	assert.False(t, returned.Before(let), "Round returned after the drain, which waited for the server")
}
