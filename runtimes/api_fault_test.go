package runtimes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// The simulator's faults in each streamed API's own shapes are failures of
// the class the chat's would be, with what arrived before them kept: an
// error event, a stream cut before its end, a broken line; keep-alives
// (comments, Anthropic's pings) and a line over 1 MiB are no failure.
func TestAPIFaultsAgainstSim(t *testing.T) {
	const n = 8
	for _, api := range []runtimes.API{runtimes.APICompletions, runtimes.APIResponses, runtimes.APIMessages} {
		for _, c := range []struct {
			fault  sim.Fault
			class  runtimes.Class // "" for success
			chunks int            // text chunks kept
		}{
			{sim.FaultError, runtimes.ClassStreamError, n / 2},
			{sim.FaultTruncate, runtimes.ClassTruncated, n / 2},
			{sim.FaultMalformed, runtimes.ClassMalformed, n / 2},
			{sim.FaultKeepAlive, "", n},
			{sim.FaultBigLine, "", n},
			{sim.FaultEmpty, runtimes.ClassNoOutput, 0},
			{"http-503", runtimes.ClassHTTP5xx, 0},
		} {
			t.Run(string(api)+"/"+string(c.fault), func(t *testing.T) {
				t.Parallel()
				srv, err := sim.Start(sim.Config{TTFT: time.Millisecond, TokensPerSec: 5000, Fault: c.fault})
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model, Timeout: 10 * time.Second, API: api})
				require.NoError(t, err)
				res := rt.Do(t.Context(), runtimes.Request{Prompt: "hello", MaxTokens: n})
				if c.class == "" {
					require.NoError(t, res.Err)
					assert.Equal(t, n, res.OutputTokens)
				} else {
					require.Error(t, res.Err)
					assert.Equal(t, c.class, runtimes.ErrorClass(res.Err), res.Err.Error())
				}
				assert.Equal(t, c.chunks, res.Chunks)
			})
		}
	}
}
