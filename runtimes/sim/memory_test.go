package sim_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// liveHeap is the heap in use after a collection: what is kept.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // the second frees what the first's finalizers and pools let go
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The server keeps nothing per request: from N to 10N streamed chat
// requests, each of its own prompt (twelve prefixes new to the prompt
// cache) and 8 at a time, its retained heap grows by less than 64 bytes a
// request (0.9 to 4.1 measured; 258 when the prompt cache was two Go maps,
// which grew with the prefixes they were given up to 2^18 of them, some
// 9 MiB). Allocation counts, not time: it holds on a busy machine and
// under -race.
func TestRetainedHeapFlat(t *testing.T) {
	const (
		conc      = 8
		n         = 1000
		perReqMax = 64.0 // bytes a request
	)
	srv := start(t, sim.Config{TTFT: time.Nanosecond, TokensPerSec: 1e12}) // as fast as it can
	c := newClient(t, conc)
	serve := func(from, to int) {
		next := make(chan int)
		var wg sync.WaitGroup
		for range conc {
			wg.Go(func() {
				for i := range next {
					body := fmt.Sprintf(`{"model":"sim-model","stream":true,"max_tokens":4,`+
						`"messages":[{"role":"user","content":"request %d: one two three four five six seven eight"}]}`, i)
					res := do(context.Background(), c, srv.URL, "/v1/chat/completions", body)
					if res.err != nil || res.status != 200 {
						t.Errorf("request %d: HTTP %d, %v", i, res.status, res.err)
					}
				}
			})
		}
		for i := from; i < to; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	serve(0, n)
	atN := liveHeap()
	serve(n, 10*n)
	at10N := liveHeap()
	perReq := (float64(at10N) - float64(atN)) / (9 * n)
	t.Logf("retained heap %d B after %d requests, %d after %d: %.1f B a request", atN, n, at10N, 10*n, perReq)
	assert.Less(t, perReq, perReqMax, "retained heap's growth, bytes a request from %d to %d requests", n, 10*n)
}
