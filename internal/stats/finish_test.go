package stats

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// A reply the server said "stop" of that produced every token asked for
// was ended by the cap: it counts as "length", in StopAtCap and in a
// note, whatever the API's word. One that stopped short, one whose count
// is a chunk count, one that called a tool, keep their word.
func TestStopAtCapCountsAsLength(t *testing.T) {
	reply := func(reason string, n int, edit func(*runtimes.Result)) runtimes.Result {
		r := streamed(10*time.Millisecond, 100*time.Millisecond, n)
		r.FinishReason = reason
		if edit != nil {
			edit(&r)
		}
		return r
	}
	results := []runtimes.Result{
		reply("stop", 64, nil),
		reply("stop", 64, nil),
		reply("length", 64, nil),
		reply("stop", 20, nil), // stopped short: stop
		reply("stop", 64, func(r *runtimes.Result) { r.TokensApprox = true }),
		reply("stop", 64, func(r *runtimes.Result) { r.ToolCalls = 1 }),
	}
	m := Compute([]Round{{Wall: time.Second, Results: results, MaxTokens: 64}}, SLO{})
	assert.Equal(t, map[string]int{"length": 3, "stop": 3}, m.FinishReasons)
	assert.Equal(t, 2, m.StopAtCap)
	assert.Contains(t, m.Notes("", NoteSettings{}), "2 replies said stop at the cap (every token asked for): counted as length in finish_reasons")

	// Without a length asked for, there is no cap to judge by.
	m = Compute([]Round{{Wall: time.Second, Results: results[:2]}}, SLO{})
	assert.Equal(t, map[string]int{"stop": 2}, m.FinishReasons)
	assert.Zero(t, m.StopAtCap)
}

// Against the simulator's Ollama, whose /v1/responses ends a reply cut at
// max_output_tokens as 0.17.4 does (response.completed, incomplete_details
// null), the client keeps the server's word and the figures count the
// replies as capped; vLLM's response.incomplete is "length" already; a
// reply that reached its end before the cap stays "stop".
func TestResponsesAtCapAgainstSim(t *testing.T) {
	const n, requests = 16, 3
	for _, c := range []struct {
		flavor    sim.Flavor
		stopAfter int
		said      string
		reasons   map[string]int
		atCap     int
	}{
		{sim.FlavorOllama, 0, "stop", map[string]int{"length": requests}, requests},
		{sim.FlavorVLLM, 0, "length", map[string]int{"length": requests}, 0},
		{sim.FlavorOllama, 5, "stop", map[string]int{"stop": requests}, 0},
	} {
		t.Run(fmt.Sprintf("%s/stop-after=%d", c.flavor, c.stopAfter), func(t *testing.T) {
			srv, err := sim.Start(sim.Config{Flavor: c.flavor, TTFT: time.Millisecond, TokensPerSec: 4000, StopAfter: c.stopAfter})
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			rt, err := runtimes.New(runtimes.Config{Name: "sim", Kind: runtimes.KindOpenAI, URL: srv.URL, Model: sim.Model,
				Timeout: 10 * time.Second, API: runtimes.APIResponses})
			require.NoError(t, err)
			var results []runtimes.Result
			for range requests {
				res := rt.Do(t.Context(), runtimes.Request{Prompt: "Count to twenty.", MaxTokens: n})
				require.NoError(t, res.Err)
				assert.Equal(t, c.said, res.FinishReason, "the server's word, as the record keeps it")
				results = append(results, res)
			}
			m := Compute([]Round{{Wall: time.Second, Results: results, MaxTokens: n}}, SLO{})
			assert.Equal(t, c.reasons, m.FinishReasons)
			assert.Equal(t, c.atCap, m.StopAtCap)
		})
	}
}
