//go:build e2e

package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// What TestClientAgainstServer sends, and how far the clocks may differ.
const (
	nativeRequests = 4    // per prompt, on /api/chat
	openAIRequests = 2    // per prompt, on /v1/chat/completions (token counts only)
	decodeTol      = 0.15 // client-side decode against the server's eval rate
)

// TestClientAgainstServer sends requests through the suite's own runtimes
// package, one at a time, and compares what the client measured with what
// the server reported for the same request: the client-side decode rate
// against the server's eval rate, TTFT against the server's prompt
// evaluation time, and the exact output token count.
func TestClientAgainstServer(t *testing.T) {
	var env envVars
	url, model := env.str("E2E_URL"), env.str("E2E_MODEL")
	promptNames := env.names("E2E_PROMPTS")
	maxTokens := env.integer("E2E_MAX_TOKENS")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	ps, err := prompts.Load(promptNames, "")
	if err != nil {
		t.Fatal(err)
	}
	native := newRuntime(t, "ollama", runtimes.KindOllama, url, model)
	v1 := newRuntime(t, "ollama-v1", runtimes.KindOpenAI, url, model)
	ctx := t.Context()

	t.Logf("Client against server: %d requests per prompt on %s/api/chat, one at a time, max_tokens %d", nativeRequests, url, maxTokens)
	t.Logf("%-7s %2s %6s %6s %9s %9s %9s %9s %10s %10s %6s",
		"prompt", "#", "tokens", "finish", "ttft_ms", "p_eval_ms", "total_ms", "eval_ms", "client/s", "server/s", "ratio")
	var clientRates, serverRates, ratios, ttfts, pevals []float64
	ttftBelow := 0
	for _, p := range ps {
		req := runtimes.Request{Prompt: p.Text, MaxTokens: maxTokens, Seed: seeded(), Temperature: 0}
		for i := range nativeRequests {
			r := native.Do(ctx, req)
			name := fmt.Sprintf("native %s #%d", p.Name, i+1)
			if !r.OK() {
				t.Errorf("%s: %v", name, r.Err)
				continue
			}
			c, s := clientDecode(r), serverDecode(r)
			t.Logf("%-7s %2d %6d %6s %9.1f %9.1f %9.1f %9.1f %10.1f %10.1f %6.3f",
				p.Name, i+1, r.OutputTokens, r.FinishReason, millis(r.TTFT), millis(r.PromptEval), millis(r.Total), millis(r.Eval), c, s, c/s)
			for _, msg := range checkTokens(r, maxTokens) {
				t.Errorf("%s: %s", name, msg)
			}
			for _, msg := range checkAgainstServer(r, decodeTol) {
				t.Errorf("%s: %s", name, msg)
			}
			if !hasServerTimes(r) {
				continue
			}
			if r.TTFT < r.PromptEval {
				ttftBelow++
			}
			clientRates, serverRates, ratios = append(clientRates, c), append(serverRates, s), append(ratios, c/s)
			ttfts, pevals = append(ttfts, millis(r.TTFT)), append(pevals, millis(r.PromptEval))
		}
	}
	if len(ratios) > 0 {
		t.Logf("client-side decode (output tokens / (total - TTFT)): median %.1f tok/s; server eval rate (eval_count / eval_duration): median %.1f tok/s",
			median(clientRates), median(serverRates))
		t.Logf("client / server per request: median %.3f, range %.3f..%.3f (limit 1 ± %.2f)",
			median(ratios), slices.Min(ratios), slices.Max(ratios), decodeTol)
		t.Logf("TTFT: median %.1f ms, range %.1f..%.1f; server prompt evaluation: median %.1f ms, range %.1f..%.1f; TTFT >= prompt eval on %d of %d requests",
			median(ttfts), slices.Min(ttfts), slices.Max(ttfts), median(pevals), slices.Min(pevals), slices.Max(pevals), len(ttfts)-ttftBelow, len(ttfts))
	}

	t.Logf("Token counts on %s/v1/chat/completions: %d requests per prompt", url, openAIRequests)
	for _, p := range ps {
		req := runtimes.Request{Prompt: p.Text, MaxTokens: maxTokens, Seed: seeded(), Temperature: 0}
		for i := range openAIRequests {
			r := v1.Do(ctx, req)
			name := fmt.Sprintf("openai %s #%d", p.Name, i+1)
			if !r.OK() {
				t.Errorf("%s: %v", name, r.Err)
				continue
			}
			t.Logf("%-7s %2d %6d %6s %9.1f %9s %9.1f %9s %10.1f", p.Name, i+1, r.OutputTokens, r.FinishReason, millis(r.TTFT), "-", millis(r.Total), "-", clientDecode(r))
			for _, msg := range checkTokens(r, maxTokens) {
				t.Errorf("%s: %s", name, msg)
			}
		}
	}
	if !t.Failed() {
		t.Logf("accuracy OK: every request produced %d output tokens; client-side decode within ±%.0f%% of the server's eval rate; TTFT >= prompt evaluation", maxTokens, 100*decodeTol)
	}
}
