package sim_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainClient is what a user writes: the default transport's settings.
func plainClient(t *testing.T) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// backToBack sends n streamed chat requests one after the other, each as
// soon as the last reply was read to its end, and returns the errors of
// the requests that failed before any byte of a reply (Do's errors),
// stopping early once it has enough, and how many it sent. Every reply that came must be
// complete, with the Keep-Alive header keepAlive and never Connection:
// close.
func backToBack(t *testing.T, c *http.Client, url, path string, n, enough int, keepAlive string) (failed []error, sent int) {
	t.Helper()
	for ; sent < n && len(failed) < enough; sent++ {
		req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(faultBodies[path]))
		require.NoError(t, err)
		resp, err := c.Do(req)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		assert.Empty(t, resp.Header.Values("Connection"), "never Connection: close")
		assert.Equal(t, keepAlive, resp.Header.Get("Keep-Alive"))
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err, "the reply itself is complete, with a proper end of its chunked body")
		kinds, _ := frames(t, path, wire{resp.StatusCode, resp.Header, b, nil})
		require.Equal(t, framed(path, repeat("tok", faultN), true), kinds, "the reply itself is complete")
	}
	return failed, sent
}

// SIM_CLOSE_AFTER_STREAM: the connection dies after every streamed reply;
// a plain client that reuses it for its next POST fails before any byte of
// a reply, as against llama-server; without the setting it never does.
// (On an idle machine every second request of 30 fails; a loaded one can
// hold the client past the 1 ms, so it goes on, up to 300, until 5 have.)
func TestCloseAfterStream(t *testing.T) {
	const n = 30
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			cfg := faultSchedule
			srv := start(t, cfg)
			failed, _ := backToBack(t, plainClient(t), srv.URL, path, n, 1, "")
			assert.Empty(t, failed, "without the setting")

			cfg.CloseAfterStream = true
			srv = start(t, cfg)
			failed, sent := backToBack(t, plainClient(t), srv.URL, path, 10*n, 5, "timeout=5, max=100")
			t.Logf("%d of %d back-to-back requests failed before any byte of a reply; first: %v", len(failed), sent, errors.Join(failed[:min(len(failed), 1)]...))
			require.NotEmpty(t, failed, "a plain client must see the connection die")
			for _, err := range failed {
				// EOF on the request's read, mostly; a reset if it wrote
				// after the close; the transport's own word if it saw the
				// close while handing the connection out.
				assert.True(t, errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
					strings.Contains(err.Error(), "server closed idle connection"), "%v", err)
				assert.Contains(t, err.Error(), "Post ")
			}
			// Every connection the server closed counts as closed.
			assert.Eventually(t, func() bool { return srv.OpenConns() == 0 }, 2*time.Second, time.Millisecond)

		})
	}
}

// With SIM_CLOSE_AFTER_STREAM, GETs and non-streamed replies keep their
// connection.
func TestCloseAfterStreamKeepsOthers(t *testing.T) {
	cfg := faultSchedule
	cfg.CloseAfterStream = true
	srv := start(t, cfg)
	c := plainClient(t)
	reused := 0
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if i.Reused {
			reused++
		}
	}}
	ctx := httptrace.WithClientTrace(context.Background(), trace)
	for i := range 10 {
		var req *http.Request
		var err error
		if i%2 == 0 {
			req, err = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/version", nil)
		} else {
			req, err = http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+ollamaPath, strings.NewReader(wholeBody))
		}
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err, "request %d", i)
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "timeout=5, max=100", resp.Header.Get("Keep-Alive"))
		time.Sleep(5 * time.Millisecond) // past the close delay: the connection stays
	}
	assert.Equal(t, 9, reused, "one connection for all")
	assert.Equal(t, 1, srv.OpenConns())
}

// Config.LostAttempt holds a request sent on a connection being closed
// that long before the close: the client's failed Do takes at least that.
// A request can also reach its connection after the close delay has
// closed it (a client slower than a millisecond, as under -race): it fails
// at once, unheld, and the test goes on to the next. Without the hold,
// every failure is of that kind, and the test fails.
func TestLostAttempt(t *testing.T) {
	const lost = 30 * time.Millisecond
	cfg := faultSchedule
	cfg.CloseAfterStream = true
	cfg.LostAttempt = lost
	srv := start(t, cfg)
	c := plainClient(t)
	var unheld []time.Duration
	for range 300 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+ollamaPath, strings.NewReader(faultBodies[ollamaPath]))
		require.NoError(t, err)
		t0 := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			if took := time.Since(t0); took < lost {
				unheld = append(unheld, took)
				continue
			}
			assert.ErrorIs(t, err, io.EOF, "the held attempt ends as the server closes")
			t.Logf("held: one request; %d failed at once before it", len(unheld))
			return
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
	}
	t.Fatalf("no request of 300 was held for %v; %d failed sooner (the first: %v)", lost, len(unheld), unheld[:min(5, len(unheld))])
}
