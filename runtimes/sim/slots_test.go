package sim_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// stamped is a streamed reply whose lines are stamped with the wall clock.
type stamped struct {
	sent    time.Time   // just before Do
	headers time.Time   // Do returned
	lines   []time.Time // each non-empty line
	texts   []string
	err     error
}

// firstToken is when the first token chunk came.
func (s stamped) firstToken() time.Time {
	for i, l := range s.texts {
		if strings.Contains(l, `"content":" `) {
			return s.lines[i]
		}
	}
	return time.Time{}
}

// concurrently sends conc copies of body at once on c and reads each reply
// line by line, stamping each with time.Now.
func concurrently(t *testing.T, c *http.Client, url, path, body string, conc int) []stamped {
	t.Helper()
	out := make([]stamped, conc)
	var wg sync.WaitGroup
	for i := range conc {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
			if err != nil {
				out[i].err = err
				return
			}
			out[i].sent = time.Now()
			resp, err := c.Do(req)
			out[i].headers = time.Now()
			if err != nil {
				out[i].err = err
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if sc.Text() != "" {
					out[i].lines = append(out[i].lines, time.Now())
					out[i].texts = append(out[i].texts, sc.Text())
				}
			}
			out[i].err = sc.Err()
		})
	}
	wg.Wait()
	return out
}

// slotBody asks for n tokens.
func slotBody(path string, n int) string {
	if path == ollamaPath {
		return fmt.Sprintf(`{"messages":[{"content":"hi"}],"options":{"num_predict":%d}}`, n)
	}
	return fmt.Sprintf(`{"messages":[{"content":"hi"}],"stream":true,"max_tokens":%d}`, n)
}

// SIM_SLOTS=2, 4 requests at once: two start on schedule, the other two
// when the first two end: their t0 is exactly the end of a first one's
// schedule.
func TestSlots(t *testing.T) {
	const n = 20
	cfg := sim.Config{TTFT: 20 * time.Millisecond, TokensPerSec: 500, Slots: 2}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			var mu sync.Mutex
			var t0s []time.Time
			srv, err := sim.StartTapped(cfg, sim.Tap{Start: func(_ *http.Request, t0 time.Time) {
				mu.Lock()
				t0s = append(t0s, t0)
				mu.Unlock()
			}})
			require.NoError(t, err)
			t.Cleanup(srv.Close)

			origin := time.Now()
			out := concurrently(t, newClient(t, 4), srv.URL, path, slotBody(path, n), 4)
			firsts := make([]time.Time, 4)
			for i, o := range out {
				require.NoError(t, o.err)
				firsts[i] = o.firstToken()
				require.False(t, firsts[i].IsZero())
			}
			slices.SortFunc(firsts, time.Time.Compare)
			mu.Lock()
			slices.SortFunc(t0s, time.Time.Compare)
			require.Len(t, t0s, 4)
			// The two queued ones start exactly when a first one's schedule
			// ends (Start reports each t0 once it has a slot).
			for _, late := range t0s[2:] {
				assert.True(t, late.Equal(t0s[0].Add(cfg.Offset(n))) || late.Equal(t0s[1].Add(cfg.Offset(n))),
					"t0 %v is not the end of either first stream (%v, %v)", late.Sub(origin), t0s[0].Add(cfg.Offset(n)).Sub(origin), t0s[1].Add(cfg.Offset(n)).Sub(origin))
			}
			mu.Unlock()
			// Seen by the client: the first two on schedule, the other two
			// never before a first one ended plus TTFT.
			for _, f := range firsts[:2] {
				assert.GreaterOrEqual(t, f.Sub(origin), cfg.TTFT)
			}
			for _, f := range firsts[2:] {
				assert.GreaterOrEqual(t, f.Sub(origin), cfg.Offset(n)+cfg.TTFT, "queueing shows in TTFT")
			}
			// /metrics saw the wait: two queued about n/rate each.
			e := scrape(t, newClient(t, 1), srv.URL)
			assert.Equal(t, 4.0, e.get(t, `vllm:request_queue_time_seconds_count{model_name="sim-model"}`))
			assert.GreaterOrEqual(t, e.get(t, `vllm:request_queue_time_seconds_sum{model_name="sim-model"}`), cfg.Offset(n).Seconds())
		})
	}
}

// A request waiting for a slot has its headers, and OpenAI's role chunk,
// at once: they come while it waits behind a stream that never ends.
func TestSlotsHeadersAtOnce(t *testing.T) {
	srv := start(t, sim.Config{TTFT: 0, TokensPerSec: 100, Slots: 1})
	c := newClient(t, 2)
	for _, path := range paths {
		ctx, cancel := context.WithCancel(context.Background())
		lines, _ := readLines(ctx, t, c, srv.URL, path, slotBody(path, 8000))
		awaitTokens(t, path, lines, 1) // the slot holder streams
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, strings.NewReader(slotBody(path, 3)))
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err, "%s: the headers while waiting", path)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		if path == openaiPath {
			l, err := bufio.NewReader(resp.Body).ReadString('\n')
			require.NoError(t, err)
			assert.Contains(t, l, `"delta":{"role":"assistant","content":""}`, "the role chunk while waiting")
		}
		// It waits (its headers were written before it asked for a slot),
		// and cannot get one while the holder streams.
		assert.Eventually(t, func() bool {
			return scrape(t, c, srv.URL).get(t, `vllm:num_requests_waiting{model_name="sim-model"}`) == 1
		}, 5*time.Second, time.Millisecond, "%s: waiting", path)
		cancel()
		resp.Body.Close()
		require.Eventually(t, func() bool { return srv.Active() == 0 }, 5*time.Second, time.Millisecond)
	}
}

// SIM_BATCH_SLOWDOWN=f: with m streams decoding at once each decodes at
// rate/(1+f(m-1)). Ollama's eval_duration is the scheduled decode time:
// within 5% of n at that rate. In both protocols no stream ends before n
// tokens at that rate would (a server without the slowdown would). That
// needs the m streams to decode together from start to end: a try counts
// only if the server started them (each wave, with slots) within 5 ms of
// each other (the server's t0s); a loaded machine can spread them out, so
// one good try of five will do, and the test is skipped if no try counts.
// How close to the schedule the client sees the end depends on load:
// slots_timing_test.go checks 3%. TestPacer checks the deadlines exactly.
func TestBatchSlowdown(t *testing.T) {
	const n = 60
	for _, tc := range []struct {
		f           float64
		slots, conc int
		m           int // streams decoding at once
	}{
		{0.5, 0, 1, 1},
		{0.5, 0, 3, 3},
		{1, 0, 2, 2},
		{1, 2, 4, 2}, // the queued ones do not slow the others
	} {
		// A long TTFT: the streams are all there before any decodes.
		cfg := sim.Config{TTFT: 100 * time.Millisecond, TokensPerSec: 1000, Slots: tc.slots, BatchSlowdown: tc.f}
		rate := cfg.TokensPerSec / (1 + tc.f*float64(tc.m-1))
		wave := cmp.Or(tc.slots, tc.conc)
		for _, path := range paths {
			t.Run(fmt.Sprintf("f=%v/slots=%d/conc=%d%s", tc.f, tc.slots, tc.conc, path), func(t *testing.T) {
				var mu sync.Mutex
				var t0s []time.Time
				srv, err := sim.StartTapped(cfg, sim.Tap{Start: func(_ *http.Request, t0 time.Time) {
					mu.Lock()
					t0s = append(t0s, t0)
					mu.Unlock()
				}})
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				c := newClient(t, tc.conc)
				var msgs []string
				counted := 0
				for try := range 5 {
					mu.Lock()
					t0s = nil
					mu.Unlock()
					origin := time.Now()
					out := concurrently(t, c, srv.URL, path, slotBody(path, n), tc.conc)
					mu.Lock()
					starts := slices.SortedFunc(slices.Values(t0s), time.Time.Compare)
					mu.Unlock()
					require.Len(t, starts, tc.conc)
					var spread time.Duration
					for w := 0; w < len(starts); w += wave {
						spread = max(spread, starts[w+wave-1].Sub(starts[w]))
					}
					if spread > 5*time.Millisecond {
						t.Logf("try %d: started %v apart: not counted", try, spread)
						continue
					}
					counted++
					msgs = nil
					var ends []time.Time
					for _, o := range out {
						require.NoError(t, o.err)
						first, end := o.firstToken(), o.lines[len(o.lines)-1]
						ends = append(ends, end)
						t.Logf("try %d: client %.1f tok/s, want %.1f", try, float64(n)/end.Sub(first).Seconds(), rate)
						if path == ollamaPath {
							var fin ndjsonChunk
							decodeStrict(t, o.texts[len(o.texts)-1], &fin)
							if got := float64(n) / (float64(*fin.EvalDuration) / 1e9); got < rate*0.95 || got > rate*1.05 {
								msgs = append(msgs, fmt.Sprintf("eval_duration: %.1f tok/s, want %.1f ± 5%%", got, rate))
							}
						}
					}
					// Never faster: the k-th end (0-based) comes after k/slots
					// whole streams before it and its own.
					slices.SortFunc(ends, time.Time.Compare)
					one := cfg.TTFT + time.Duration(float64(n)/rate*float64(time.Second))
					for k, end := range ends {
						if want := time.Duration(1+k/wave) * one * 97 / 100; end.Sub(origin) < want {
							msgs = append(msgs, fmt.Sprintf("end %d at %v, before %v", k, end.Sub(origin), want))
						}
					}
					if len(msgs) == 0 {
						return
					}
				}
				if counted == 0 {
					t.Skip("the machine never started the streams together: nothing to check")
				}
				t.Errorf("slowdown not kept: %v", msgs)
			})
		}
	}
}

// Close ends the requests waiting for a slot too: their clients read an
// error, never a clean end, and nothing is left running (TestMain checks
// for leaks).
func TestSlotsClose(t *testing.T) {
	srv, err := sim.Start(sim.Config{TTFT: 0, TokensPerSec: 100, Slots: 1})
	require.NoError(t, err)
	c := newClient(t, 4)
	results := make(chan result, 4)
	for _, path := range append(paths, paths...) {
		go func() { results <- do(context.Background(), c, srv.URL, path, slotBody(path, 8000)) }()
	}
	require.Eventually(t, func() bool {
		e := scrape(t, c, srv.URL)
		return e.get(t, `vllm:num_requests_running{model_name="sim-model"}`) == 1 &&
			e.get(t, `vllm:num_requests_waiting{model_name="sim-model"}`) == 3
	}, 5*time.Second, 5*time.Millisecond)
	srv.Close()
	for range 4 {
		select {
		case res := <-results:
			assert.ErrorIs(t, res.err, io.ErrUnexpectedEOF)
		case <-time.After(5 * time.Second):
			t.Fatal("a request did not end after Close")
		}
	}
	assert.Equal(t, 0, srv.Active())
}
