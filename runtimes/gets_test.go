package runtimes

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The metadata GETs go a few at a time; one that timed out while others
// were in flight is asked again alone and read; one that fails (HTTP
// 5xx, or no answer even alone) is named in the unread list with why;
// one the server does not have (404) is not.
func TestGetAllRetriesAndSaysWhatIsLost(t *testing.T) {
	const timeout = 150 * time.Millisecond
	var inFlight, most atomic.Int32
	var slowOnce sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		switch r.URL.Path {
		case "/api/version": // lost the first time, as behind a busy thread
			stall := false
			slowOnce.Do(func() { stall = true })
			if stall {
				<-r.Context().Done()
				return
			}
			w.Write([]byte(`{"version":"1.2.3"}`))
		case "/props":
			http.Error(w, `{"error":"busy"}`, http.StatusInternalServerError)
		case "/info": // never answers
			<-r.Context().Done()
		case "/version", "/api/v0/models":
			http.NotFound(w, r)
		default:
			w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(ts.Close)
	rt, err := New(Config{Name: "x", Kind: KindOpenAI, URL: ts.URL})
	require.NoError(t, err)
	paths := []string{"/api/version", "/version", "/props", "/api/v0/models", "/info", "/a", "/b"}
	bodies, lost := rt.getAllWithin(t.Context(), paths, timeout)
	assert.JSONEq(t, `{"version":"1.2.3"}`, string(bodies["/api/version"]), "read when asked again alone")
	assert.LessOrEqual(t, most.Load(), int32(metaParallel), "never more than metaParallel at once")
	require.Len(t, lost, 2, "%q", lost)
	assert.Contains(t, lost[0], "GET /props: ")
	assert.Contains(t, lost[0], "HTTP 500")
	assert.Equal(t, "GET /info: no answer within 150ms while others were in flight, nor within 1s asked again alone", lost[1])
}
