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
	running int    // requests holding a slot
	asked   uint64 // requests that asked for one, since the start
}

type waiter struct {
	arrival time.Time
	got     chan grant // buffered: the slot it is given
}

// grant is a slot given: its holder's t0, and the number of requests
// holding a slot then, its holder included.
type grant struct {
	t0      time.Time
	running int
}

func newSlots(n int) *slots { return &slots{cap: n, free: make([]time.Time, n)} }

// acquire waits for a slot for a request that arrived at arrival and
// returns its t0, max(arrival, when the slot it gets was freed), and the
// number of requests holding a slot at that moment, itself included. A
// slot is freed at the moment its holder called release with. It returns
// ctx's error, and no slot, if ctx ends first.
func (s *slots) acquire(ctx context.Context, arrival time.Time) (time.Time, int, error) {
	s.mu.Lock()
	s.asked++
	if s.cap == 0 {
		s.running++
		running := s.running
		s.mu.Unlock()
		return arrival, running, nil
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
		running := s.running
		s.mu.Unlock()
		return later(arrival, freed), running, nil
	}
	w := &waiter{arrival: arrival, got: make(chan grant, 1)}
	s.queue = append(s.queue, w)
	s.mu.Unlock()
	select {
	case g := <-w.got:
		return g.t0, g.running, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if i := slices.Index(s.queue, w); i >= 0 {
		s.queue = slices.Delete(s.queue, i, i+1)
		s.mu.Unlock()
		return time.Time{}, 0, ctx.Err()
	}
	s.mu.Unlock()
	s.release(time.Now()) // given a slot meanwhile: pass it on
	return time.Time{}, 0, ctx.Err()
}

// release frees the caller's slot at the moment at (not after now): the
// first waiter, if any, gets it with t0 max(its arrival, at).
func (s *slots) release(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cap > 0 && len(s.queue) > 0 {
		w := s.queue[0]
		s.queue = slices.Delete(s.queue, 0, 1)
		// The slot passes on: as many hold one as before.
		w.got <- grant{later(w.arrival, at), s.running}
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

// requests is the number of requests that asked for a slot since the
// start, and of those holding one and waiting for one now.
func (s *slots) requests() (asked uint64, running, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked, s.running, len(s.queue)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
