package stats

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/resulttest"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// streamed is a reply of n tokens in n chunks, the first at ttft, the
// stream's end span later.
func streamed(ttft, span time.Duration, n int) runtimes.Result {
	r := resulttest.Done(ttft, ttft+span, n)
	r.Turn = 1
	return r
}

// The case: three replies of 128 tokens at 400 tok/s and one whose
// first token came late and the rest at once (its span 23.6 ms) put the
// leaf's mean decode rate at 1657 tok/s. The burst reply is counted and
// left out of the decode rate and TPOT, mean and median; its TTFT counts.
func TestBurstReplyLeftOutOfDecode(t *testing.T) {
	normal := streamed(50*ms, 320*ms, 128)
	burst := streamed(300*ms, 23580*time.Microsecond, 128) // 128/0.02358 = 5428 tok/s
	rounds := []Round{{Wall: time.Second, MaxTokens: 128, Results: []runtimes.Result{normal, normal, normal, burst}}}
	m := Compute(rounds, SLO{})
	got := reported{}
	m.Report(got)
	assert.InDelta(t, 400, got["decode-tok/s"], 1e-6, "one burst reply does not move the decode rate (1657 before)")
	assert.InDelta(t, 400, got["decode-p50-tok/s"], 1e-6)
	assert.InDelta(t, 0.32e9/127, got["tpot-ns"], 1, "nor TPOT")
	assert.InDelta(t, 0.32e9/127, got["tpot-p50-ns"], 1)
	assert.Equal(t, 1, m.Bursts)
	assert.Equal(t, 3, m.Decode.N)
	assert.Equal(t, 4, m.TTFT.N, "its late first token is a TTFT as measured")
	assert.Contains(t, m.Notes("", names), "1 of 4 replies came in a burst (8 tokens or more, their decode time per token under a quarter of the leaf's median, 2.52 ms): their tokens arrived at once after a late first one, so they are left out of the decode rate and TPOT; their TTFT and total count as measured")

	// Per turn, against the leaf's median: the same reply is a burst.
	two := burst
	two.Turn = 2
	m = Compute([]Round{{Wall: time.Second, Results: []runtimes.Result{normal, two, normal, normal}}}, SLO{})
	require.Len(t, m.Turns, 2)
	assert.Zero(t, m.Turns[1].Decode.N, "turn 2's only reply is the burst")

	// Too few tokens to tell; a leaf of bursts alone has none.
	short := streamed(300*ms, ms/10, BurstMinTokens-1)
	m = Compute([]Round{{Wall: time.Second, Results: []runtimes.Result{normal, normal, short}}}, SLO{})
	assert.Zero(t, m.Bursts, "%d tokens say too little", BurstMinTokens-1)
	m = Compute([]Round{{Wall: time.Second, Results: []runtimes.Result{burst, burst}}}, SLO{})
	assert.Zero(t, m.Bursts, "a burst is one unlike its leaf's replies")
	assert.Equal(t, 2, m.Decode.N)
}

// The threshold on the spread of a continuous batch, the widest a healthy
// leaf has: 8 requests of 16 to 128 tokens sent at once to a server whose
// streams slow by 10% per other stream decoding with them
// (SIM_BATCH_SLOWDOWN=0.1): the short replies decode under the full batch,
// the long ones end alone. Their decode time per token is within 2.5× of
// the leaf's median, so BurstFactor 4 flags none; the simulator's burst
// reply (SIM_FAULT=burst) is more than 10× below it, and is flagged.
func TestBurstThresholdOnData(t *testing.T) {
	run := func(cfg sim.Config, lengths []int) []runtimes.Result {
		srv, err := sim.Start(cfg)
		require.NoError(t, err)
		t.Cleanup(srv.Close)
		rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model,
			Timeout: 30 * time.Second, Client: newClient(len(lengths))})
		require.NoError(t, err)
		out := make([]runtimes.Result, len(lengths))
		var wg sync.WaitGroup
		for i, n := range lengths {
			wg.Go(func() {
				out[i] = rt.Do(context.Background(), runtimes.Request{Prompt: "burst", MaxTokens: n, IgnoreEOS: true})
			})
		}
		wg.Wait()
		for _, r := range out {
			require.NoError(t, r.Err)
		}
		return out
	}
	lengths := []int{16, 32, 48, 64, 80, 96, 112, 128}
	batch := run(sim.Config{TTFT: 50 * ms, TokensPerSec: 100, BatchSlowdown: 0.1}, lengths)
	m := Compute([]Round{{Wall: time.Second, Results: batch}}, SLO{})
	median := m.BurstBelow * BurstFactor
	for _, r := range batch {
		tpot, ok := TPOT(r)
		require.True(t, ok)
		assert.Less(t, median/tpot, 2.5, "a reply of %d tokens in a batch emptying decodes within 2.5× of the median", r.OutputTokens)
	}
	assert.Zero(t, m.Bursts)
	assert.Equal(t, len(lengths), m.Decode.N)

	// Every fourth request a burst: one of four.
	bursty := run(sim.Config{TTFT: 50 * ms, TokensPerSec: 100, Fault: sim.FaultBurst, FaultEvery: 4}, []int{64, 64, 64, 64})
	m = Compute([]Round{{Wall: time.Second, Results: bursty}}, SLO{})
	assert.Equal(t, 1, m.Bursts, "the simulator's burst reply is a burst")
	assert.Equal(t, 3, m.Decode.N)
	for _, r := range bursty {
		if IsBurst(r, m.BurstBelow) {
			tpot, _ := TPOT(r)
			assert.Greater(t, m.BurstBelow*BurstFactor/tpot, 10.0)
		}
	}
	assert.InDelta(t, 100, m.Decode.Mean, 10, "the decode rate is the schedule's, the burst left out")
}

func newClient(conc int) *http.Client { return &http.Client{Transport: runtimes.NewTransport(conc)} }
