package runtimes_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The client is an instrument: against a server that streams on a known
// schedule, it must read that schedule back. TTFT within 2 ms of the
// simulator's, decode rate within 2%, for both protocols, alone and with 8
// streams at once.
func TestAccuracyAgainstSim(t *testing.T) {
	const (
		ttft   = 80 * time.Millisecond
		rate   = 250.0
		tokens = 50
	)
	srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: rate})
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		for _, conc := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s/conc=%d", kind, conc), func(t *testing.T) {
				rounds := measure(t, srv.URL, kind, conc, 3, runtimes.Request{Prompt: "Say something.", MaxTokens: tokens})
				for _, r := range rounds {
					for _, res := range r.Results {
						require.NoError(t, res.Err)
						assert.Equal(t, tokens, res.OutputTokens)
						assert.False(t, res.TokensApprox, "the simulator reports its count")
						assert.InDelta(t, ttft.Seconds(), res.TTFT.Seconds(), 0.002, "TTFT")
						decode := float64(res.OutputTokens) / (res.Total - res.TTFT).Seconds()
						assert.InEpsilon(t, rate, decode, 0.02, "client-side decode tok/s")
					}
				}
				m := summary.Compute(rounds)
				assert.InDelta(t, ttft.Seconds(), m.TTFT.Mean, 0.002, "mean TTFT")
				assert.InEpsilon(t, rate, m.Decode.Mean, 0.02, "mean decode tok/s")
				// n streams at once: the round's aggregate rate is n times
				// one stream's tokens over the round's wall time.
				wantAgg := float64(conc*tokens) / (ttft.Seconds() + tokens/rate)
				assert.InEpsilon(t, wantAgg, m.Aggregate.Mean, 0.03, "aggregate tok/s")
			})
		}
	}
}

// The aim for the harness: at 256 concurrent streams on 2 cores, TTFT still
// reads back the schedule. The simulator runs in this process too, so this
// is harder than a real run, where the server has its own cores.
func TestAccuracyAt256Streams(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector slows every chunk tenfold; this test measures the real client (it runs in the plain go test ./...)")
	}
	const ttft = 100 * time.Millisecond
	srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: 50})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		t.Run(string(kind), func(t *testing.T) {
			rounds := measure(t, srv.URL, kind, 256, 2, runtimes.Request{Prompt: "Hi.", MaxTokens: 16})
			m := summary.Compute(rounds)
			require.Equal(t, 512, m.Successes)
			t.Logf("%s: mean TTFT %v (schedule %v)", kind, m.TTFT, ttft)
			assert.InDelta(t, ttft.Seconds(), m.TTFT.Mean, 0.001, "mean TTFT at 256 streams")
			assert.InEpsilon(t, 50, m.Decode.Mean, 0.02, "mean decode tok/s at 256 streams")
		})
	}
}

// measure runs one warm-up round (to open the connections) and then rounds
// timed rounds of conc requests.
func measure(t *testing.T, url string, kind runtimes.Kind, conc, rounds int, req runtimes.Request) []summary.Round {
	t.Helper()
	client := &http.Client{Transport: runtimes.NewTransport(conc)}
	t.Cleanup(client.CloseIdleConnections)
	rt, err := runtimes.New("sim", kind, url, sim.Model, "", 30*time.Second, client)
	require.NoError(t, err)
	ctx := context.Background()
	rt.Round(ctx, req, conc)
	var out []summary.Round
	for range rounds {
		wall, res := rt.Round(ctx, req, conc)
		out = append(out, summary.Round{Wall: wall, Results: res})
	}
	return out
}
