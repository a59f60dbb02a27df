package sim

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"
)

// clock wakes goroutines at absolute deadlines. One goroutine keeps every
// pending deadline in a min-heap and sleeps (in a waker) until the earliest;
// streams park on their own channel. On Linux the waker is a timerfd read
// through the runtime's netpoller: the kernel's hrtimers wake it to the
// microsecond, where runtime timers (the netpoller waits in whole
// milliseconds) wake up to a millisecond late.
type clock struct {
	base time.Time // monotonic origin of the int64 nanosecond times below

	mu      sync.Mutex
	q       []entry // min-heap on when
	armed   int64   // what the waker is set for; noDeadline for nothing
	stopped bool

	w    waker
	done chan struct{}
}

const noDeadline = math.MaxInt64

type entry struct {
	when int64
	s    *sleeper
}

// sleeper is one stream's parking place. Never reuse one after a wait that
// ended by cancellation: its heap entry may still fire into it.
type sleeper struct{ c chan struct{} }

func newSleeper() *sleeper { return &sleeper{c: make(chan struct{}, 1)} }

// waker is how the clock loop sleeps.
type waker interface {
	// arm sets the waker to go off d from now (at once if d <= 0), replacing
	// any earlier setting; d == noWake disarms it. It is called with the
	// clock's mutex held, possibly while the loop is in wait, and must not
	// block.
	arm(d time.Duration)
	// wait blocks until the waker goes off. It may return early.
	wait()
	// close releases the waker once the loop has ended.
	close()
}

const noWake = time.Duration(-1 << 63)

// useRuntimeTimers makes new clocks use the runtime's timers even where a
// finer waker exists (tests compare the two).
var useRuntimeTimers = false

var errClockStopped = errors.New("sim: clock stopped")

func newClock() (*clock, error) {
	var w waker = newTimerWaker()
	if !useRuntimeTimers {
		// Where the finer waker cannot be had (a sandbox that forbids
		// timerfd, say), the runtime's timers still work, only coarser.
		if pw, err := newPlatformWaker(); err == nil && pw != nil {
			w = pw
		}
	}
	c := &clock{base: time.Now(), armed: noDeadline, w: w, done: make(chan struct{})}
	go c.run()
	return c, nil
}

// now is the time on the clock's own scale.
func (c *clock) now() int64 { return int64(time.Since(c.base)) }

// sleepUntil blocks until t or until ctx is done, whichever is first. It
// returns at once, with ctx.Err(), if t has passed.
func (c *clock) sleepUntil(ctx context.Context, s *sleeper, t time.Time) error {
	when := int64(t.Sub(c.base))
	for {
		now := c.now()
		if now >= when {
			return ctx.Err()
		}
		c.mu.Lock()
		if c.stopped {
			c.mu.Unlock()
			return errClockStopped
		}
		c.push(entry{when, s})
		if when < c.armed {
			c.armed = when
			c.w.arm(time.Duration(when - c.now()))
		}
		c.mu.Unlock()
		select {
		case <-s.c:
			// Loop to make sure: a chunk is never early.
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *clock) run() {
	defer close(c.done)
	c.mu.Lock()
	for !c.stopped {
		now := c.now()
		for len(c.q) > 0 && c.q[0].when <= now {
			e := c.pop()
			select {
			case e.s.c <- struct{}{}:
			default:
			}
		}
		if len(c.q) > 0 {
			c.armed = c.q[0].when
			c.w.arm(time.Duration(c.armed - c.now()))
		} else {
			c.armed = noDeadline
			c.w.arm(noWake)
		}
		c.mu.Unlock()
		c.w.wait()
		c.mu.Lock()
	}
	c.q = nil
	c.mu.Unlock()
}

// stop ends the loop and waits for it. Pending sleepers are not woken (their
// contexts end them).
func (c *clock) stop() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		<-c.done
		return
	}
	c.stopped = true
	c.w.arm(0)
	c.mu.Unlock()
	<-c.done
	c.w.close()
}

func (c *clock) push(e entry) {
	c.q = append(c.q, e)
	i := len(c.q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if c.q[p].when <= c.q[i].when {
			break
		}
		c.q[p], c.q[i] = c.q[i], c.q[p]
		i = p
	}
}

func (c *clock) pop() entry {
	q := c.q
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q[last] = entry{}
	q = q[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(q) {
			break
		}
		m := l
		if r := l + 1; r < len(q) && q[r].when < q[l].when {
			m = r
		}
		if q[i].when <= q[m].when {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	c.q = q
	return top
}

// timerWaker sleeps on a runtime timer.
type timerWaker struct{ t *time.Timer }

func newTimerWaker() *timerWaker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerWaker{t: t}
}

func (w *timerWaker) arm(d time.Duration) {
	if d == noWake {
		w.t.Stop() // since Go 1.23 no stale tick survives Stop or Reset
		return
	}
	w.t.Reset(max(d, 0))
}

func (w *timerWaker) wait() { <-w.t.C }

func (w *timerWaker) close() { w.t.Stop() }
