package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
	"github.com/inferencebench/inferencebench/runtimes"
)

// The runtimes of scripts/e2e-vllm-mlx.sh, named as the suite knows them.
const (
	serverVLLM = runtimes.ServerVLLM
	serverMLX  = runtimes.ServerMLX
)

// serversWant is what the runs of scripts/e2e-vllm-mlx.sh against a real
// vLLM and a real mlx_lm.server must show.
type serversWant struct {
	servers     []string // vllm, mlx or both
	model       string   // the name vLLM serves the model under
	maxTokens   int      // BENCH_MAX_TOKENS of the cold run
	versions    map[string]string
	maxModelLen int // vLLM's --max-model-len
	prompts     []string
	concurrency []int
	rounds      int
	inputTokens []int
	turns       int
	prefix      int // BENCH_SHARED_PREFIX of the prefix run
	// blocks is each server's prefix-cache block in tokens: vLLM caches
	// whole blocks (128 tokens on its CPU backend, 16 on GPUs), so a
	// cached count falls short of the prompt shared by less than a
	// block; mlx_lm caches token by token (1).
	blocks map[string]int
}

// templateSlack is how many tokens at the end of a shared prompt may
// tokenize otherwise once more text follows them (the chat template's
// "Assistant:" before the reply that the next turn sends back).
const templateSlack = 2

// blockSlack is how many of a sized shared prefix's tokens are the chat
// template's after the system message (the user turn's start and the
// generation prompt), which the requests' own user text follows.
const blockSlack = 16

// cachedAtLeast is the fewest cached tokens a server whose cache holds
// shared tokens of a prompt, in blocks of block, must report.
func cachedAtLeast(shared float64, block int) float64 {
	if block < 1 {
		block = 1
	}
	return math.Floor((shared-templateSlack)/float64(block)) * float64(block)
}

// checkServersCold checks the cold run: every row complete and exact,
// each server's version, served model, context limit and way to a fresh
// state, vLLM's /metrics deltas agreeing with the client's count, and the
// control leaf of the fresh run not drifted on vLLM.
func checkServersCold(f *summary.File, w serversWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = append(table, summaryTable(f)...)
	for _, s := range w.servers {
		info := runtimeInfo(f, s)
		if info == nil {
			fail("%s: not in the summary's runtimes", s)
			continue
		}
		version := "null"
		if v := f.Versions[s]; v != nil {
			version = fmt.Sprintf("%q", *v)
		}
		table = append(table, fmt.Sprintf("%s: version %s, model %q, context limit %d (%s), fresh %s",
			s, version, info.Model, info.ContextLimit, orNone(info.ContextSource), strOrNull(info.Fresh)))
		if want := w.versions[s]; version != fmt.Sprintf("%q", want) {
			fail("%s: versions.%s is %s, want %q", s, s, version, want)
		}
		if info.FreshError != nil {
			fail("%s: the server refused a fresh start: %s", s, *info.FreshError)
		}
		switch s {
		case serverVLLM:
			if info.Fresh == nil || *info.Fresh != "reset-prefix-cache" {
				fail("vllm: fresh is %s, want \"reset-prefix-cache\"", strOrNull(info.Fresh))
			}
			if info.ContextLimit != w.maxModelLen {
				fail("vllm: context_limit %d, want --max-model-len %d", info.ContextLimit, w.maxModelLen)
			}
			if info.Model != w.model {
				fail("vllm: model %q, want %q", info.Model, w.model)
			}
			if got := maxModelLen(f, s, w.model); got != w.maxModelLen {
				fail("vllm: its /v1/models entry (model_metadata) says max_model_len %d, want %d", got, w.maxModelLen)
			}
		case serverMLX:
			if info.Fresh == nil || *info.Fresh != "none" {
				fail("mlx: fresh is %s, want \"none\": mlx_lm.server offers no way to drop its prompt cache", strOrNull(info.Fresh))
			}
		}
		if line := controlLine(info); line != "" {
			table = append(table, s+": "+line)
			// A control's verdict is reported, not failed: with fresh
			// starts, vLLM's CPU backend decoded its control −23% and
			// −15% (p 0.004 each), +22% and +60% against its first leaf
			// in four runs here, and −14% and +54% without them, so what
			// moves it is the machine, not state a leaf left behind
			// (which its prefix cache cannot do to the decode rate, and
			// cold prompts' markers keep out of TTFT). The control must
			// have been judged: a verdict from requests on both sides.
			if c := info.Control; c.Verdict != stats.ControlDrifted && c.Verdict != stats.ControlSteady {
				fail("%s: the control leaf was not judged: %s", s, line)
			}
		} else {
			fail("%s: no control leaf in the cold run", s)
		}
	}
	for _, s := range w.servers {
		for _, p := range w.prompts {
			for _, c := range w.concurrency {
				r := row(f, s, p, c)
				if r == nil {
					fail("no row %s/%s/conc=%d", s, p, c)
					continue
				}
				fails = append(fails, checkRow(r, c*w.rounds, w.maxTokens)...)
				if s == serverVLLM {
					line, bad := metricsLine(r, w.maxTokens)
					table = append(table, line)
					if bad {
						fail("%s", line)
					}
				}
			}
		}
	}
	return table, fails
}

// checkRow: requests rounds of the leaf, all successful, a decode rate,
// and every reply exactly maxTokens long by the server's count.
func checkRow(r *summary.Row, requests, maxTokens int) []string {
	var fails []string
	name := rowName(*r)
	if r.Requests != requests || r.Successes != r.Requests || r.Failures != 0 {
		fails = append(fails, fmt.Sprintf("%s: %d of %d requests succeeded, want %d of %d (errors %v)", name, r.Successes, r.Requests, requests, requests, r.Errors))
	}
	if r.OutputTokensApprox {
		fails = append(fails, name+": output tokens counted by chunks: the server gave no token count")
	}
	if r.OutputTokensMin == nil || r.OutputTokensMax == nil || *r.OutputTokensMin != maxTokens || *r.OutputTokensMax != maxTokens {
		fails = append(fails, fmt.Sprintf("%s: output tokens per request from %s to %s, want every request exactly %d",
			name, intOrNull(r.OutputTokensMin), intOrNull(r.OutputTokensMax), maxTokens))
	}
	if r.DecodeTPSMean == nil || !(*r.DecodeTPSMean > 0) || r.TTFTP50 == nil || !(*r.TTFTP50 > 0) {
		fails = append(fails, fmt.Sprintf("%s: decode %s tok/s, TTFT p50 %s s: want both above 0", name, floatOrNull(r.DecodeTPSMean), floatOrNull(r.TTFTP50)))
	}
	return fails
}

// metricsLine compares a vLLM row's /metrics deltas with the client's
// count: the server generated exactly the timed requests' tokens (its
// counters are read around the timed rounds), and its own prefill and
// decode times are there. bad is set when they disagree.
func metricsLine(r *summary.Row, maxTokens int) (line string, bad bool) {
	want := float64(r.Successes * maxTokens)
	line = fmt.Sprintf("%s: /metrics: %s tokens generated (client: %.0f), server prefill %s s, decode %s s a request",
		rowName(*r), floatOrNull(r.ServerGeneratedTokens), want, fixedOrNull(r.ServerPrefillSMean, 4), fixedOrNull(r.ServerDecodeSMean, 3))
	bad = r.ServerGeneratedTokens == nil || *r.ServerGeneratedTokens != want ||
		r.ServerPrefillSMean == nil || r.ServerDecodeSMean == nil || !(*r.ServerDecodeSMean > 0)
	return line, bad
}

// controlLine is a runtime's control for the table; "" without a control.
func controlLine(info *summary.RuntimeInfo) string {
	c := info.Control
	if c == nil {
		return ""
	}
	return fmt.Sprintf("control %s: %s (%d requests against %d; TTFT %+.0f%% p=%s, decode %+.0f%% p=%s)",
		c.Leaf, c.Verdict, c.RequestsFirst, c.RequestsEnd, 100*float64(c.TTFTChange), fixedOrNull(c.TTFTP, 3),
		100*float64(c.DecodeChange), fixedOrNull(c.DecodeP, 3))
}

// checkServersInput checks the in<N> run: each server's prompt tokens by
// its own count within 1% (or 4) of N, sized by vLLM's /tokenize and by
// calibration requests on mlx_lm, none cut, TTFT p50 rising with N.
func checkServersInput(f *summary.File, w serversWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = append(table, fmt.Sprintf("%-6s %-7s %6s %9s %12s %12s %11s %s", "server", "N", "words", "prompt", "TTFT p50 s", "prefill t/s", "decode t/s", "sized by"))
	for _, s := range w.servers {
		info := runtimeInfo(f, s)
		if info == nil {
			fail("%s: not in the input run's runtimes", s)
			continue
		}
		method := map[string]string{serverVLLM: "tokenize", serverMLX: "requests"}[s]
		var ttft []float64
		for _, n := range w.inputTokens {
			name := prompts.InputName(n)
			r := row(f, s, name, 1)
			if r == nil {
				fail("no row %s/%s/conc=1", s, name)
				continue
			}
			size := info.InputSizes[name]
			table = append(table, fmt.Sprintf("%-6s %-7d %6d %9s %12s %12s %11s %s, %d calibration requests",
				s, n, size.Words, fixedOrNull(r.PromptTokensMean, 1), fixedOrNull(r.TTFTP50, 4),
				fixedOrNull(r.PromptTPSMean, 1), fixedOrNull(r.DecodeTPSMean, 1), size.Method, size.CalibrationRequests))
			if r.Failures > 0 || r.Successes == 0 {
				fail("%s/%s: %d of %d requests failed", s, name, r.Failures, r.Requests)
			}
			if r.PromptTokensMean == nil || math.Abs(*r.PromptTokensMean-float64(n)) > math.Max(4, 0.01*float64(n)) {
				fail("%s/%s: the server counted %s prompt tokens, want %d within 1%% or 4", s, name, fixedOrNull(r.PromptTokensMean, 1), n)
			}
			if r.TruncatedPrompts > 0 {
				fail("%s/%s: %d prompts cut", s, name, r.TruncatedPrompts)
			}
			if size.Method != method {
				fail("%s/%s: sized by %q, want %q", s, name, size.Method, method)
			}
			ttft = append(ttft, val(r.TTFTP50))
		}
		if !slices.IsSorted(ttft) {
			fail("%s: TTFT p50 does not rise with the input: %v s", s, ttft)
		}
	}
	return table, fails
}

// checkServersTurns checks the conversations: each turn's prompt longer
// than the one before, and the history served from the server's cache
// from turn 2 on (cached tokens of at least the previous turn's prompt in
// whole blocks, see cachedAtLeast), as both servers report in
// usage.prompt_tokens_details.
func checkServersTurns(f *summary.File, w serversWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	table = append(table, fmt.Sprintf("%-6s %4s %8s %8s %8s %10s %10s", "server", "turn", "requests", "prompt", "cached", "TTFT p50 s", "decode t/s"))
	for _, s := range w.servers {
		var r *summary.Row
		for i := range f.Summary {
			if f.Summary[i].Runtime == s {
				r = &f.Summary[i]
			}
		}
		if r == nil {
			fail("%s: no row in the conversations' run", s)
			continue
		}
		if r.Failures > 0 || r.NotSent > 0 {
			fail("%s: %d failures, %d turns not sent", s, r.Failures, r.NotSent)
		}
		if len(r.Turns) != w.turns {
			fail("%s: %d turns in the row, want %d", s, len(r.Turns), w.turns)
			continue
		}
		for k, t := range r.Turns {
			table = append(table, fmt.Sprintf("%-6s %4d %8d %8s %8s %10s %10s", s, t.Turn, t.Requests,
				fixedOrNull(t.PromptTokensMean, 1), fixedOrNull(t.CachedPromptTokensMean, 1), fixedOrNull(t.TTFTP50, 4), fixedOrNull(t.DecodeTPSMean, 1)))
			if k == 0 {
				continue
			}
			prev := r.Turns[k-1]
			if val(t.PromptTokensMean) <= val(prev.PromptTokensMean) {
				fail("%s turn %d: prompt %s tokens, not longer than turn %d's %s", s, t.Turn, fixedOrNull(t.PromptTokensMean, 1), prev.Turn, fixedOrNull(prev.PromptTokensMean, 1))
			}
			if want := cachedAtLeast(val(prev.PromptTokensMean), w.blocks[s]); t.CachedPromptTokensMean == nil || *t.CachedPromptTokensMean < want {
				fail("%s turn %d: %s cached prompt tokens, want at least %.0f (turn %d's prompt of %s tokens in whole blocks of %d): the history was not served from the cache",
					s, t.Turn, fixedOrNull(t.CachedPromptTokensMean, 1), want, prev.Turn, fixedOrNull(prev.PromptTokensMean, 1), w.blocks[s])
			}
		}
	}
	return table, fails
}

// checkServersPrefix checks the shared-prefix run: vLLM serves the shared
// system message from its prefix cache, in whole blocks; mlx_lm's is
// reported, not held: its prompt cache keeps a few recent prompts, and
// which one a concurrent request finds is not the client's to say.
func checkServersPrefix(f *summary.File, w serversWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	for _, s := range w.servers {
		info := runtimeInfo(f, s)
		var r *summary.Row
		for i := range f.Summary {
			if f.Summary[i].Runtime == s {
				r = &f.Summary[i]
			}
		}
		if info == nil || r == nil {
			fail("%s: not in the shared-prefix run", s)
			continue
		}
		size := info.InputSizes["shared-prefix"]
		table = append(table, fmt.Sprintf("%s: shared prefix %d sized to %d tokens (%s); prompt %s tokens, cached %s, cache-hit ratio %s, TTFT p50 %s s",
			s, w.prefix, size.PromptTokens, orNone(size.Method), fixedOrNull(r.PromptTokensMean, 1), fixedOrNull(r.CachedPromptTokensMean, 1),
			fixedOrNull(r.CacheHitRatio, 3), fixedOrNull(r.TTFTP50, 4)))
		if r.Failures > 0 || r.Successes == 0 {
			fail("%s: %d of %d requests failed", s, r.Failures, r.Requests)
		}
		if math.Abs(float64(size.PromptTokens-w.prefix)) > math.Max(4, 0.01*float64(w.prefix)) {
			fail("%s: the shared prefix was sized to %d tokens, want %d within 1%% or 4", s, size.PromptTokens, w.prefix)
		}
		// The prefix is sized with the chat template's tokens around it;
		// a block's worth of them may follow the system message.
		if want := cachedAtLeast(float64(size.PromptTokens-blockSlack), w.blocks[s]); s == serverVLLM && (r.CachedPromptTokensMean == nil || *r.CachedPromptTokensMean < want) {
			fail("vllm: %s cached prompt tokens with a shared prefix of %d tokens, want at least %.0f (in whole blocks of %d)",
				fixedOrNull(r.CachedPromptTokensMean, 1), size.PromptTokens, want, w.blocks[s])
		}
	}
	return table, fails
}

// staleTable lists each server's control with BENCH_FRESH=off beside the
// fresh run's, for the record: neither server keeps state that slows a
// later leaf as Ollama's runner does, so neither is held to drift.
func staleTable(fresh, stale *summary.File, servers []string) []string {
	var table []string
	for _, s := range servers {
		for _, run := range []struct {
			name string
			f    *summary.File
		}{{"fresh=leaf", fresh}, {"fresh=off", stale}} {
			line := "no control"
			if info := runtimeInfo(run.f, s); info != nil {
				if l := controlLine(info); l != "" {
					line = l
				}
			}
			table = append(table, fmt.Sprintf("%s %s: %s", s, run.name, line))
		}
	}
	return table
}

func runtimeInfo(f *summary.File, name string) *summary.RuntimeInfo {
	for i := range f.Runtimes {
		if f.Runtimes[i].Name == name {
			return &f.Runtimes[i]
		}
	}
	return nil
}

func strOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// maxModelLen is max_model_len of the model's entry in a runtime's
// /v1/models reply (model_metadata), 0 if none.
func maxModelLen(f *summary.File, runtime, model string) int {
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if json.Unmarshal(f.ModelMetadata[runtime], &list) != nil {
		return 0
	}
	for _, m := range list.Data {
		if m.ID == model || strings.TrimSuffix(m.ID, "/") == model {
			return m.MaxModelLen
		}
	}
	return 0
}
