//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// What TestColdPromptRate sends, and how far the rates may differ.
const (
	sideRounds = 3   // rounds per prompt and concurrency
	coldFactor = 2.0 // a row's prompt_tps_mean against the side figure
)

// TestColdPromptRate checks that the cold run's prompt rates are the
// server's rate for prompts it has not seen. It measures that rate on the
// side, through the suite's own runtimes package, with prompts made unique
// by a marker of its own (prompts.Cold), and compares every native row's
// prompt_tps_mean with it. The rate depends on what the server holds: once
// a concurrency-4 leaf has filled its four parallel slots, every prompt is
// evaluated against a KV cache four times as full, and its rate falls (by
// 1.5× to 2× with this model; the suite's first leaf alone ran on an empty
// cache). So the side measurement unloads the model and replays the run's
// native leaves in their order: the same prompts, concurrencies and token
// limit, sideRounds rounds each, the model unloaded again before each leaf
// where the run did so (BENCH_FRESH=leaf, the default). A prompt the server had cached would read
// many times faster (its count includes the cached tokens, its time does
// not): one repeated request shows by how much.
func TestColdPromptRate(t *testing.T) {
	var env envVars
	url, model := env.str("E2E_URL"), env.str("E2E_MODEL")
	path := env.str("E2E_SUMMARY")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	f := readSummary(t, path)
	kind := kinds(f)
	// The prompts and concurrencies of the run's native rows, in the
	// order the run measured them.
	var keys []sideKey
	seen := map[sideKey]bool{}
	for _, r := range f.Summary {
		k := sideKey{r.Prompt, r.Concurrency}
		if r.RateRPS == nil && kind[r.Runtime] == runtimes.KindOllama && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	// The prompts as the run sent them (before their marker lines).
	text := map[string]string{}
	for _, p := range f.Prompts {
		text[p.Name] = p.Text
	}
	for _, k := range keys {
		if text[k.prompt] == "" {
			t.Fatalf("%s: no text of prompt %q under \"prompts\"", path, k.prompt)
		}
	}
	maxTokens := f.Arguments.MaxTokens
	rt := newRuntime(t, "ollama", runtimes.KindOllama, url, model)
	ctx := t.Context()
	marker := prompts.Marker{Run: "e2e-cold-prompt-rate", Salt: time.Now().UnixNano()}
	req := func(p string, m prompts.Marker) runtimes.Request {
		return runtimes.Request{Prompt: prompts.Cold(text[p], m), MaxTokens: maxTokens, Seed: seeded(), Temperature: 0, KeepAlive: "30m"}
	}

	uctx, cancel := context.WithTimeout(ctx, time.Minute)
	err := unloadModel(uctx, http.DefaultClient, url, model, 100*time.Millisecond)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Cold prompt rate on the side: model %s unloaded; the run's native leaves replayed in order, %d rounds each, max_tokens %d, on %s/api/chat, every prompt unique (marker %q…)",
		model, sideRounds, maxTokens, url, marker.Run)
	side := map[sideKey]sideRate{}
	for i, k := range keys {
		if i > 0 && f.Arguments.Fresh == "leaf" {
			// The run unloaded the model before each leaf run
			// (BENCH_FRESH=leaf): each leaf started on an empty cache.
			uctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := unloadModel(uctx, http.DefaultClient, url, model, 100*time.Millisecond)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
		}
		s := sideRate{prompt: k.prompt, concurrency: k.concurrency}
		for round := 1; round <= sideRounds; round++ {
			reqs := make([]runtimes.Request, k.concurrency)
			for j := range reqs {
				m := marker
				m.Leaf, m.Round, m.Request = i+1, round, j
				reqs[j] = req(k.prompt, m)
			}
			_, results := rt.Round(ctx, reqs)
			var rates []float64
			for j, r := range results {
				if rate := promptRate(r); r.OK() && rate > 0 {
					rates = append(rates, rate)
					continue
				}
				t.Errorf("side %s/conc=%d round %d #%d: %v; prompt_eval_count %d, prompt_eval_duration %v",
					k.prompt, k.concurrency, round, j+1, r.Err, r.PromptTokens, r.PromptEval)
			}
			if len(rates) > 0 {
				s.rounds = append(s.rounds, rates)
			}
		}
		side[k] = s
		t.Logf("  %-7s conc=%d: %s tok/s by round; figure (median of round means) %.1f tok/s",
			k.prompt, k.concurrency, roundsString(s.rounds), s.figure())
	}

	// The control: a prompt sent again, which the server answers from its
	// cache, as it would every request of a run whose prompts were not
	// unique.
	if len(keys) > 0 {
		k := keys[0]
		m := marker
		m.Leaf, m.Round = len(keys)+1, 1
		first, again := rt.Do(ctx, req(k.prompt, m)), rt.Do(ctx, req(k.prompt, m))
		if !first.OK() || !again.OK() {
			t.Errorf("control: %v; %v", first.Err, again.Err)
		}
		cold, cached := promptRate(first), promptRate(again)
		t.Logf("control: prompt %q sent twice: %.1f tok/s the first time (%d tokens in %.1f ms), %.1f tok/s again (%d tokens in %.1f ms, cached), %.1f×",
			k.prompt, cold, first.PromptTokens, millis(first.PromptEval), cached, again.PromptTokens, millis(again.PromptEval), cached/cold)
		if !(cached > 2*coldFactor*cold) {
			t.Errorf("control: the repeated prompt read %.1f tok/s against %.1f tok/s cold: a cached prompt must read far faster (> %g×) for this check to tell cold from cached",
				cached, cold, 2*coldFactor)
		}
	}

	table, fails := checkColdPromptRates(f, side, coldFactor)
	t.Logf("Cold run %s (cache %s) against the side figure of its prompt and concurrency:", path, f.Arguments.Cache)
	logChecks(t, table, fails)
	var lo, hi float64
	n, v1, v1Null := 0, 0, 0
	for _, r := range f.Summary {
		if kind[r.Runtime] == runtimes.KindOpenAI {
			v1++
			if r.PromptTPSMean == nil {
				v1Null++
			}
		}
		if s, ok := side[sideKey{r.Prompt, r.Concurrency}]; ok && r.PromptTPSMean != nil && kind[r.Runtime] == runtimes.KindOllama {
			ratio := *r.PromptTPSMean / s.figure()
			if n == 0 || ratio < lo {
				lo = ratio
			}
			hi = max(hi, ratio)
			n++
		}
	}
	if n > 0 {
		t.Logf("cold prompt rate: %d native rows, prompt_tps_mean / side figure %.3f..%.3f (limit ×%g either way)", n, lo, hi, coldFactor)
	} else {
		t.Logf("cold prompt rate: no native row has a prompt_tps_mean to compare")
	}
	t.Logf("cold prompt rate: %d of %d OpenAI-kind rows (ollama-v1) have prompt_tps null: Ollama's /v1 reports token counts but no prompt timing", v1Null, v1)
	if !t.Failed() {
		t.Logf("cold prompts OK: every native row's prompt rate is the server's cold rate within ×%g", coldFactor)
	}
}

func roundsString(rounds [][]float64) string {
	var parts []string
	for _, rd := range rounds {
		var xs []string
		for _, x := range rd {
			xs = append(xs, fmt.Sprintf("%.0f", x))
		}
		parts = append(parts, "["+strings.Join(xs, " ")+"]")
	}
	return strings.Join(parts, " ")
}

// TestWarmPromptRate checks the rows of the warm run (E2E_WARM_SUMMARY,
// BENCH_CACHE=warm): every request succeeded and no row has a prompt rate,
// as the server's prompt count then includes cached tokens that its prompt
// time does not.
func TestWarmPromptRate(t *testing.T) {
	var env envVars
	path := env.str("E2E_WARM_SUMMARY")
	if err := env.err(); err != nil {
		t.Fatal(err)
	}
	f := readSummary(t, path)
	table, fails := checkWarmPromptRates(f)
	t.Logf("Warm run %s (cache %s):", path, f.Arguments.Cache)
	logChecks(t, table, fails)
	var rows []string
	for _, r := range f.Summary {
		rows = append(rows, fmt.Sprintf("%s/%s/conc=%d %s", r.Runtime, r.Prompt, r.Concurrency, fixedOrNull(r.PromptTPSMean, 1)))
	}
	t.Logf("warm run: prompt_tps_mean by row: %s (want null: ollama's prompt count includes cached tokens; ollama-v1 reports no prompt timing)",
		strings.Join(rows, ", "))
	if !t.Failed() {
		t.Logf("warm prompts OK: %d rows, every request succeeded, prompt_tps null in every row", len(f.Summary))
	}
}
