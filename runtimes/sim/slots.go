package sim

import (
	"context"
	"slices"
	"sync"
	"time"
)

// slots admits chat requests to their schedule: at most cap decode at once
// (0: no limit), the others wait in the order they asked. A request's t0 is
// when it gets a slot: at once, or when a slot frees for it.
type slots struct {
	cap int

	mu      sync.Mutex
	free    []time.Time // when each free slot was freed (cap > 0)
	queue   []*waiter
	running int // requests holding a slot
}

type waiter struct {
	arrival time.Time
	t0      chan time.Time // buffered: the t0 it is given
}

func newSlots(n int) *slots { return &slots{cap: n, free: make([]time.Time, n)} }

// acquire waits for a slot for a request that arrived at arrival and
// returns its t0: max(arrival, when the slot it gets was freed). A slot is
// freed at the moment its holder called release with. It returns ctx's
// error, and no slot, if ctx ends first.
func (s *slots) acquire(ctx context.Context, arrival time.Time) (time.Time, error) {
	s.mu.Lock()
	if s.cap == 0 {
		s.running++
		s.mu.Unlock()
		return arrival, nil
	}
	if len(s.queue) == 0 && len(s.free) > 0 {
		// The slot freed first: the earliest t0.
		i := 0
		for j, t := range s.free {
			if t.Before(s.free[i]) {
				i = j
			}
		}
		freed := s.free[i]
		s.free = slices.Delete(s.free, i, i+1)
		s.running++
		s.mu.Unlock()
		return later(arrival, freed), nil
	}
	w := &waiter{arrival: arrival, t0: make(chan time.Time, 1)}
	s.queue = append(s.queue, w)
	s.mu.Unlock()
	select {
	case t0 := <-w.t0:
		return t0, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if i := slices.Index(s.queue, w); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
		s.mu.Unlock()
		return time.Time{}, ctx.Err()
	}
	s.mu.Unlock()
	s.release(time.Now()) // given a slot meanwhile: pass it on
	return time.Time{}, ctx.Err()
}

// release frees the caller's slot at the moment at (not after now): the
// first waiter, if any, gets it with t0 max(its arrival, at).
func (s *slots) release(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cap > 0 && len(s.queue) > 0 {
		w := s.queue[0]
		s.queue = slices.Delete(s.queue, 0, 1)
		w.t0 <- later(w.arrival, at)
		return
	}
	s.running--
	if s.cap > 0 {
		s.free = append(s.free, at)
	}
}

// counts is the number of requests holding a slot and waiting for one.
func (s *slots) counts() (running, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, len(s.queue)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
