package runtimes

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// ClosingTTFT is the schedule of ClosingRounds' simulator.
const ClosingTTFT = 10 * time.Millisecond

// ClosingRounds (exported for the timing tests of package runtimes_test)
// sends n requests of 4 tokens, conc at a time, to a
// simulator that closes the connection after every streamed reply as
// llama-server does, and returns their results. A request sent on a
// connection being closed is held lost (unanswered) before the close
// (sim.Config.LostAttempt).
func ClosingRounds(t *testing.T, k Kind, conc, n int, lost time.Duration) []Result {
	t.Helper()
	srv, err := sim.Start(sim.Config{TTFT: ClosingTTFT, TokensPerSec: 1000, CloseAfterStream: true, LostAttempt: lost})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: NewTransport(conc)}
	t.Cleanup(client.CloseIdleConnections)
	rt, err := New(Config{Name: "sim", Kind: k, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, Client: client})
	require.NoError(t, err)
	var all []Result
	for len(all) < n {
		_, results := rt.Round(context.Background(), Copies(Request{Prompt: "hi", MaxTokens: 4}, conc))
		all = append(all, results...)
	}
	return all
}
