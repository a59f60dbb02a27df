package telemetry

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// Delta keeps the names of every known server's metrics prefix.
func TestServerPrefixesKnown(t *testing.T) {
	for _, p := range runtimes.MetricsPrefixes() {
		assert.Contains(t, ServerPrefixes, p)
	}
}

// The simulator playing text-generation-inference (SIM_FLAVOR=tgi) serves
// its router's names, and what this package reads from them is what the
// simulator served: from a page empty before the first request (a
// real TGI's too), the generated tokens of the requests since, from the
// sum of tgi_request_generated_tokens; its batch (running) and queue
// (waiting). TGI has no KV-cache share, prefix cache or phase times:
// those stay nil.
func TestSimTGI(t *testing.T) {
	srv, err := sim.Start(sim.Config{Flavor: sim.FlavorTGI, TTFT: 10 * time.Millisecond, TokensPerSec: 1000, Slots: 2})
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	before := scrapeURL(t, srv.URL)
	require.Empty(t, before.families, "no metric before the first request")
	const requests = 5
	var generated int
	for i := range requests {
		_, _, n := chat(t, srv.URL, "request "+strings.Repeat("word ", i), 10+i)
		require.Equal(t, 10+i, n)
		generated += n
	}
	after := scrapeURL(t, srv.URL)

	d := Delta(before, after)
	assert.Empty(t, d.Reset)
	assert.Equal(t, float64(generated), d.Values["tgi_request_generated_tokens_sum"])
	assert.Equal(t, float64(requests), d.Values["tgi_request_success"])
	assert.Equal(t, float64(requests), d.Values["tgi_request_count"])
	f := DeriveServerFigures(d, requests)
	require.NotNil(t, f.GeneratedTokens, "tgi_request_generated_tokens_sum")
	assert.Equal(t, float64(generated), *f.GeneratedTokens)
	require.NoError(t, CheckGeneratedTokens(f, generated))
	require.Error(t, CheckGeneratedTokens(f, generated+requests), "a count 10% off")
	assert.Nil(t, f.PrefillSMean)
	assert.Nil(t, f.DecodeSMean)
	assert.Nil(t, f.CachedPromptTokens)

	// The series: its 2 slots running, 3 requests waiting.
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() { chat(t, srv.URL, fmt.Sprint("long ", i), 300) })
	}
	var s ServerSample
	assert.Eventually(t, func() bool {
		s = SampleOf(nil, scrapeURL(t, srv.URL))
		return s.Running != nil && *s.Running == 2 && s.Waiting != nil && *s.Waiting == 3
	}, 5*time.Second, 5*time.Millisecond)
	assert.Nil(t, s.KVCacheUse)
	assert.Nil(t, s.PrefixHitRate)
	assert.Nil(t, s.SpecAcceptRate)
	wg.Wait()
	s = SampleOf(&after, scrapeURL(t, srv.URL))
	require.NotNil(t, s.Running)
	assert.Zero(t, *s.Running)
	assert.Zero(t, *s.Waiting)
	assert.False(t, s.Empty())
}
