//go:build timing

// How closely a client sees the slots and the batch slowdown: the verdict
// depends on how promptly the machine wakes goroutines, so these run apart
// (go test -tags timing -p 1). slots_test.go checks the same for what load
// cannot change.

package sim_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// SIM_SLOTS=2, 4 requests at once: the first two see TTFT within 2 ms (the
// suite's TTFT bound, README); the queued two start when the first two
// end, so their first tokens come n/rate + TTFT after those of the first
// two, within 2 ms too: a queued stream's t0 is the end of the schedule
// before it, not of that stream's (late) writes. As in TestSchedule, one
// good try of three will do: the client's own goroutines can be held up.
func TestSlotsTTFT(t *testing.T) {
	const n = 20
	cfg := sim.Config{TTFT: 20 * time.Millisecond, TokensPerSec: 500, Slots: 2}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			srv := start(t, cfg)
			c := newClient(t, 4)
			concurrently(t, c, srv.URL, path, slotBody(path, n), 4) // open the connections
			var msgs []string
			for try := range 3 {
				var ttfts []time.Duration
				var firsts []time.Time
				for _, o := range concurrently(t, c, srv.URL, path, slotBody(path, n), 4) {
					require.NoError(t, o.err)
					ttfts = append(ttfts, o.firstToken().Sub(o.sent))
					firsts = append(firsts, o.firstToken())
				}
				slices.Sort(ttfts)
				slices.SortFunc(firsts, time.Time.Compare)
				t.Logf("try %d: TTFTs %v", try, ttfts)
				msgs = nil
				for _, d := range ttfts[:2] {
					if d < cfg.TTFT || d > cfg.TTFT+2*time.Millisecond {
						msgs = append(msgs, fmt.Sprintf("TTFT %v, want %v + 2 ms", d, cfg.TTFT))
					}
				}
				for i := 2; i < 4; i++ {
					if gap := firsts[i].Sub(firsts[i-2]); gap < cfg.Offset(n)-2*time.Millisecond || gap > cfg.Offset(n)+2*time.Millisecond {
						msgs = append(msgs, fmt.Sprintf("queued stream's first token %v after the first's, want %v ± 2 ms", gap, cfg.Offset(n)))
					}
				}
				if len(msgs) == 0 {
					return
				}
			}
			t.Errorf("slots not kept to schedule: %v", msgs)
		})
	}
}

// SIM_BATCH_SLOWDOWN: the decode rate a client reads, n/(end - first
// token), is rate/(1+f(m-1)) within 3% at m = 1, 2, 3 (over 60 tokens at
// 333-1000 tok/s, 3% is 2-5 ms: the schedule's lateness). The m requests
// must overlap for all that time: a try whose requests went out more than
// 5 ms apart does not count (one of three must).
func TestBatchSlowdownRate(t *testing.T) {
	const n = 60
	for _, m := range []int{1, 2, 3} {
		cfg := sim.Config{TTFT: 50 * time.Millisecond, TokensPerSec: 1000, BatchSlowdown: 1}
		rate := cfg.TokensPerSec / float64(m)
		for _, path := range paths {
			t.Run(fmt.Sprintf("m=%d%s", m, path), func(t *testing.T) {
				srv := start(t, cfg)
				c := newClient(t, m)
				concurrently(t, c, srv.URL, path, slotBody(path, n), m) // open the connections
				var msgs []string
				for try := range 3 {
					out := concurrently(t, c, srv.URL, path, slotBody(path, n), m)
					var sent []time.Time
					msgs = nil
					for _, o := range out {
						require.NoError(t, o.err)
						sent = append(sent, o.sent)
						got := float64(n) / o.lines[len(o.lines)-1].Sub(o.firstToken()).Seconds()
						t.Logf("try %d: %.1f tok/s, want %.1f", try, got, rate)
						if r := got / rate; r < 0.97 || r > 1.03 {
							msgs = append(msgs, fmt.Sprintf("%.1f tok/s, want %.1f ± 3%%", got, rate))
						}
					}
					spread := slices.MaxFunc(sent, time.Time.Compare).Sub(slices.MinFunc(sent, time.Time.Compare))
					if spread > 5*time.Millisecond {
						t.Logf("try %d: requests %v apart: not counted", try, spread)
						continue
					}
					if len(msgs) == 0 {
						return
					}
				}
				t.Errorf("no good try: %v", msgs)
			})
		}
	}
}
