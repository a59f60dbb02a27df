package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/prompts"
)

// inputWant is what a run of in<N> prompts against Ollama must show.
type inputWant struct {
	runtime string
	lengths []int // BENCH_INPUT_TOKENS
}

// checkInputLengths checks a run of in<N> prompts: every row's prompt
// tokens within 1% (or 4) of N by the server's count, none cut, TTFT p50
// rising with N, and the num_ctx sent, which the server's /api/ps
// confirms it loaded the model with.
func checkInputLengths(f *summary.File, w inputWant) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	var sizes map[string]summary.InputSize
	for _, rt := range f.Runtimes {
		if rt.Name == w.runtime {
			sizes = rt.InputSizes
		}
	}
	table = append(table, fmt.Sprintf("%-8s %7s %9s %8s %12s %12s %11s %s", "N", "words", "prompt", "cut", "TTFT p50 s", "prefill t/s", "decode t/s", "sized by"))
	var ttft []float64
	for _, n := range w.lengths {
		name := prompts.InputName(n)
		r := row(f, w.runtime, name, 1)
		if r == nil {
			fail("no row %s/%s/conc=1", w.runtime, name)
			continue
		}
		s := sizes[name]
		table = append(table, fmt.Sprintf("%-8d %7d %9s %8d %12s %12s %11s %s, %d calibration requests",
			n, s.Words, fixedOrNull(r.PromptTokensMean, 1), r.TruncatedPrompts, fixedOrNull(r.TTFTP50, 3),
			fixedOrNull(r.PromptTPSMean, 1), fixedOrNull(r.DecodeTPSMean, 1), s.Method, s.CalibrationRequests))
		if r.InputTokensTarget == nil || *r.InputTokensTarget != n {
			fail("%s: input_tokens_target is %s, want %d", name, intOrNull(r.InputTokensTarget), n)
		}
		if r.Failures > 0 || r.Successes == 0 {
			fail("%s: %d of %d requests failed", name, r.Failures, r.Requests)
		}
		if r.PromptTokensMean == nil || math.Abs(*r.PromptTokensMean-float64(n)) > math.Max(4, 0.01*float64(n)) {
			fail("%s: the server counted %s prompt tokens, want %d within 1%% or 4", name, fixedOrNull(r.PromptTokensMean, 1), n)
		}
		if r.TruncatedPrompts > 0 {
			fail("%s: %d prompts cut by the server", name, r.TruncatedPrompts)
		}
		if s.CalibrationRequests > 6 {
			fail("%s: %d calibration requests, want at most 6", name, s.CalibrationRequests)
		}
		ttft = append(ttft, val(r.TTFTP50))
	}
	if !slices.IsSorted(ttft) {
		fail("TTFT p50 does not rise with the input: %v s", ttft)
	}
	want := slices.Max(w.lengths) + f.Arguments.MaxTokens
	switch {
	case f.Arguments.NumCtx == nil:
		fail("arguments.num_ctx is null, want %d", want)
	case *f.Arguments.NumCtx != want:
		fail("arguments.num_ctx is %d, want %d (the longest input and max_tokens)", *f.Arguments.NumCtx, want)
	}
	// Ollama's default num_ctx (2048 in 0.6) would have cut the longest
	// prompt: none cut means the num_ctx sent was used. Newer versions
	// also say so in /api/ps.
	switch got := loadedContext(f, w.runtime); {
	case got == 0:
		table = append(table, fmt.Sprintf("num_ctx %d sent; the longest prompt was not cut (/api/ps has no context_length)", want))
	case got != want:
		fail("/api/ps says the model was loaded with context_length %d, want the num_ctx sent, %d", got, want)
	default:
		table = append(table, fmt.Sprintf("num_ctx %d sent; /api/ps: the model loaded with context_length %d", want, got))
	}
	return table, fails
}

// checkCut checks a run whose BENCH_NUM_CTX is below its in<N> prompt:
// every request of it was cut, as Ollama reports (num_ctx as its count),
// and the row says so.
func checkCut(f *summary.File, runtime string, n int) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	r := row(f, runtime, prompts.InputName(n), 1)
	if r == nil || f.Arguments.NumCtx == nil {
		return nil, []string{fmt.Sprintf("no row %s/in%d/conc=1, or no num_ctx", runtime, n)}
	}
	table = append(table, fmt.Sprintf("num_ctx %d, in%d: %d of %d requests cut, the server counted %s prompt tokens",
		*f.Arguments.NumCtx, n, r.TruncatedPrompts, r.Successes, fixedOrNull(r.PromptTokensMean, 1)))
	if r.Successes == 0 || r.TruncatedPrompts != r.Successes {
		fail("in%d with num_ctx %d: truncated_prompts %d, want every one of %d successes", n, *f.Arguments.NumCtx, r.TruncatedPrompts, r.Successes)
	}
	return table, fails
}

// loadedContext is the context_length of the runtime's /api/ps entry in
// its model metadata, 0 if none.
func loadedContext(f *summary.File, runtime string) int {
	var m struct {
		PS struct {
			ContextLength int `json:"context_length"`
		} `json:"ps"`
	}
	if json.Unmarshal(f.ModelMetadata[runtime], &m) != nil {
		return 0
	}
	return m.PS.ContextLength
}
