package runtimes

import (
	"context"
	"sync"
	"time"
)

// Round sends n copies of req at once and waits for all of them. The
// goroutines are started before the clock and released together, so
// starting them costs nothing in the figures. wall runs from the release to
// the last request's end as its own clock stamped it (the end of its
// stream, or its failure), so the work a client does after a stream has
// ended, such as draining the connection for reuse, is not counted.
func (rt *Runtime) Round(ctx context.Context, req Request, n int) (wall time.Duration, results []Result) {
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
			results[i] = rt.Do(ctx, req)
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
