package runtimes

import (
	"context"
	"sync"
	"time"
)

// Round sends n copies of req at once and waits for all of them. Wall runs
// from the release of the n requests to the end of the last one. The
// goroutines are started before the clock and released together, so
// starting them costs nothing in the figures.
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
	return time.Since(start), results
}
