package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// sentRequest is what canaryServer saw of one chat request.
type sentRequest struct {
	Prompt      string
	Temperature float64
}

// canaryServer answers every chat with "ab" (2 tokens) and keeps what
// each request asked.
func canaryServer(t *testing.T) (url string, sent func() []sentRequest) {
	var mu sync.Mutex
	var seen []sentRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		var req struct {
			Messages    []struct{ Content string } `json:"messages"`
			Temperature *float64                   `json:"temperature"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		temperature := -1.0 // not sent: servers would take their own default
		if req.Temperature != nil {
			temperature = *req.Temperature
		}
		mu.Lock()
		seen = append(seen, sentRequest{req.Messages[len(req.Messages)-1].Content, temperature})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"model":"m","choices":[{"delta":{"content":"a"},"finish_reason":null}]}`+"\n\n"+
			`data: {"model":"m","choices":[{"delta":{"content":"b"},"finish_reason":"length"}]}`+"\n\n"+
			`data: {"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []sentRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// After each leaf run's warm-ups, one canary request: the prompt without
// its cold marker, at temperature 0 whatever BENCH_TEMPERATURE says,
// recorded as a canary with its text, counted in no figure; the row keeps
// the reply. The control leaf sends none.
func TestCanary(t *testing.T) {
	t.Parallel()
	url, sent := canaryServer(t)
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "mine", "MINE_URL": url, "BENCH_CANARY": "on", "BENCH_TEMPERATURE": "0.7",
		"BENCH_WARMUPS": "1", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_MAX_TOKENS": "2",
	})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	k := slices.Collect(d.Leaves())[0]
	for range 2 { // two -count repetitions
		out := runLeaf(t, d, k, 2)
		require.NoError(t, out.SaveErr)
		assert.Empty(t, out.Notes, "the same reply both times: nothing to say")
	}
	require.NoError(t, d.Finish())

	reqs := sent()
	// Each run: a warm-up, the canary, two timed; then the control: a
	// warm-up and the 8 timed rounds its test needs against the two
	// runs' 4 requests.
	require.Len(t, reqs, 8+1+8)
	for _, i := range []int{1, 5} {
		assert.Equal(t, sentRequest{d.Prompts[0].Text, 0}, reqs[i], "request %d: the canary, unmarked, at temperature 0", i)
	}
	for i, r := range reqs {
		if i != 1 && i != 5 {
			assert.NotEqual(t, d.Prompts[0].Text, r.Prompt, "request %d: cold, so marked", i)
			assert.Equal(t, 0.7, r.Temperature, "request %d", i)
		}
	}

	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	assert.Equal(t, "on", f.Arguments.Canary)
	require.Len(t, f.Summary, 1)
	row := f.Summary[0]
	assert.Equal(t, 4, row.Requests, "the canaries are not timed requests")
	require.NotNil(t, row.Canary)
	assert.Equal(t, canary.Reply{TextSHA256: "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603", OutputTokens: 2, Text: "ab"}, *row.Canary,
		"sha256 of \"ab\", as sha256sum says")

	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	var canaries []records.Record
	for _, r := range recs {
		if r.Canary {
			canaries = append(canaries, r)
		} else {
			assert.Nil(t, r.Text, "no text without BENCH_RECORD_TEXT")
		}
	}
	require.Len(t, canaries, 2)
	for i, c := range canaries {
		assert.False(t, c.Timed())
		assert.Equal(t, i+1, c.Count)
		require.NotNil(t, c.Text)
		assert.Equal(t, "ab", *c.Text)
	}
}

// A reply that changes between a leaf's runs is said; BENCH_CANARY=off
// sends none; BENCH_RECORD_TEXT=1 keeps every reply's text.
func TestCanaryOffAndRecordText(t *testing.T) {
	t.Parallel()
	url, sent := canaryServer(t)
	env := merge(isolated(t), map[string]string{
		"BENCH_RUNTIMES": "mine", "MINE_URL": url, "BENCH_CANARY": "off", "BENCH_RECORD_TEXT": "1",
		"BENCH_WARMUPS": "1", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "2", "BENCH_MAX_TOKENS": "2", "BENCH_CONTROL": "off",
	})
	d, err := setup(context.Background(), env, &bytes.Buffer{}, Options{})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	runLeaf(t, d, slices.Collect(d.Leaves())[0], 1)
	require.NoError(t, d.Finish())
	for _, r := range sent() {
		assert.True(t, strings.HasPrefix(r.Prompt, "["), "every request marked: no canary")
	}
	assert.Len(t, sent(), 4)
	f, err := summary.Read(d.files.json)
	require.NoError(t, err)
	assert.Nil(t, f.Summary[0].Canary)
	assert.True(t, f.Arguments.RecordText)
	recs, err := records.Read(d.files.records)
	require.NoError(t, err)
	require.Len(t, recs, 4)
	for _, r := range recs {
		require.NotNil(t, r.Text)
		assert.Equal(t, "ab", *r.Text)
	}
}

// A reasoning model whose canary reply is all reasoning has an empty
// answer: the row's canary is then only its length, and the log says so.
func TestCanaryAllReasoning(t *testing.T) {
	t.Parallel()
	d, _ := startSim(t, map[string]string{
		"BENCH_CANARY": "on", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "0",
		"BENCH_MAX_TOKENS": "8", "SIM_REASONING_TOKENS": "8", "SIM_TTFT": "1ms", "SIM_TOKENS_PER_SEC": "4000",
	})
	out := runLeaf(t, d, slices.Collect(d.Leaves())[0], 1)
	require.Len(t, out.Notes, 1, "%q", out.Notes)
	assert.Contains(t, out.Notes[0], "the canary's answer is empty: its 8 output tokens were all reasoning")
	row := d.Run.Rows()[0]
	require.NotNil(t, row.Canary)
	assert.Equal(t, 8, row.Canary.OutputTokens)
	assert.Empty(t, row.Canary.Text)
}
