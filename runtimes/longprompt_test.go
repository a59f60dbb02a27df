package runtimes

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inFlightHeap is the heap held per request while n requests of prompt
// are in flight: a server that reads and drops each body and answers only
// once all n have arrived, in this process; so the figure includes its
// connections' buffers, the same for any prompt.
func inFlightHeap(t *testing.T, n int, prompt string) float64 {
	t.Helper()
	var arrived sync.WaitGroup
	arrived.Add(n)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		arrived.Done()
		<-release
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	rt, err := New(Config{Name: "m", Kind: KindOpenAI, URL: srv.URL, Model: "m", Client: &http.Client{Transport: NewTransport(n)}})
	require.NoError(t, err)
	heap := func() uint64 {
		// Twice: a pool's objects (encoding/json's buffers) outlive one.
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	// Each request holds its own copy of the prompt, as a cold request's
	// marker line makes one.
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Prompt: "[marker " + string(rune('a'+i)) + "]\n" + prompt, MaxTokens: 1}
	}
	var done sync.WaitGroup
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			assert.NoError(t, rt.Do(context.Background(), reqs[i]).Err)
		}()
	}
	waited := make(chan struct{})
	go func() { arrived.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("the requests did not all arrive")
	}
	inflight := heap()
	close(release)
	done.Wait()
	runtime.KeepAlive(reqs)
	return (float64(inflight) - float64(before)) / float64(n)
}

// The client's memory per in-flight request of a 32k-token prompt stays
// within twice the prompt's own size: the prompt as the caller holds it,
// and the request's body, beyond what any request holds.
func TestLongPromptMemoryPerRequest(t *testing.T) {
	const n = 8
	prompt := strings.Repeat("The quiet river carries a letter across the old bridge. ", 2400) // 131 KiB, about 32k tokens
	base := inFlightHeap(t, n, "x")
	long := inFlightHeap(t, n, prompt)
	p := float64(len(prompt))
	t.Logf("per in-flight request: %.1f KiB with a one-byte prompt, %.1f KiB with a %.0f KiB prompt: %.2f× the prompt more",
		base/1024, long/1024, p/1024, (long-base)/p)
	assert.Less(t, long-base, 2*p, "the prompt and its body, no more")
}
