package sim_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// llamaContentType is llama-server's /metrics Content-Type.
const llamaContentType = "text/plain; version=0.0.4"

// realLlamaFile is llama-server b1-0c1e570's /metrics (llama.cpp commit
// 0c1e570, the build the e2e scripts run), captured after one chat request
// of 8 tokens with 2 slots.
const realLlamaFile = "testdata/llamacpp-metrics-b1-0c1e570.txt"

// llamaIdle is realLlamaFile before any request: its HELP and TYPE lines
// and names in its order, every value 0.
func llamaIdle(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(realLlamaFile)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	for i, line := range lines {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, ok := strings.Cut(line, " ")
		require.True(t, ok, "a sample line: %q", line)
		lines[i] = name + " 0\n"
	}
	return strings.Join(lines, "")
}

// runningNow is the chat requests holding a slot, as /metrics says it in
// vLLM's names or llama-server's.
func runningNow(t *testing.T, c *http.Client, url string) float64 {
	t.Helper()
	resp, err := c.Head(url + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") == llamaContentType {
		e, _ := scrapeAs(t, c, url, llamaContentType)
		return e.get(t, "llamacpp:requests_processing")
	}
	return scrape(t, c, url).get(t, `vllm:num_requests_running{model_name="sim-model"}`)
}

// SIM_FLAVOR=llamacpp serves llama-server's /metrics: its names, and
// counters that equal what the replies said (prompt tokens evaluated, that
// is less the cached ones; the cached ones; tokens generated), one decode call a generated
// token after the first plus one for the prompt, each with one busy slot
// when the requests come one at a time. The throughput gauges average over
// the window since the last scrape.
func TestMetricsLlamaCpp(t *testing.T) {
	cfg := sim.Config{Flavor: sim.FlavorLlamaCpp, TTFT: 5 * time.Millisecond, TokensPerSec: 2000}
	srv := start(t, cfg)
	c := newClient(t, 1)

	_, body := scrapeAs(t, c, srv.URL, llamaContentType)
	assert.Equal(t, llamaIdle(t), body, "the real server's names, HELP, TYPE and order")

	var prompt, cached, generated, tokensMax, decodes int
	for i := range 6 {
		n := 2 + 3*i
		// The same opening each time: the prompt cache shares it.
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"the same opening, then %s"}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}}`,
			strings.Repeat("word ", 1+i), n)
		r := parseReply(t, openaiPath, do(t.Context(), c, srv.URL, openaiPath, body))
		require.Equal(t, n, r.count)
		require.GreaterOrEqual(t, r.cached, 0, "the cached tokens stated")
		prompt += r.prompt - r.cached
		cached += r.cached
		generated += r.count
		tokensMax = max(tokensMax, r.prompt+r.count-1)
		decodes += 1 + r.count - 1
	}
	require.Positive(t, cached, "the prompt cache shared the opening")
	require.Less(t, prompt+cached, 2048, "small prompts: one decode call each")

	e, _ := scrapeAs(t, c, srv.URL, llamaContentType)
	assert.Equal(t, float64(prompt), e.get(t, "llamacpp:prompt_tokens_total"))
	assert.Equal(t, float64(cached), e.get(t, "llamacpp:prompt_tokens_cached_total"))
	assert.Equal(t, float64(generated), e.get(t, "llamacpp:tokens_predicted_total"))
	assert.Equal(t, float64(tokensMax), e.get(t, "llamacpp:n_tokens_max"))
	assert.Equal(t, float64(decodes), e.get(t, "llamacpp:n_decode_total"))
	assert.Equal(t, 1.0, e.get(t, "llamacpp:n_busy_slots_per_decode"), "one request at a time")
	// The prompt's time is at least TTFT a reply; the generation's is
	// some time (how close it keeps to the rate is the schedule's, held by
	// the timing tests: on a loaded machine a late first token lets the
	// rest catch up, and the span shrinks); whole microseconds.
	promptS, predictS := e.get(t, "llamacpp:prompt_seconds_total"), e.get(t, "llamacpp:tokens_predicted_seconds_total")
	assert.GreaterOrEqual(t, promptS, 6*cfg.TTFT.Seconds())
	assert.Positive(t, predictS)
	for _, v := range []float64{promptS, predictS} {
		assert.InDelta(t, v, float64(int(v*1e6+0.5))/1e6, 1e-12, "whole microseconds: %v", v)
	}
	assert.Positive(t, e.get(t, "llamacpp:prompt_tokens_seconds"))
	assert.InDelta(t, float64(generated)/predictS, e.get(t, "llamacpp:predicted_tokens_seconds"), float64(generated)/predictS*0.2)
	assert.Zero(t, e.get(t, "llamacpp:requests_processing"))
	assert.Zero(t, e.get(t, "llamacpp:requests_deferred"))
	for _, name := range []string{"draft_tokens", "accepted_tokens", "drafts"} {
		assert.Zero(t, e.get(t, "llamacpp:spec_decode_num_"+name+"_total"), "it drafts nothing")
	}

	// A new window: nothing since the last scrape; the counters stay.
	e, _ = scrapeAs(t, c, srv.URL, llamaContentType)
	assert.Zero(t, e.get(t, "llamacpp:prompt_tokens_seconds"))
	assert.Zero(t, e.get(t, "llamacpp:predicted_tokens_seconds"))
	assert.Equal(t, float64(generated), e.get(t, "llamacpp:tokens_predicted_total"))
}

// What the real server counted for its one request of 8 tokens with 2
// slots (realLlamaFile), the simulator counts for the same request: 8
// tokens, 8 decode calls (the prompt's, then one a token after the
// first), 1 busy slot a call, n_tokens_max = prompt + 7, nothing cached.
func TestMetricsLlamaCppAsReal(t *testing.T) {
	real := map[string]float64{}
	b, err := os.ReadFile(realLlamaFile)
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err, line)
		real[name] = f
	}
	srv := start(t, sim.Config{Flavor: sim.FlavorLlamaCpp, TTFT: time.Millisecond, TokensPerSec: 2000, Slots: 2})
	c := newClient(t, 1)
	r := parseReply(t, openaiPath, do(t.Context(), c, srv.URL, openaiPath, `{"messages":[{"role":"user","content":"hi"}],"stream":true,"max_tokens":8,"stream_options":{"include_usage":true}}`))
	require.Equal(t, 8, r.count)
	e, _ := scrapeAs(t, c, srv.URL, llamaContentType)
	for _, name := range []string{"tokens_predicted_total", "n_decode_total", "n_busy_slots_per_decode", "prompt_tokens_cached_total", "requests_processing", "requests_deferred"} {
		assert.Equal(t, real["llamacpp:"+name], e.get(t, "llamacpp:"+name), name)
	}
	assert.Equal(t, real["llamacpp:n_tokens_max"]-real["llamacpp:prompt_tokens_total"], e.get(t, "llamacpp:n_tokens_max")-e.get(t, "llamacpp:prompt_tokens_total"), "n_tokens_max: the prompt and the tokens after the first")
	assert.Equal(t, float64(r.prompt), e.get(t, "llamacpp:prompt_tokens_total"))
}

// The gauges: requests holding a slot (requests_processing) and waiting
// for one (requests_deferred); and n_busy_slots_per_decode, the requests
// holding a slot in each decode call: 4 at once share their calls.
func TestMetricsLlamaCppGauges(t *testing.T) {
	t.Run("slots", func(t *testing.T) {
		srv := start(t, sim.Config{Flavor: sim.FlavorLlamaCpp, TTFT: 0, TokensPerSec: 100, Slots: 2})
		c := newClient(t, 6)
		gauges := func() (float64, float64) {
			e, _ := scrapeAs(t, c, srv.URL, llamaContentType)
			return e.get(t, "llamacpp:requests_processing"), e.get(t, "llamacpp:requests_deferred")
		}
		ctx, cancel := contextWithCancel(t)
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				do(ctx, c, srv.URL, openaiPath, `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":1000}`)
			})
		}
		assert.Eventually(t, func() bool { r, w := gauges(); return r == 2 && w == 3 }, 5*time.Second, 5*time.Millisecond)
		cancel()
		wg.Wait()
		assert.Eventually(t, func() bool { r, w := gauges(); return r == 0 && w == 0 }, 5*time.Second, 5*time.Millisecond)
	})
	t.Run("busy slots", func(t *testing.T) {
		srv := start(t, sim.Config{Flavor: sim.FlavorLlamaCpp, TTFT: 0, TokensPerSec: 100})
		c := newClient(t, 4)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				r := parseReply(t, openaiPath, do(t.Context(), c, srv.URL, openaiPath, `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":50,"stream_options":{"include_usage":true}}`))
				assert.Equal(t, 50, r.count)
			})
		}
		wg.Wait()
		e, _ := scrapeAs(t, c, srv.URL, llamaContentType)
		// 50 calls each, the 1st, 2nd, 3rd and 4th to start shared by as
		// many: 50 × (1 + 1/2 + 1/3 + 1/4) calls, 200 busy slots in them.
		assert.Equal(t, 104.0, e.get(t, "llamacpp:n_decode_total"))
		assert.InDelta(t, 200.0/104, e.get(t, "llamacpp:n_busy_slots_per_decode"), 1e-5)
	})
}

// SIM_METRICS=0 with SIM_FLAVOR=llamacpp: llama-server started without
// --metrics, 501 and its error.
func TestMetricsOffLlamaCpp(t *testing.T) {
	srv := startEnv(t, "SIM_FLAVOR", "llamacpp", "SIM_METRICS", "0")
	resp, err := newClient(t, 1).Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics endpoint. Start it with `--metrics`\",\"type\":\"not_supported_error\"}}", string(body))
}
