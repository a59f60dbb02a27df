package sim_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// exposition is a parsed Prometheus text exposition: sample values by
// series ("name{labels}" as written) and each family's type.
type exposition struct {
	values map[string]float64
	types  map[string]string
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$`)

// scrape GETs /metrics and parses it, checking the format: 0.0.4, every
// sample after its family's HELP and TYPE, a family's samples together,
// histograms' buckets cumulative up to +Inf = _count.
func scrape(t *testing.T, c *http.Client, url string) exposition {
	t.Helper()
	e, _ := scrapeAs(t, c, url, "text/plain; version=0.0.4; charset=utf-8")
	return e
}

// scrapeAs is scrape for a server whose /metrics answers with Content-Type
// contentType; it returns the body too.
func scrapeAs(t *testing.T, c *http.Client, url, contentType string) (exposition, string) {
	t.Helper()
	resp, err := c.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, contentType, resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(body), "\n"))
	e := exposition{values: map[string]float64{}, types: map[string]string{}}
	var family string
	done := map[string]bool{}
	last := map[string]float64{}                                // a histogram's last bucket, by series
	leLabel := regexp.MustCompile(`,le="[^"]*"|\{le="[^"]*"\}`) // among others, or alone
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	for sc.Scan() {
		l := sc.Text()
		if l == "" { // between families (TGI's)
			continue
		}
		if rest, ok := strings.CutPrefix(l, "# HELP "); ok {
			name, _, _ := strings.Cut(rest, " ")
			require.False(t, done[name], "family %s twice", name)
			done[family], family = true, name
			continue
		}
		if rest, ok := strings.CutPrefix(l, "# TYPE "); ok {
			name, typ, _ := strings.Cut(rest, " ")
			require.Equal(t, family, name, "TYPE after its HELP")
			e.types[name] = typ
			continue
		}
		m := sampleLine.FindStringSubmatch(l)
		require.NotNil(t, m, "not a sample line: %q", l)
		name := m[1]
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		require.True(t, name == family || base == family, "%s outside its family %s", name, family)
		v, err := strconv.ParseFloat(m[3], 64)
		require.NoError(t, err, l)
		e.values[name+m[2]] = v
		if strings.HasSuffix(name, "_bucket") {
			key := base + leLabel.ReplaceAllString(m[2], "")
			require.GreaterOrEqual(t, v, last[key], "buckets are cumulative: %s", l)
			last[key] = v
		}
	}
	for key, inf := range last { // the +Inf bucket is the last
		count := key + "_count"
		if strings.Contains(key, "{") {
			count = strings.Replace(key, "{", "_count{", 1)
		}
		assert.Equal(t, e.values[count], inf, "%s: +Inf bucket and _count", key)
	}
	return e, string(body)
}

// get is a series' value; the series must exist.
func (e exposition) get(t *testing.T, series string) float64 {
	t.Helper()
	v, ok := e.values[series]
	require.True(t, ok, "no series %s", series)
	return v
}

// The counters equal what a set of requests received; the histograms count
// the same replies, never less than their schedule; the types are vLLM's.
func TestMetrics(t *testing.T) {
	cfg := sim.Config{TTFT: 5 * time.Millisecond, TokensPerSec: 2000, StopAfter: 6}
	srv := start(t, cfg)
	c := newClient(t, 4)

	e := scrape(t, c, srv.URL)
	for name, typ := range map[string]string{
		"vllm:prompt_tokens_total": "counter", "vllm:generation_tokens_total": "counter", "vllm:request_success_total": "counter",
		"vllm:time_to_first_token_seconds": "histogram", "vllm:request_prefill_time_seconds": "histogram",
		"vllm:request_decode_time_seconds": "histogram", "vllm:e2e_request_latency_seconds": "histogram",
		"vllm:request_queue_time_seconds": "histogram",
		"vllm:num_requests_running":       "gauge", "vllm:num_requests_waiting": "gauge",
	} {
		assert.Equal(t, typ, e.types[name], name)
	}
	// Before any request: the listed model's series, at zero.
	assert.Zero(t, e.get(t, `vllm:request_success_total{model_name="sim-model"}`))
	assert.Zero(t, e.get(t, `vllm:time_to_first_token_seconds_count{model_name="sim-model"}`))

	type want struct{ prompt, generation, success, withTokens int }
	wants := map[string]*want{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			path := paths[i%2]
			model := fmt.Sprint("model-", i%3)
			prompt := strings.Repeat("word ", 1+i)
			n := 2 + i // StopAfter cuts the longer ones to 6
			var body string
			if path == ollamaPath {
				body = fmt.Sprintf(`{"model":%q,"messages":[{"content":%q}],"options":{"num_predict":%d}}`, model, prompt, n)
			} else {
				body = fmt.Sprintf(`{"model":%q,"messages":[{"content":%q}],"stream":true,"max_tokens":%d,"stream_options":{"include_usage":true}}`, model, prompt, n)
			}
			r := parseReply(t, path, do(t.Context(), c, srv.URL, path, body))
			mu.Lock()
			defer mu.Unlock()
			w := wants[model]
			if w == nil {
				w = &want{}
				wants[model] = w
			}
			w.prompt += r.prompt
			w.generation += r.count
			w.success++
			if r.count > 0 {
				w.withTokens++
			}
		})
	}
	wg.Wait()
	// A stream:false reply counts, and a cut one does not.
	whole := parseReply(t, ollamaPath, do(t.Context(), c, srv.URL, ollamaPath, `{"model":"model-0","stream":false,"messages":[{"content":"a b c"}],"options":{"num_predict":3}}`))
	wants["model-0"].prompt += whole.prompt
	wants["model-0"].generation += whole.count
	wants["model-0"].success++
	wants["model-0"].withTokens++
	cut := startFault(t, sim.FaultTruncate, 2)

	e = scrape(t, c, srv.URL)
	for model, w := range wants {
		l := `{model_name="` + model + `"}`
		assert.Equal(t, float64(w.prompt), e.get(t, "vllm:prompt_tokens_total"+l), model)
		assert.Equal(t, float64(w.generation), e.get(t, "vllm:generation_tokens_total"+l), model)
		assert.Equal(t, float64(w.success), e.get(t, "vllm:request_success_total"+l), model)
		for _, h := range []string{"vllm:time_to_first_token_seconds", "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds"} {
			assert.Equal(t, float64(w.withTokens), e.get(t, h+"_count"+l), "%s %s", h, model)
		}
		for _, h := range []string{"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds"} {
			assert.Equal(t, float64(w.success), e.get(t, h+"_count"+l), "%s %s", h, model)
		}
		inf := `{model_name="` + model + `",le="+Inf"}`
		assert.Equal(t, e.get(t, "vllm:e2e_request_latency_seconds_count"+l), e.get(t, "vllm:e2e_request_latency_seconds_bucket"+inf))
		// Never less than the schedule: TTFT and prefill at least TTFT each,
		// e2e at least TTFT + the decode.
		assert.GreaterOrEqual(t, e.get(t, "vllm:time_to_first_token_seconds_sum"+l), float64(w.withTokens)*cfg.TTFT.Seconds())
		assert.GreaterOrEqual(t, e.get(t, "vllm:request_prefill_time_seconds_sum"+l), float64(w.withTokens)*cfg.TTFT.Seconds())
		assert.GreaterOrEqual(t, e.get(t, "vllm:e2e_request_latency_seconds_sum"+l), float64(w.success)*cfg.TTFT.Seconds()+float64(w.generation)/cfg.TokensPerSec)
		// No queue without slots; TTFT = queue + prefill and e2e = queue +
		// prefill + decode, reply by reply (all these have tokens).
		queue := e.get(t, "vllm:request_queue_time_seconds_sum"+l)
		prefill := e.get(t, "vllm:request_prefill_time_seconds_sum"+l)
		decode := e.get(t, "vllm:request_decode_time_seconds_sum"+l)
		assert.Zero(t, queue)
		assert.InDelta(t, e.get(t, "vllm:time_to_first_token_seconds_sum"+l), queue+prefill, 1e-9)
		assert.InDelta(t, e.get(t, "vllm:e2e_request_latency_seconds_sum"+l), queue+prefill+decode, 1e-9)
	}

	// Cut replies (every second one here) are not counted.
	for _, path := range paths {
		for range 2 {
			w := fetch(t.Context(), t, c, cut.URL, path, faultBodies[path])
			require.NoError(t, w.err)
		}
	}
	e = scrape(t, c, cut.URL)
	assert.Equal(t, 2.0, e.get(t, `vllm:request_success_total{model_name="m"}`))
	assert.Equal(t, float64(2*faultN), e.get(t, `vllm:generation_tokens_total{model_name="m"}`))
}

// The gauges: requests holding a slot, and waiting for one, and the
// share of the KV cache the running hold (a slot's share each).
func TestMetricsGauges(t *testing.T) {
	srv := start(t, sim.Config{TTFT: 0, TokensPerSec: 100, Slots: 2})
	c := newClient(t, 4)
	var wg sync.WaitGroup
	ctx, cancel := contextWithCancel(t)
	gauges := func() (float64, float64, float64) {
		e := scrape(t, c, srv.URL)
		return e.get(t, `vllm:num_requests_running{model_name="sim-model"}`), e.get(t, `vllm:num_requests_waiting{model_name="sim-model"}`),
			e.get(t, `vllm:kv_cache_usage_perc{model_name="sim-model"}`)
	}
	_, _, kv := gauges()
	assert.Equal(t, 0.0, kv, "idle")
	for range 5 {
		wg.Go(func() {
			do(ctx, c, srv.URL, ollamaPath, `{"messages":[{"content":"hi"}],"options":{"num_predict":100000}}`)
		})
	}
	assert.Eventually(t, func() bool { r, w, kv := gauges(); return r == 2 && w == 3 && kv == 1 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	wg.Wait()
	assert.Eventually(t, func() bool { r, w, kv := gauges(); return r == 0 && w == 0 && kv == 0 }, 5*time.Second, 5*time.Millisecond)
}

// SIM_METRICS=0: no /metrics.
func TestMetricsOff(t *testing.T) {
	srv := startEnv(t, "SIM_METRICS", "0")
	resp, err := newClient(t, 1).Get(srv.URL + "/metrics")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// The prompt cache's tokens are counted in /metrics as vLLM counts them
// (vllm:prompt_tokens_cached_total; its prefix cache's queries and hits, in
// tokens), whether or not the replies state them: with
// SIM_PROMPT_TOKENS_DETAILS=0 the usage chunk has
// "prompt_tokens_details":null, as vLLM without
// --enable-prompt-tokens-details, and /metrics counts the same.
func TestMetricsCachedTokens(t *testing.T) {
	const model = `{model_name="m"}`
	prompts := []string{"alpha beta gamma delta", "alpha beta gamma delta", "alpha beta other words", "nothing shared"}
	var stated, prompted int
	for _, details := range []string{"1", "0"} {
		t.Run("SIM_PROMPT_TOKENS_DETAILS="+details, func(t *testing.T) {
			srv := startEnv(t, "SIM_PROMPT_TOKENS_DETAILS", details)
			c := newClient(t, 1)
			var cached, prompt int
			for _, p := range prompts {
				body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"stream":true,"max_tokens":3,"stream_options":{"include_usage":true}}`, p)
				res := do(t.Context(), c, srv.URL, openaiPath, body)
				r := parseReply(t, openaiPath, res)
				usage := res.lines[len(res.lines)-2].text
				require.Contains(t, usage, `"usage":`)
				prompt += r.prompt
				if details == "0" {
					assert.Contains(t, usage, `"prompt_tokens_details":null`)
					assert.NotContains(t, usage, "cached_tokens")
					assert.Equal(t, -1, r.cached, "no cached count stated")
					continue
				}
				require.GreaterOrEqual(t, r.cached, 0, "the cached count stated: %s", usage)
				cached += r.cached
			}
			e := scrape(t, c, srv.URL)
			for name, typ := range map[string]string{"vllm:prompt_tokens_cached_total": "counter", "vllm:prefix_cache_queries_total": "counter", "vllm:prefix_cache_hits_total": "counter"} {
				assert.Equal(t, typ, e.types[name], name)
			}
			got := e.get(t, "vllm:prompt_tokens_cached_total"+model)
			assert.Equal(t, got, e.get(t, "vllm:prefix_cache_hits_total"+model))
			assert.Equal(t, float64(prompt), e.get(t, "vllm:prefix_cache_queries_total"+model))
			assert.Equal(t, e.get(t, "vllm:prompt_tokens_total"+model), e.get(t, "vllm:prefix_cache_queries_total"+model))
			if details == "1" {
				require.Positive(t, cached, "the repeated prompts were cached")
				assert.Equal(t, float64(cached), got, "what the replies stated")
				stated, prompted = cached, prompt
				return
			}
			// The same prompts on a new server: the same cache, now counted
			// only in /metrics.
			assert.Equal(t, float64(stated), got)
			assert.Equal(t, prompted, prompt)
		})
	}
}
