package runtimes

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closingServer answers every request with a complete reply of kind k and
// then, like llama-server after a streamed reply, closes the connection a
// moment after the reply ended, while its headers promise keep-alive. A
// request that comes on such a connection in that moment is dropped
// unanswered: it never reaches the server, and the client sees the
// connection end before any byte of a reply.
func closingServer(t *testing.T, k Kind, served *atomic.Int64) *httptest.Server {
	t.Helper()
	var doomed sync.Map // net.Conn -> struct{}: closing after its reply
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.Context().Value(connKey{}).(net.Conn)
		if _, ok := doomed.Load(c); ok {
			panic(http.ErrAbortHandler)
		}
		io.Copy(io.Discard, r.Body)
		served.Add(1)
		w.Header().Set("Keep-Alive", "timeout=5, max=100")
		goodStream(w, k)
		doomed.Store(c, struct{}{})
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if _, ok := doomed.Load(c); ok && st == http.StateIdle {
			time.AfterFunc(time.Millisecond, func() { c.Close() })
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

type connKey struct{}

// A request whose pooled connection the server had already closed is sent
// again on a fresh one, and its clock starts at the resend: no failure,
// and no lost time in its TTFT.
func TestResendOnConnectionClosedAfterReply(t *testing.T) {
	for _, k := range bothKinds {
		t.Run(string(k), func(t *testing.T) {
			var served atomic.Int64
			srv := closingServer(t, k, &served)
			client := &http.Client{Transport: NewTransport(4)}
			t.Cleanup(client.CloseIdleConnections)
			rt, err := New(Config{Name: "closing", Kind: k, URL: srv.URL, Model: "m1", Timeout: 10 * time.Second, Client: client})
			require.NoError(t, err)

			const n = 40
			resent := 0
			for i := range n {
				res := rt.Do(context.Background(), Request{Prompt: "hi"})
				require.NoError(t, res.Err, "request %d", i)
				resent += res.Resent
				if res.Resent > 0 {
					assert.Less(t, res.TTFT, 500*time.Millisecond)
				}
			}
			assert.Positive(t, resent, "the server closed connections the client had pooled: some requests were resent")
			assert.Equal(t, int64(n), served.Load(), "each request reached the server once")
		})
	}
}

// The same against the simulator playing llama-server's habit
// (SIM_CLOSE_AFTER_STREAM): 200 requests at concurrency 1 and 4, in both
// protocols, none fails, and some were resent. (That their TTFT keeps the
// schedule's, to 2 ms, is a timing test: accuracy_test.go.)
func TestNoRequestLostToClosedConnections(t *testing.T) {
	for _, k := range bothKinds {
		for _, conc := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/conc=%d", k, conc), func(t *testing.T) {
				results := ClosingRounds(t, k, conc, 200, 0)
				resent := 0
				for i, r := range results {
					require.NoError(t, r.Err, "request %d", i)
					assert.Equal(t, 4, r.OutputTokens)
					resent += r.Resent
				}
				assert.Positive(t, resent, "the simulator closed connections the client had pooled")
				t.Logf("%d of %d requests were sent again on a fresh connection", resent, len(results))
			})
		}
	}
}
