package runtimes_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// What the client reads back of the simulator's schedule that does not
// depend on how busy the machine is: every request completes with the
// server's token count, its first token never comes before the schedule
// has it (a role-only chunk taken for a token would), and the figures are
// in the schedule's neighbourhood. The tight bounds are the timing tests'
// (accuracy_test.go, -tags timing).
func TestReadsTheSchedule(t *testing.T) {
	const (
		ttft   = 40 * time.Millisecond
		rate   = 500.0
		tokens = 20
	)
	srv, err := sim.Start(sim.Config{TTFT: ttft, TokensPerSec: rate})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	for _, kind := range []runtimes.Kind{runtimes.KindOllama, runtimes.KindOpenAI} {
		for _, conc := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/conc=%d", kind, conc), func(t *testing.T) {
				client := &http.Client{Transport: runtimes.NewTransport(conc)}
				t.Cleanup(client.CloseIdleConnections)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: kind, URL: srv.URL, Model: sim.Model, Timeout: 30 * time.Second, Client: client})
				require.NoError(t, err)
				_, results := rt.Round(context.Background(), runtimes.Copies(runtimes.Request{Prompt: "Say something.", MaxTokens: tokens}, conc))
				for _, res := range results {
					require.NoError(t, res.Err)
					assert.Equal(t, tokens, res.OutputTokens)
					assert.False(t, res.TokensApprox, "the simulator reports its count")
					assert.Equal(t, tokens, res.Chunks)
					assert.GreaterOrEqual(t, res.TTFT, ttft, "a first token before the schedule's")
					decode := time.Duration(float64(tokens) / rate * float64(time.Second))
					assert.GreaterOrEqual(t, res.Total, ttft+decode, "the end before the schedule's")
					assert.Less(t, res.Total, ttft+decode+5*time.Second, "far off the schedule")
				}
			})
		}
	}
}
