package runtimes

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Round sends reqs at once, one request each, and waits for all of them.
// The goroutines are started before the clock and released together, so
// starting them costs nothing in the figures. wall runs from the release to
// the last request's end as its own clock stamped it (the end of its
// stream, or its failure), so the work a client does after a stream has
// ended, such as draining the connection for reuse, is not counted.
func (rt *Runtime) Round(ctx context.Context, reqs []Request) (wall time.Duration, results []Result) {
	n := len(reqs)
	results = make([]Result, n)
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-release
			results[i] = rt.Do(ctx, reqs[i])
		}()
	}
	ready.Wait()
	start := time.Now()
	close(release)
	done.Wait()
	for _, r := range results {
		if r.Start.IsZero() {
			// Failed before it was sent: no stamps to go by.
			wall = max(wall, time.Since(start))
			continue
		}
		wall = max(wall, r.Start.Add(r.Total).Sub(start))
	}
	return wall, results
}

// Copies returns n copies of req, for a Round of identical requests.
func Copies(req Request, n int) []Request { return slices.Repeat([]Request{req}, n) }
