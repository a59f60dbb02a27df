package sim_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// tgiContentType is text-generation-inference's /metrics Content-Type.
const tgiContentType = "text/plain; charset=utf-8"

// tgiBody GETs /metrics of a TGI-flavoured server: its body, as it is.
func tgiBody(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	resp, err := c.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, tgiContentType, resp.Header.Get("Content-Type"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// SIM_FLAVOR=tgi serves text-generation-inference's /metrics: nothing
// before the first request, then its router's names and types, no labels,
// counters as integers, the histograms in its bounds; and what the replies
// said: requests, tokens of the prompts and generated, max_tokens asked;
// times no shorter than the schedule.
func TestMetricsTGI(t *testing.T) {
	cfg := sim.Config{Flavor: sim.FlavorTGI, TTFT: 5 * time.Millisecond, TokensPerSec: 2000, Context: 1000}
	srv := start(t, cfg)
	c := newClient(t, 1)
	assert.Empty(t, tgiBody(t, c, srv.URL), "no metric touched yet")

	const requests = 6
	var prompt, generated, asked, upTo10 int
	for i := range requests {
		n := 2 + 3*i
		body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"tell me %s"}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}}`,
			strings.Repeat("more ", i), n)
		r := parseReply(t, openaiPath, do(t.Context(), c, srv.URL, openaiPath, body))
		require.Equal(t, n, r.count)
		prompt += r.prompt
		generated += r.count
		asked += n
		if n <= 10 {
			upTo10++
		}
	}

	e, body := scrapeAs(t, c, srv.URL, tgiContentType)
	assert.Equal(t, map[string]string{
		"tgi_request_count": "counter", "tgi_request_success": "counter",
		"tgi_batch_current_size": "gauge", "tgi_queue_size": "gauge",
		"tgi_request_duration": "histogram", "tgi_request_generated_tokens": "histogram",
		"tgi_request_inference_duration": "histogram", "tgi_request_input_length": "histogram",
		"tgi_request_max_new_tokens": "histogram", "tgi_request_mean_time_per_token_duration": "histogram",
		"tgi_request_queue_duration": "histogram", "tgi_request_validation_duration": "histogram",
	}, e.types)
	for _, line := range []string{
		"# HELP tgi_request_count Total number of requests\n",
		"tgi_request_count 6\n", "tgi_request_success 6\n",
		"# HELP tgi_queue_size Current queue size\n",
		"tgi_batch_current_size 0\n", "tgi_queue_size 0\n",
		"# HELP tgi_request_generated_tokens Generated tokens per request\n",
		// Bounds: durations 0.0001 × 1.5^k, k = 1…35; tokens in 100 steps
		// to max_total_tokens (SIM_CONTEXT), the input's to one less.
		`tgi_request_duration_bucket{le="0.00015000000000000001"} 0` + "\n",
		`tgi_request_generated_tokens_bucket{le="10"} ` + fmt.Sprint(upTo10) + "\n",
		`tgi_request_generated_tokens_bucket{le="1000"} 6` + "\n",
		`tgi_request_input_length_bucket{le="999"} 6` + "\n",
		"tgi_request_validation_duration_sum 0\n",
	} {
		assert.Contains(t, body, line)
	}
	assert.Equal(t, 36, strings.Count(body, "tgi_request_queue_duration_bucket{"), "35 bounds and +Inf")
	assert.Equal(t, 101, strings.Count(body, "tgi_request_input_length_bucket{"), "100 bounds and +Inf")
	for _, name := range []string{"tgi_request_duration", "tgi_request_generated_tokens", "tgi_request_input_length"} {
		assert.Equal(t, float64(requests), e.get(t, name+"_count"), name)
	}
	assert.Equal(t, float64(generated), e.get(t, "tgi_request_generated_tokens_sum"))
	assert.Equal(t, float64(prompt), e.get(t, "tgi_request_input_length_sum"))
	assert.Equal(t, float64(asked), e.get(t, "tgi_request_max_new_tokens_sum"))
	// Each reply's inference at least its TTFT and its tokens after the
	// first at the rate; the whole no less than queue and inference.
	inference := e.get(t, "tgi_request_inference_duration_sum")
	assert.GreaterOrEqual(t, inference, requests*cfg.TTFT.Seconds()+float64(generated-requests)/cfg.TokensPerSec-0.001)
	assert.GreaterOrEqual(t, e.get(t, "tgi_request_duration_sum"), inference+e.get(t, "tgi_request_queue_duration_sum")-1e-9)
	assert.Positive(t, e.get(t, "tgi_request_mean_time_per_token_duration_sum"))
}

// TGI's gauges: the requests in the batch (holding a slot) and in the
// queue (waiting for one); tgi_request_count has every request received,
// those still running or waiting among them.
func TestMetricsTGIGauges(t *testing.T) {
	srv := start(t, sim.Config{Flavor: sim.FlavorTGI, TTFT: 0, TokensPerSec: 100, Slots: 2})
	c := newClient(t, 6)
	gauges := func() (batch, queue, count float64) {
		if tgiBody(t, c, srv.URL) == "" {
			return -1, -1, -1 // no request yet
		}
		e, _ := scrapeAs(t, c, srv.URL, tgiContentType)
		return e.get(t, "tgi_batch_current_size"), e.get(t, "tgi_queue_size"), e.get(t, "tgi_request_count")
	}
	ctx, cancel := contextWithCancel(t)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			do(ctx, c, srv.URL, openaiPath, `{"messages":[{"content":"hi"}],"stream":true,"max_tokens":1000}`)
		})
	}
	assert.Eventually(t, func() bool { b, q, n := gauges(); return b == 2 && q == 3 && n == 5 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	wg.Wait()
	assert.Eventually(t, func() bool { b, q, _ := gauges(); return b == 0 && q == 0 }, 5*time.Second, 5*time.Millisecond)
}

// SIM_METRICS=0 with SIM_FLAVOR=tgi: no /metrics.
func TestMetricsOffTGI(t *testing.T) {
	srv := startEnv(t, "SIM_FLAVOR", "tgi", "SIM_METRICS", "0")
	resp, err := newClient(t, 1).Get(srv.URL + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}
