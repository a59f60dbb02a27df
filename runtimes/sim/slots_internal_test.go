package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Waiters get slots first come, first served, with t0 the later of their
// arrival and the moment the slot was freed; one that gives up leaves the
// queue, or passes on a slot it was given meanwhile. Each learns how many
// hold a slot with it.
func TestSlotsQueue(t *testing.T) {
	s := newSlots(1)
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }

	t0, n, err := s.acquire(context.Background(), at(0))
	require.NoError(t, err)
	assert.Equal(t, at(0), t0)
	assert.Equal(t, 1, n)

	type got struct {
		name    string
		t0      time.Time
		running int
		err     error
	}
	results := make(chan got, 3)
	wait := func(name string, arrival time.Time, ctx context.Context) {
		go func() {
			t0, n, err := s.acquire(ctx, arrival)
			results <- got{name, t0, n, err}
		}()
		require.Eventually(t, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.queue) > 0 && s.queue[len(s.queue)-1].arrival.Equal(arrival)
		}, time.Second, time.Millisecond)
	}
	ctxC, cancelC := context.WithCancel(context.Background())
	wait("b", at(1), context.Background())
	wait("c", at(2), ctxC)
	wait("d", at(3), context.Background())
	running, waiting := s.counts()
	assert.Equal(t, 1, running)
	assert.Equal(t, 3, waiting)

	cancelC() // c gives up while waiting
	g := <-results
	assert.Equal(t, "c", g.name)
	assert.ErrorIs(t, g.err, context.Canceled)

	s.release(at(50))
	g = <-results
	assert.Equal(t, got{"b", at(50), 1, nil}, g, "first come: b, at the moment the slot was freed")
	s.release(at(40)) // at is taken as given
	g = <-results
	assert.Equal(t, got{"d", at(40), 1, nil}, g)
	s.release(at(60))
	running, waiting = s.counts()
	assert.Equal(t, 0, running)
	assert.Equal(t, 0, waiting)

	// A free slot freed after the request arrived: t0 is when it was freed.
	t0, _, err = s.acquire(context.Background(), at(55))
	require.NoError(t, err)
	assert.Equal(t, at(60), t0)
	// ... and before: its arrival.
	s.release(at(70))
	t0, _, err = s.acquire(context.Background(), at(80))
	require.NoError(t, err)
	assert.Equal(t, at(80), t0)
	s.release(at(90))

	// No limit: t0 is the arrival, and the count is kept.
	s = newSlots(0)
	t0, n, err = s.acquire(context.Background(), at(5))
	require.NoError(t, err)
	assert.Equal(t, at(5), t0)
	assert.Equal(t, 1, n)
	_, n, err = s.acquire(context.Background(), at(5))
	require.NoError(t, err)
	assert.Equal(t, 2, n, "two at once")
	running, _ = s.counts()
	assert.Equal(t, 2, running)
	s.release(at(6))
	s.release(at(6))
	running, _ = s.counts()
	assert.Equal(t, 0, running)

	// Two slots: the second holder sees 2, one given a slot that passes on
	// sees as many as before.
	s = newSlots(2)
	_, n, _ = s.acquire(context.Background(), at(0))
	assert.Equal(t, 1, n)
	_, n, _ = s.acquire(context.Background(), at(0))
	assert.Equal(t, 2, n)
	wait("e", at(1), context.Background())
	s.release(at(10))
	assert.Equal(t, got{"e", at(10), 2, nil}, <-results)
}

// The pacer: without a slowdown, Config.Offset; with one, each token's
// deadline fixed from the one before at the step for the number of
// streams decoding when it is asked for, and never changed after.
func TestPacer(t *testing.T) {
	t0 := time.Now()
	cfg := Config{TTFT: 10 * time.Millisecond, TokensPerSec: 1000}
	p := pacer{cfg: &cfg, t0: t0, ttft: cfg.TTFT, rate: cfg.TokensPerSec}
	for i := range 50 {
		assert.Equal(t, t0.Add(cfg.Offset(i)), p.due(i))
	}
	// A later first token (prefill, load) and a slower rate (degraded).
	p = pacer{cfg: &cfg, t0: t0, ttft: 25 * time.Millisecond, rate: 250}
	assert.Equal(t, t0.Add(25*time.Millisecond), p.due(0))
	assert.Equal(t, t0.Add(25*time.Millisecond+40*time.Millisecond), p.due(10))

	cfg.BatchSlowdown = 0.5
	m := 1
	p = pacer{cfg: &cfg, t0: t0, ttft: cfg.TTFT, rate: cfg.TokensPerSec, decoding: func() int { return m }}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	assert.Equal(t, t0.Add(10*time.Millisecond), p.due(0), "the first token at TTFT")
	assert.Equal(t, ms(1), p.decode(1), "m = 1: 1/rate")
	m = 3
	assert.Equal(t, ms(3), p.decode(2), "m = 3: 2/rate more")
	assert.Equal(t, ms(5), p.decode(3))
	assert.Equal(t, ms(1), p.decode(1), "fixed: m no longer matters")
	m = 2
	assert.Equal(t, ms(8), p.decode(5), "two tokens at once, at m = 2: 1.5/rate each")
	assert.Equal(t, ms(6.5), p.decode(4))
	m = 0 // never less than the stream itself
	assert.Equal(t, ms(9), p.decode(6))
	assert.Equal(t, t0.Add(cfg.TTFT+ms(9)), p.due(6))
}
