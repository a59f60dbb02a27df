package runtimes

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// tracedRequests sends n requests, one after the other, with
// Request.HTTPTrace set as trace says, to a simulator that closes every
// connection after its reply (closeAfter) or keeps it alive.
func tracedRequests(t *testing.T, k Kind, closeAfter, trace bool, n int) []Result {
	t.Helper()
	srv, err := sim.Start(sim.Config{TTFT: 5 * time.Millisecond, TokensPerSec: 1000, CloseAfterStream: closeAfter})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: NewTransport(1)}
	t.Cleanup(client.CloseIdleConnections)
	rt, err := New(Config{Name: "sim", Kind: k, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, Client: client})
	require.NoError(t, err)
	var out []Result
	for range n {
		res := rt.Do(context.Background(), Request{Prompt: "hi", MaxTokens: 4, HTTPTrace: trace})
		require.NoError(t, res.Err)
		out = append(out, res)
	}
	return out
}

// checkOrder checks that a trace's milestones come in the order a request
// goes through them, before its first token.
func checkOrder(t *testing.T, i int, res Result) {
	t.Helper()
	h := res.HTTP
	assert.Positive(t, h.GotConn, "request %d had a connection", i)
	assert.GreaterOrEqual(t, h.Wrote, h.GotConn, "request %d was written on its connection", i)
	assert.Greater(t, h.FirstByte, h.Wrote, "request %d's reply came after it was written", i)
	assert.LessOrEqual(t, h.FirstByte, res.TTFT, "request %d's first byte came no later than its first token", i)
	assert.LessOrEqual(t, h.Setup(), h.GotConn, "request %d opened its connection before it had it", i)
}

// With BENCH_HTTP_TRACE a request on a fresh connection records the time
// of its TCP connect and a connection not reused; on a kept-alive one the
// requests after the first reuse it and open none. Without it, nothing is
// recorded.
func TestHTTPTrace(t *testing.T) {
	t.Parallel()
	for _, k := range bothKinds {
		t.Run(string(k)+"/fresh", func(t *testing.T) {
			t.Parallel()
			for i, res := range tracedRequests(t, k, true, true, 4) {
				require.NotNil(t, res.HTTP, "request %d", i)
				assert.False(t, res.HTTP.Reused, "request %d: the server closed every connection", i)
				assert.Positive(t, res.HTTP.Connect, "request %d dialled", i)
				assert.Zero(t, res.HTTP.DNS, "an IP address needs no lookup")
				assert.Zero(t, res.HTTP.TLS, "plain http")
				checkOrder(t, i, res)
			}
		})
		t.Run(string(k)+"/keep-alive", func(t *testing.T) {
			t.Parallel()
			for i, res := range tracedRequests(t, k, false, true, 4) {
				require.NotNil(t, res.HTTP, "request %d", i)
				assert.Equal(t, i > 0, res.HTTP.Reused, "request %d", i)
				if i == 0 {
					assert.Positive(t, res.HTTP.Connect, "the first request dialled")
				} else {
					assert.Zero(t, res.HTTP.Connect, "request %d opened no connection", i)
				}
				checkOrder(t, i, res)
			}
		})
		t.Run(string(k)+"/off", func(t *testing.T) {
			t.Parallel()
			for _, res := range tracedRequests(t, k, false, false, 2) {
				assert.Nil(t, res.HTTP)
			}
		})
	}
}
