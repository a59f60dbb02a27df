package sim_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// overlap makes two chat requests hold a slot at the same time: a stream
// that would last seconds, and a short request sent once the stream has
// begun; then it ends the stream and waits until no request is left.
func overlap(t *testing.T, c *http.Client, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines, _ := readLines(ctx, t, c, url, ollamaPath, `{"messages":[{"content":"hold"}],"options":{"num_predict":1000000}}`)
	awaitTokens(t, ollamaPath, lines, 1)
	r := chat(t, c, url, openaiPath, "second", 2, "")
	require.True(t, r.ended)
	cancel()
	require.Eventually(t, func() bool { return runningNow(t, c, url) == 0 }, 5*time.Second, time.Millisecond)
}

// SIM_DEGRADE=F: once two chat requests have held a slot at once, every
// request that starts later decodes at F × rate (eval_duration says so,
// and the stream ends no earlier), TTFT unchanged; the two themselves are
// not slowed; every reset restores the rate.
func TestDegrade(t *testing.T) {
	const n, rate, f = 20, 1000.0, 0.25
	slow := time.Duration(n / (rate * f) * float64(time.Second)) // 80 ms
	fast := time.Duration(n / rate * float64(time.Second))       // 20 ms
	for _, way := range []struct{ flavor, path, body string }{
		{"vllm", "/reset_prefix_cache", ""},
		{"llamacpp", "/slots/0?action=erase", ""},
		{"plain", ollamaPath, `{"messages":[],"keep_alive":0}`},
	} {
		t.Run(way.flavor, func(t *testing.T) {
			srv := startEnv(t, "SIM_DEGRADE", "0.25", "SIM_TOKENS_PER_SEC", "1000", "SIM_FLAVOR", way.flavor)
			c := newClient(t, 2)
			ttft := srv.Config().TTFT

			r := chat(t, c, srv.URL, ollamaPath, "alone", n, "")
			assert.Equal(t, int64(fast), r.evalDuration, "one at a time: the full rate")
			assert.False(t, srv.Degraded())

			overlap(t, c, srv.URL)
			assert.True(t, srv.Degraded())

			for _, path := range paths {
				r := chat(t, c, srv.URL, path, "after", n, "")
				require.True(t, r.ended)
				assert.Equal(t, n, r.count)
				if path == ollamaPath {
					assert.Equal(t, int64(slow), r.evalDuration, "eval_duration at F × rate")
				}
				assert.GreaterOrEqual(t, r.pieces[0].at, ttft)
				assert.GreaterOrEqual(t, r.pieces[n-1].at, ttft+slow*(n-1)/n, "%s: the tokens at F × rate", path)
				assert.GreaterOrEqual(t, r.end, ttft+slow, path)
			}
			// "stream": false too.
			res := do(context.Background(), c, srv.URL, ollamaPath, `{"stream":false,"messages":[{"content":"x"}],"options":{"num_predict":20}}`)
			require.NoError(t, res.err)
			var whole ndjsonChunk
			decodeStrict(t, res.lines[0].text, &whole)
			assert.Equal(t, int64(slow), *whole.EvalDuration)

			w := post(t, c, srv.URL, way.path, way.body)
			require.Equal(t, http.StatusOK, w.status, string(w.body))
			assert.False(t, srv.Degraded(), "reset")
			r = chat(t, c, srv.URL, ollamaPath, "again", n, "")
			assert.Equal(t, int64(fast), r.evalDuration, "the full rate again")
		})
	}

	t.Run("off", func(t *testing.T) {
		srv := startEnv(t, "SIM_TOKENS_PER_SEC", "1000")
		c := newClient(t, 2)
		overlap(t, c, srv.URL)
		assert.False(t, srv.Degraded())
		assert.Equal(t, int64(fast), chat(t, c, srv.URL, ollamaPath, "after", n, "").evalDuration)
	})

	t.Run("slots", func(t *testing.T) {
		// One slot: two requests never decode at once, however many come.
		srv := startEnv(t, "SIM_DEGRADE", "0.25", "SIM_TOKENS_PER_SEC", "1000", "SIM_SLOTS", "1")
		c := newClient(t, 4)
		for _, o := range concurrently(t, c, srv.URL, ollamaPath, slotBody(ollamaPath, 5), 4) {
			require.NoError(t, o.err)
		}
		assert.False(t, srv.Degraded())
		assert.Equal(t, int64(fast), chat(t, c, srv.URL, ollamaPath, "after", n, "").evalDuration)
	})

	t.Run("with batch slowdown", func(t *testing.T) {
		// The two compose: one stream alone decodes at F × rate.
		srv := startEnv(t, "SIM_DEGRADE", "0.25", "SIM_TOKENS_PER_SEC", "1000", "SIM_BATCH_SLOWDOWN", "1")
		c := newClient(t, 2)
		overlap(t, c, srv.URL)
		assert.Equal(t, int64(slow), chat(t, c, srv.URL, ollamaPath, "after", n, "").evalDuration)
	})
}

// What the client measures: after a round of two at once, a request alone
// decodes at F × rate; after a reset at the full rate. Ollama's eval
// duration is exact; the OpenAI stream's end is never early, and far from
// the slow schedule once reset (a 10× margin).
func TestDegradeClient(t *testing.T) {
	const n, rate, f = 40, 1000.0, 0.1
	ttft := 5 * time.Millisecond
	slow := time.Duration(n / (rate * f) * float64(time.Second)) // 400 ms
	fast := time.Duration(n / rate * float64(time.Second))       // 40 ms
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			srv := start(t, sim.Config{TTFT: ttft, TokensPerSec: rate, Degrade: f})
			client := &http.Client{Transport: runtimes.NewTransport(2)}
			t.Cleanup(client.CloseIdleConnections)
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second, Client: client})
			require.NoError(t, err)
			req := runtimes.Request{Prompt: "Say something.", MaxTokens: n}

			// A pair at once, 200 tokens each: they overlap.
			_, pair := rt.Round(context.Background(), runtimes.Copies(runtimes.Request{Prompt: "Two at once.", MaxTokens: 200}, 2))
			for _, res := range pair {
				require.NoError(t, res.Err)
				if kind == runtimes.KindOllama {
					assert.Equal(t, 200*time.Millisecond, res.Eval, "the pair itself decodes at the full rate")
				}
			}
			require.True(t, srv.Degraded())

			res := rt.Do(context.Background(), req)
			require.NoError(t, res.Err)
			assert.GreaterOrEqual(t, res.Total, ttft+slow, "decoded at F × rate")
			if kind == runtimes.KindOllama {
				assert.Equal(t, slow, res.Eval)
			}

			w := post(t, newClient(t, 1), srv.URL, "/reset_prefix_cache", "")
			require.Equal(t, http.StatusOK, w.status)
			res = rt.Do(context.Background(), req)
			require.NoError(t, res.Err)
			assert.GreaterOrEqual(t, res.Total, ttft+fast)
			assert.Less(t, res.Total, ttft+slow, "the full rate again")
			if kind == runtimes.KindOllama {
				assert.Equal(t, fast, res.Eval)
			}
		})
	}
}
