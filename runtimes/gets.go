package runtimes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// A server may serve few connections at once: llama-server serves each
// on one of its HTTP threads (--threads-http, as few as 4 on a small
// machine) for as long as the connection is open, idle ones in a client's
// pool included, until its 5-s keep-alive ends; a connection beyond them
// waits unanswered. Asking every metadata endpoint at once opened more
// connections than it has threads: the last one's GET waited out its
// timeout while the others' idle connections held the threads, and its
// fact was lost (3 s at start, in 10 of 15 runs). So a server is asked
// at most metaParallel GETs at a time (its client's pool reuses their
// connections), a GET that timed out is asked again alone, and one that
// still cannot be read is named with why (Info.Unread, Probe.Unread).

// metaParallel is how many metadata GETs a server is asked at once.
const metaParallel = 2

// retryTimeout bounds a GET asked again alone: a server whose threads
// were all held answers it at once on a connection of the pool, and an
// endpoint that hangs costs a third more, not twice, its first timeout.
const retryTimeout = time.Second

// gotten is one metadata GET's answer; again: it was asked a second
// time, alone (retryAlone).
type gotten struct {
	body  []byte
	err   error
	again bool
}

// getEach GETs paths, at most metaParallel at once, each within timeout
// (0: ctx's own deadline only), in the order given.
func (rt *Runtime) getEach(ctx context.Context, paths []string, timeout time.Duration) []gotten {
	out := make([]gotten, len(paths))
	sem := make(chan struct{}, metaParallel)
	var wg sync.WaitGroup
	for i, path := range paths {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = rt.getWithin(ctx, path, timeout)
		})
	}
	wg.Wait()
	return out
}

func (rt *Runtime) getWithin(ctx context.Context, path string, timeout time.Duration) gotten {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	body, err := rt.get(ctx, http.MethodGet, path, nil)
	return gotten{body: body, err: err}
}

// lost reports whether err lost a fact: the server did not answer (no
// connection, a timeout, a broken reply) or failed (HTTP 5xx). An HTTP
// 4xx is its answer that it has no such endpoint: nothing was lost.
func lost(err error) bool {
	if err == nil {
		return false
	}
	var he *httpError
	return !errors.As(err, &he) || he.code >= 500
}

// retryAlone asks again, one at a time, each within retryTimeout, the paths
// whose GET timed out while others were in flight, if some other GET was
// answered (the server is there) and ctx still allows; got is updated.
func (rt *Runtime) retryAlone(ctx context.Context, paths []string, got []gotten) {
	answered := false
	for _, g := range got {
		answered = answered || g.err == nil || !lost(g.err)
	}
	for i, g := range got {
		if !answered || ctx.Err() != nil || ErrorClass(g.err) != ClassTimeout {
			continue
		}
		got[i] = rt.getWithin(ctx, paths[i], retryTimeout)
		got[i].again = true
	}
}

// unread names the GETs of paths whose facts were lost, and why: "GET
// /props: no answer within 3s".
func unread(paths []string, got []gotten, timeout time.Duration) []string {
	var out []string
	for i, g := range got {
		if !lost(g.err) {
			continue
		}
		why := g.err.Error()
		switch timedOut := ErrorClass(g.err) == ClassTimeout; {
		case timedOut && g.again:
			why = fmt.Sprintf("no answer within %v while others were in flight, nor within %v asked again alone", timeout, retryTimeout)
		case timedOut && timeout > 0:
			why = fmt.Sprintf("no answer within %v", timeout)
		case g.again:
			why += fmt.Sprintf(" (asked again alone, after no answer within %v while others were in flight)", timeout)
		}
		out = append(out, "GET "+paths[i]+": "+why)
	}
	return out
}
