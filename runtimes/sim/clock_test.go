package sim

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClockHeap(t *testing.T) {
	c := &clock{}
	var want []int64
	for range 500 {
		w := rand.Int64N(1000)
		want = append(want, w)
		c.push(entry{when: w})
	}
	var got []int64
	for len(c.q) > 0 {
		got = append(got, c.pop().when)
	}
	require.Len(t, got, len(want))
	for i := 1; i < len(got); i++ {
		assert.LessOrEqual(t, got[i-1], got[i])
	}
}

// Many sleepers with deadlines in random order all wake, none early.
func TestClockWakesEveryoneOnTime(t *testing.T) {
	for _, timers := range []bool{false, true} {
		useRuntimeTimers = timers
		c, err := newClock()
		useRuntimeTimers = false
		require.NoError(t, err)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var worst time.Duration
		for range 200 {
			wg.Go(func() {
				s := newSleeper()
				for range 5 {
					dl := time.Now().Add(time.Duration(rand.Int64N(int64(10 * time.Millisecond))))
					assert.NoError(t, c.sleepUntil(context.Background(), s, dl))
					late := time.Since(dl)
					mu.Lock()
					worst = max(worst, late)
					mu.Unlock()
					if late < 0 {
						t.Errorf("woke %v early", -late)
					}
				}
			})
		}
		wg.Wait()
		t.Logf("runtime timers %v: worst lateness %v", timers, worst)
		c.stop()
		c.stop() // idempotent
		assert.ErrorIs(t, c.sleepUntil(context.Background(), newSleeper(), time.Now().Add(time.Hour)), errClockStopped)
	}
}

func TestClockCancel(t *testing.T) {
	c, err := newClock()
	require.NoError(t, err)
	defer c.stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.sleepUntil(ctx, newSleeper(), time.Now().Add(time.Hour)) }()
	time.Sleep(5 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("cancel did not end the sleep")
	}
	// A later, earlier deadline still wakes although the cancelled one is
	// still in the heap, and not early (how late: clock_timing_test.go).
	dl := time.Now().Add(10 * time.Millisecond)
	require.NoError(t, c.sleepUntil(context.Background(), newSleeper(), dl))
	assert.GreaterOrEqual(t, time.Since(dl), time.Duration(0))
	// A deadline that has passed returns at once.
	require.NoError(t, c.sleepUntil(context.Background(), newSleeper(), time.Now().Add(-time.Second)))
}

func TestMaxTokens(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	assert.Equal(t, DefaultMaxTokens, maxTokens())
	assert.Equal(t, DefaultMaxTokens, maxTokens(nil, nil))
	assert.Equal(t, DefaultMaxTokens, maxTokens(f(0), f(-1)))
	assert.Equal(t, 5, maxTokens(f(5.9)))
	assert.Equal(t, 7, maxTokens(f(0), f(7)))
	assert.Equal(t, 7, maxTokens(f(7), f(9)))
	assert.Equal(t, int(^uint32(0)>>1), maxTokens(f(1e300)))
}
