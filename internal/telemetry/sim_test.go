package telemetry

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// scrapeURL GETs url's /metrics and parses it.
func scrapeURL(t *testing.T, url string) Snapshot {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	s, err := Parse(resp.Body)
	require.NoError(t, err)
	return s
}

// chat streams a chat reply of tokens tokens and returns its usage.
func chat(t *testing.T, url, content string, tokens int) (prompt, cached, completion int) {
	t.Helper()
	body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}],"max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`, content, tokens)
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	found := false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || !strings.Contains(data, `"usage":{`) {
			continue
		}
		var c struct {
			Usage struct {
				PromptTokens        int `json:"prompt_tokens"`
				CompletionTokens    int `json:"completion_tokens"`
				PromptTokensDetails struct {
					CachedTokens int `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &c))
		prompt, cached, completion, found = c.Usage.PromptTokens, c.Usage.PromptTokensDetails.CachedTokens, c.Usage.CompletionTokens, true
	}
	require.NoError(t, sc.Err())
	require.True(t, found, "a usage chunk")
	return prompt, cached, completion
}

// The simulator playing llama-server (SIM_FLAVOR=llamacpp) serves its
// /metrics names, and what this package reads from them is what the
// simulator served: the generated tokens, prompt tokens (evaluated and
// cached) and phase times of the requests between two scrapes, the prefix
// cache's hit rate, and its slots' running and waiting
// requests. Between the scrapes llamacpp:n_busy_slots_per_decode, an
// average, goes down (requests one at a time after some at once): that is
// no restart.
func TestSimLlamaCpp(t *testing.T) {
	cfg := sim.Config{Flavor: sim.FlavorLlamaCpp, TTFT: 10 * time.Millisecond, TokensPerSec: 1000, Slots: 2}
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	var wg sync.WaitGroup
	for i := range 4 { // 2 at once: more than one busy slot a decode
		wg.Go(func() { chat(t, srv.URL, fmt.Sprint("warm-up ", i), 20) })
	}
	wg.Wait()
	before := scrapeURL(t, srv.URL)
	busyBefore := before.families["llamacpp:n_busy_slots_per_decode"].GetMetric()[0].GetGauge().GetValue()
	require.Greater(t, busyBefore, 1.0)

	const requests = 5
	var prompt, cached, generated, decodeTokens int
	for i := range requests {
		p, c, n := chat(t, srv.URL, "request "+strings.Repeat("word ", i), 10+i)
		require.Equal(t, 10+i, n)
		prompt += p - c
		cached += c
		generated += n
		decodeTokens += n - 1
	}
	after := scrapeURL(t, srv.URL)
	require.Positive(t, cached, "the requests share an opening: the prompt cache has it")

	d := Delta(before, after)
	assert.Empty(t, d.Reset, "no counter went down but an average")
	assert.Less(t, d.Values["llamacpp:n_busy_slots_per_decode"], busyBefore, "the average, after")
	assert.Equal(t, float64(prompt), d.Values["llamacpp:prompt_tokens_total"])
	assert.Equal(t, float64(generated), d.Values["llamacpp:tokens_predicted_total"])
	assert.Equal(t, float64(decodeTokens+requests), d.Values["llamacpp:n_decode_total"], "one a token after the first, one a prompt")

	f := DeriveServerFigures(d, requests)
	require.NotNil(t, f.GeneratedTokens)
	assert.Equal(t, float64(generated), *f.GeneratedTokens)
	assert.Zero(t, f.GeneratedTokensSlack)
	require.NoError(t, CheckGeneratedTokens(f, generated))
	// Each reply's prefill at least TTFT, its decode its tokens after the
	// first at the rate; the totals are printed in whole microseconds.
	require.NotNil(t, f.PrefillSMean)
	require.NotNil(t, f.DecodeSMean)
	assert.GreaterOrEqual(t, *f.PrefillSMean, cfg.TTFT.Seconds()-0.001)
	assert.Less(t, *f.PrefillSMean, cfg.TTFT.Seconds()+0.5)
	assert.GreaterOrEqual(t, *f.DecodeSMean, float64(decodeTokens)/cfg.TokensPerSec/requests-0.001)
	assert.Less(t, *f.DecodeSMean, float64(decodeTokens)/cfg.TokensPerSec/requests+0.5)
	require.NotNil(t, f.CachedPromptTokens, "llamacpp:prompt_tokens_cached_total")
	assert.Equal(t, float64(cached), *f.CachedPromptTokens)
	assert.Equal(t, "llamacpp:prompt_tokens_cached_total", f.CachedPromptTokensFrom)
	// The series from one scrape to the next: the cached prompt tokens of
	// all looked up; nothing drafted.
	s := SampleOf(&before, after)
	require.NotNil(t, s.PrefixHitRate)
	assert.InDelta(t, float64(cached)/float64(prompt+cached), *s.PrefixHitRate, 1e-12)
	assert.Nil(t, s.SpecAcceptRate, "the simulator drafts nothing")

	// The series: its 2 slots running, 3 requests waiting; no KV-cache
	// gauge.
	for range 5 {
		wg.Go(func() { chat(t, srv.URL, "long", 300) })
	}
	assert.Eventually(t, func() bool {
		s = SampleOf(nil, scrapeURL(t, srv.URL))
		return s.Running != nil && *s.Running == 2 && s.Waiting != nil && *s.Waiting == 3
	}, 5*time.Second, 5*time.Millisecond)
	assert.Nil(t, s.KVCacheUse)
	wg.Wait()
	s = SampleOf(nil, scrapeURL(t, srv.URL))
	require.NotNil(t, s.Running)
	assert.Zero(t, *s.Running)
	assert.Zero(t, *s.Waiting)
}
