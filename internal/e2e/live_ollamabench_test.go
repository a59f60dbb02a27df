//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// What TestAgainstOllamaBench sends, and how far the medians may differ.
const (
	peerPrompt   = "short"
	peerPairs    = 3    // ours-theirs pairs of phases
	peerRequests = 4    // per phase
	peerTol      = 0.20 // our median decode rate against cmd/bench's
)

// TestAgainstOllamaBench compares our native decode rate with the generate
// rate of Ollama's own benchmark tool, github.com/ollama/ollama/cmd/bench
// (E2E_BENCH_BIN), on the same server, prompt and token limit, in
// interleaved phases: ours, theirs, ours, theirs, …, so that a change in
// the machine's load touches both.
func TestAgainstOllamaBench(t *testing.T) {
	var env envVars
	url, model := env.str("E2E_URL"), env.str("E2E_MODEL")
	bench := env.str("E2E_BENCH_BIN")
	maxTokens := env.integer("E2E_MAX_TOKENS")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	ps, err := prompts.Load([]string{peerPrompt}, "")
	if err != nil {
		t.Fatal(err)
	}
	prompt := ps[0]
	rt := newRuntime(t, "ollama", runtimes.KindOllama, url, model)
	ctx := t.Context()
	req := runtimes.Request{Prompt: prompt.Text, MaxTokens: maxTokens, Seed: seeded(), Temperature: 0}

	// One uncounted request, so that neither side pays for loading the
	// model or evaluating the prompt the first time.
	if r := rt.Do(ctx, req); !r.OK() {
		t.Fatalf("warm-up request: %v", r.Err)
	}

	t.Logf("Against Ollama's own benchmark tool: prompt %q, max_tokens %d, seed %d, temperature 0; %d pairs of %d requests each, interleaved",
		prompt.Name, maxTokens, seed, peerPairs, peerRequests)
	var ours, oursClient, theirs []float64
	for pair := 1; pair <= peerPairs; pair++ {
		var phase, phaseClient []float64
		for i := range peerRequests {
			r := rt.Do(ctx, req)
			if !r.OK() {
				t.Errorf("ours, pair %d #%d: %v", pair, i+1, r.Err)
				continue
			}
			if r.OutputTokens != maxTokens || r.Eval <= 0 {
				t.Errorf("ours, pair %d #%d: %d output tokens in %v of server eval, want %d", pair, i+1, r.OutputTokens, r.Eval, maxTokens)
				continue
			}
			phase = append(phase, serverDecode(r))
			phaseClient = append(phaseClient, clientDecode(r))
		}
		t.Logf("  pair %d ours:   decode (server eval rate, the suite's server-decode-tok/s) median %7.1f tok/s, client-side median %7.1f tok/s, %d requests",
			pair, median(phase), median(phaseClient), len(phase))
		ours, oursClient = append(ours, phase...), append(oursClient, phaseClient...)

		bctx, cancel := context.WithTimeout(ctx, time.Duration(peerRequests)*requestTimeout)
		out, err := runBench(bctx, benchRun{bin: bench, url: url, model: model, prompt: prompt.Text,
			epochs: peerRequests, maxTokens: maxTokens, seed: seed})
		cancel()
		if err != nil {
			t.Errorf("theirs, pair %d: %v", pair, err)
		}
		gen, err := parseBench(out, model, maxTokens)
		if err != nil {
			t.Errorf("theirs, pair %d: %v", pair, err)
		}
		if len(gen) != peerRequests {
			t.Errorf("theirs, pair %d: %d generate results, want %d", pair, len(gen), peerRequests)
		}
		t.Logf("  pair %d theirs: generate median %7.1f tok/s, %d requests", pair, median(gen), len(gen))
		theirs = append(theirs, gen...)
	}
	mo, mt := median(ours), median(theirs)
	t.Logf("ours: median decode %.1f tok/s over %d requests (client-side %.1f); ollama cmd/bench: median generate %.1f tok/s over %d requests; ours/theirs %.3f (limit 1 ± %.2f)",
		mo, len(ours), median(oursClient), mt, len(theirs), mo/mt, peerTol)
	if !within(mo/mt, peerTol) {
		t.Errorf("our median decode rate %.1f tok/s is %+.1f%% off cmd/bench's %.1f tok/s (limit ±%.0f%%)", mo, 100*(mo/mt-1), mt, 100*peerTol)
	}
	if !t.Failed() {
		t.Logf("peer OK: medians agree within ±%.0f%%", 100*peerTol)
	}
}
