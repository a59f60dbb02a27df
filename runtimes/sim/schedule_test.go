package sim_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

var schedule = sim.Config{TTFT: 30 * time.Millisecond, TokensPerSec: 200}

const scheduleN = 20

var bodies = map[string]string{
	"/api/chat":            `{"model":"m","messages":[{"role":"user","content":"hi"}],"options":{"num_predict":20}}`,
	"/v1/chat/completions": `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":20,"stream_options":{"include_usage":true}}`,
}

// The schedule as far as load cannot change it: every token and the end
// arrive never before their deadline (t0 + Offset, and t0 is after the
// request was sent), all of them, in order, at 1 and at 64 streams at once.
// How late they are is schedule_timing_test.go's business; here they only
// have to come within 10 s.
func TestScheduleNeverEarly(t *testing.T) {
	srv := start(t, schedule)
	for path, body := range bodies {
		for _, conc := range []int{1, 64} {
			t.Run(fmt.Sprintf("%s/conc=%d", path, conc), func(t *testing.T) {
				c := newClient(t, conc)
				out := make([]result, conc)
				var wg sync.WaitGroup
				for i := range conc {
					wg.Go(func() { out[i] = do(context.Background(), c, srv.URL, path, body) })
				}
				wg.Wait()
				for _, res := range out {
					require.NoError(t, res.err)
					_, end, tokens := firstTokenAndEnd(t, path, res.lines)
					require.Len(t, tokens, scheduleN)
					for i, at := range tokens {
						assert.GreaterOrEqual(t, at, schedule.Offset(i), "token %d early", i)
					}
					assert.GreaterOrEqual(t, end, schedule.Offset(scheduleN), "end early")
					assert.Less(t, end, schedule.Offset(scheduleN)+10*time.Second)
				}
			})
		}
	}
}

// Close with streams in flight returns at once, the streams end with an
// error (never a clean end), and nothing is left running.
func TestCloseInFlight(t *testing.T) {
	before := runtime.NumGoroutine()
	srv, err := sim.Start(sim.Config{TTFT: 0, TokensPerSec: 100})
	require.NoError(t, err)
	c := newClient(t, 16)

	const streams = 16
	started := make(chan struct{}, streams)
	results := make(chan result, streams)
	for i := range streams {
		path := "/api/chat"
		body := `{"messages":[{"content":"hi"}],"options":{"num_predict":8000}}`
		if i%2 == 1 {
			path = "/v1/chat/completions"
			body = `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":8000}`
		}
		go func() {
			results <- doNotify(c, srv.URL, path, body, started)
		}()
	}
	for range streams {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("streams did not start")
		}
	}
	assert.Equal(t, streams, srv.Active())

	t0 := time.Now()
	srv.Close()
	took := time.Since(t0)
	t.Logf("Close took %v", took)
	// At once: within microseconds of the cancel on an idle machine; 2 s
	// leaves room for a loaded one.
	assert.Less(t, took, 2*time.Second)
	assert.Equal(t, 0, srv.Active())
	srv.Close() // idempotent

	for range streams {
		select {
		case res := <-results:
			assert.Error(t, res.err, "a stream cut by Close must not end cleanly")
			assert.ErrorIs(t, res.err, io.ErrUnexpectedEOF)
		case <-time.After(2 * time.Second):
			t.Fatal("a stream did not end after Close")
		}
	}
	c.CloseIdleConnections()

	// New connections are refused.
	_, err = c.Get(srv.URL + "/health")
	assert.Error(t, err)

	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// doNotify is do, signalling started once the first line has arrived.
func doNotify(c interface {
	Do(*http.Request) (*http.Response, error)
}, url, path, body string, started chan<- struct{}) result {
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		started <- struct{}{}
		return result{err: err}
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	once := false
	for {
		_, err := br.ReadBytes('\n')
		if !once {
			once = true
			started <- struct{}{}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return result{err: err}
		}
	}
}

// A client that goes away ends its stream on the server at once.
func TestClientCancel(t *testing.T) {
	srv := start(t, sim.Config{TTFT: 0, TokensPerSec: 100})
	c := newClient(t, 2)
	for path, body := range map[string]string{
		"/api/chat":            `{"messages":[{"content":"hi"}],"options":{"num_predict":8000}}`,
		"/v1/chat/completions": `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":8000}`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan result, 1)
		go func() { done <- do(ctx, c, srv.URL, path, body) }()
		require.Eventually(t, func() bool { return srv.Active() == 1 }, 2*time.Second, time.Millisecond)
		time.Sleep(30 * time.Millisecond)
		cancel()
		res := <-done
		assert.ErrorIs(t, res.err, context.Canceled)
		assert.Eventually(t, func() bool { return srv.Active() == 0 }, 2*time.Second, time.Millisecond, path)
	}
}

// A client that stops reading leaves its handler blocked in a write; Close
// still returns promptly.
func TestCloseStuckClient(t *testing.T) {
	srv, err := sim.Start(sim.Config{TTFT: 0, TokensPerSec: 1e6})
	require.NoError(t, err)
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	body := `{"messages":[{"content":"hi"}],"options":{"num_predict":800000}}`
	_, err = fmt.Fprintf(conn, "POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return srv.Active() == 1 }, time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond) // the socket buffers fill up
	t0 := time.Now()
	srv.Close()
	t.Logf("Close took %v", time.Since(t0))
	assert.Less(t, time.Since(t0), 2*time.Second) // about 250 ms: Shutdown's grace

	assert.Equal(t, 0, srv.Active())
}
