package sim_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// With SIM_HTTP_THREADS=1, a connection kept open (idle in its client's
// pool) holds the one thread: a request on a second connection is not
// answered until the first closes; then it is.
func TestHTTPThreadsHoldConnections(t *testing.T) {
	srv := start(t, sim.Config{Flavor: sim.FlavorLlamaCpp, HTTPThreads: 1, TTFT: time.Millisecond, TokensPerSec: 1000})
	get := func(c *http.Client) (int, error) {
		resp, err := c.Get(srv.URL + "/props")
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, err
	}
	first := newClient(t, 1)
	code, err := get(first)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code) // its connection is idle in first's pool now

	second := newClient(t, 1)
	done := make(chan error, 1)
	go func() {
		_, err := get(second)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("answered while the one thread held another connection (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	first.CloseIdleConnections() // frees the thread
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("not answered once the thread was free")
	}
	second.CloseIdleConnections()
}
