//go:build timing

// How closely a client sees the prefill, the load and the degraded rate:
// the verdict depends on how promptly the machine wakes goroutines, so
// these run apart (go test -tags timing -p 1 ./runtimes/sim/). prefill_test.go,
// reset_test.go and degrade_test.go check the same for what load cannot
// change.

package sim_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The client's TTFT is SIM_TTFT + P/SIM_PREFILL_TPS within 2 ms (the
// suite's TTFT bound), for a short prompt and one 200 times longer; once
// the long one is cached, SIM_TTFT + 1/rate. One good try of three will
// do.
func TestPrefillTTFTTiming(t *testing.T) {
	const rate = 10000.0
	ttft := 5 * time.Millisecond
	srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: 1000, PrefillTPS: rate})
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			var msgs []string
			for try := range 3 {
				msgs = nil
				// Nothing shared with an earlier prompt; the long one 2005
				// tokens, within Ollama's default num_ctx.
				short := fmt.Sprintf("%s%d short prompt", kind, try)
				longer := long(string(rune(map[runtimes.Kind]rune{runtimes.KindOllama: 'A', runtimes.KindOpenAI: 'N'}[kind]+rune(try))), 1000)
				for _, tc := range []struct {
					prompt string
					want   time.Duration
				}{
					{short, ttft + prefill(sim.PromptTokens(short), rate)},
					{longer, ttft + prefill(sim.PromptTokens(longer), rate)},
					{longer, ttft + prefill(1, rate)}, // cached but for its last token
				} {
					res := rt.Do(context.Background(), runtimes.Request{Prompt: tc.prompt, MaxTokens: 3})
					require.NoError(t, res.Err)
					if res.TTFT < tc.want || res.TTFT > tc.want+2*time.Millisecond {
						msgs = append(msgs, fmt.Sprintf("TTFT %v, want %v + 2 ms", res.TTFT, tc.want))
					}
				}
				t.Logf("try %d: %v", try, msgs)
				if len(msgs) == 0 {
					return
				}
			}
			t.Errorf("prefill not kept: %v", msgs)
		})
	}
}

// The request that loads the model has its first token SIM_LOAD_TIME +
// SIM_TTFT after it was sent, within 2 ms.
func TestLoadTTFTTiming(t *testing.T) {
	const load = 100 * time.Millisecond
	ttft := 5 * time.Millisecond
	srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: 1000, LoadTime: load})
	c := newClient(t, 1)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			var msg string
			for try := range 3 {
				require.Equal(t, http.StatusOK, post(t, c, srv.URL, ollamaPath, `{"messages":[],"keep_alive":0}`).status)
				res := rt.Do(context.Background(), runtimes.Request{Prompt: "Say something.", MaxTokens: 3})
				require.NoError(t, res.Err)
				msg = ""
				if want := load + ttft; res.TTFT < want || res.TTFT > want+2*time.Millisecond {
					msg = fmt.Sprintf("TTFT %v, want %v + 2 ms", res.TTFT, want)
				}
				t.Logf("try %d: TTFT %v", try, res.TTFT)
				if msg == "" {
					return
				}
			}
			t.Error(msg)
		})
	}
}

// Degraded, the client's decode rate is F × rate within 2% (the suite's
// decode bound); reset, the full rate within 2%.
func TestDegradeRateTiming(t *testing.T) {
	const n, rate, f = 50, 500.0, 0.5
	srv := start(t, sim.Config{TTFT: 5 * time.Millisecond, TokensPerSec: rate, Degrade: f})
	c := newClient(t, 2)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second})
			require.NoError(t, err)
			decodeRate := func() float64 {
				res := rt.Do(context.Background(), runtimes.Request{Prompt: "Say something.", MaxTokens: n})
				require.NoError(t, res.Err)
				return float64(res.OutputTokens) / (res.Total - res.TTFT).Seconds()
			}
			var msgs []string
			for try := range 3 {
				msgs = nil
				overlap(t, c, srv.URL)
				require.True(t, srv.Degraded())
				if got := decodeRate(); got < f*rate*0.98 || got > f*rate*1.02 {
					msgs = append(msgs, fmt.Sprintf("degraded: %.1f tokens/s, want %.1f ± 2%%", got, f*rate))
				}
				require.Equal(t, http.StatusOK, post(t, c, srv.URL, "/reset_prefix_cache", "").status)
				if got := decodeRate(); got < rate*0.98 || got > rate*1.02 {
					msgs = append(msgs, fmt.Sprintf("reset: %.1f tokens/s, want %.1f ± 2%%", got, rate))
				}
				t.Logf("try %d: %v", try, msgs)
				if len(msgs) == 0 {
					return
				}
			}
			t.Errorf("rate not kept: %v", msgs)
		})
	}
}
