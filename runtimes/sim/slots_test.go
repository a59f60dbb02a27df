package sim_test

import (
	"bufio"
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
		lines, _ := readLines(ctx, t, c, srv.URL, path, slotBody(path, 100000))
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
		e := scrape(t, c, srv.URL)
		assert.Equal(t, 1.0, e.get(t, `vllm:num_requests_waiting{model_name="sim-model"}`), "%s: still waiting", path)
		cancel()
		resp.Body.Close()
		require.Eventually(t, func() bool { return srv.Active() == 0 }, 5*time.Second, time.Millisecond)
	}
}

// SIM_BATCH_SLOWDOWN=f: with m streams decoding at once each decodes at
// rate/(1+f(m-1)). Ollama's eval_duration is the scheduled decode time:
// within 5% of n at that rate (the streams' arrivals are a little apart,
// so the first and last few tokens may run at another m). In both
// protocols no stream ends before n tokens at that rate would (a server
// without the slowdown would). How close to it the client sees the end
// depends on load: slots_timing_test.go checks 3%. TestPacer checks the
// deadlines exactly.
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
		for _, path := range paths {
			t.Run(fmt.Sprintf("f=%v/slots=%d/conc=%d%s", tc.f, tc.slots, tc.conc, path), func(t *testing.T) {
				srv := start(t, cfg)
				origin := time.Now()
				var ends []time.Time
				for _, o := range concurrently(t, newClient(t, tc.conc), srv.URL, path, slotBody(path, n), tc.conc) {
					require.NoError(t, o.err)
					first, end := o.firstToken(), o.lines[len(o.lines)-1]
					ends = append(ends, end)
					decode := float64(n) / end.Sub(first).Seconds()
					t.Logf("client: %.1f tok/s, want %.1f", decode, rate)
					if path == ollamaPath {
						var fin ndjsonChunk
						decodeStrict(t, o.texts[len(o.texts)-1], &fin)
						got := float64(n) / (float64(*fin.EvalDuration) / 1e9)
						assert.InEpsilon(t, rate, got, 0.05, "eval_duration: %.1f tok/s, want %.1f", got, rate)
					}
				}
				// Never faster: the k-th end (0-based) comes after k/slots
				// whole streams before it and its own.
				slices.SortFunc(ends, time.Time.Compare)
				one := cfg.TTFT + time.Duration(float64(n)/rate*float64(time.Second))
				for k, end := range ends {
					streams := 1
					if tc.slots > 0 {
						streams += k / tc.slots
					}
					assert.GreaterOrEqual(t, end.Sub(origin), time.Duration(streams)*one*97/100, "end %d", k)
				}
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
		go func() { results <- do(context.Background(), c, srv.URL, path, slotBody(path, 100000)) }()
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
