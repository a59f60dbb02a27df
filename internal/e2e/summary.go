package e2e

import (
	"fmt"
	"slices"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// summaryWant is what the summary of a suite run against Ollama must show.
type summaryWant struct {
	// runtimes, prompts and concurrency are the leaves the run benchmarked:
	// one row for each combination, and no other row.
	runtimes, prompts []string
	concurrency       []int
	// rounds (-benchtime=Nx) and count (go test -count) give each row's
	// requests: concurrency × rounds × count.
	rounds, count int
	// maxTokens is the token limit: every request must produce exactly that
	// many output tokens, by the server's count.
	maxTokens int
	// version is the version every runtime of kind ollama must report.
	version string
}

// checkSummary returns the failed checks of a suite run's summary, one
// message each; none for a summary that passes. Every request's token
// count is checked through the rows' output_tokens_min and
// output_tokens_max.
func checkSummary(f *summary.File, w summaryWant) []string {
	fails := checkRunFacts(f, w)
	for _, r := range f.Summary {
		fails = append(fails, checkSummaryRow(r, w)...)
	}
	return append(fails, checkLeaves(f, w)...)
}

// checkRunFacts checks what the summary says of the run as a whole: it
// finished, with w's token limit, and every runtime of kind ollama
// reports w's version and has its /api/show reply and /api/ps entry.
func checkRunFacts(f *summary.File, w summaryWant) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if f.Complete == nil || !*f.Complete {
		fail("complete is %s, want true: the suite run did not finish", boolOrNull(f.Complete))
	}
	if f.Arguments.MaxTokens != w.maxTokens {
		fail("arguments.max_tokens is %d, want %d", f.Arguments.MaxTokens, w.maxTokens)
	}
	natives := 0
	for _, rt := range f.Runtimes {
		if rt.Kind != string(runtimes.KindOllama) {
			continue
		}
		natives++
		if v := f.Versions[rt.Name]; v == nil || *v != w.version {
			got := "null"
			if v != nil {
				got = fmt.Sprintf("%q", *v)
			}
			fail("versions.%s is %s, want %q", rt.Name, got, w.version)
		}
		if !hasKey(f.ModelMetadata[rt.Name], "show") {
			fail("model_metadata.%s has no /api/show reply", rt.Name)
		}
		if !hasKey(f.ModelMetadata[rt.Name], "ps") {
			fail("model_metadata.%s has no /api/ps entry of the loaded model", rt.Name)
		}
	}
	if natives == 0 {
		fail("runtimes lists no runtime of kind %s, so no version was checked", runtimes.KindOllama)
	}
	return fails
}

// checkSummaryRow checks one row: conc × rounds × count requests, all
// successful, tokens counted by the server, its rates and times above 0,
// and every request exactly w.maxTokens output tokens.
func checkSummaryRow(r summary.Row, w summaryWant) []string {
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	name := rowName(r)
	if want := r.Concurrency * w.rounds * w.count; r.Requests != want {
		fail("%s: %d requests, want %d (conc × rounds × count)", name, r.Requests, want)
	}
	if r.Successes <= 0 || r.Successes != r.Requests {
		fail("%s: %d of %d requests succeeded", name, r.Successes, r.Requests)
	}
	if r.Failures != 0 {
		fail("%s: %d failures", name, r.Failures)
	}
	if r.OutputTokensApprox {
		fail("%s: output tokens were counted by chunks: the server gave no token count", name)
	}
	for _, m := range []struct {
		name string
		v    *float64
	}{
		{"decode_tps_mean", r.DecodeTPSMean}, {"decode_tps_p50", r.DecodeTPSP50}, {"decode_tps_p95", r.DecodeTPSP95},
		{"ttft_s_mean", r.TTFTMean}, {"total_s_mean", r.TotalMean}, {"aggregate_output_tps_mean", r.AggregateTPSMean},
	} {
		if m.v == nil || !(*m.v > 0) {
			fail("%s: %s is %s, want > 0", name, m.name, floatOrNull(m.v))
		}
	}
	if r.OutputTokensMin == nil || r.OutputTokensMax == nil ||
		*r.OutputTokensMin != w.maxTokens || *r.OutputTokensMax != w.maxTokens {
		fail("%s: output tokens per request from %s to %s, want every request exactly %d",
			name, intOrNull(r.OutputTokensMin), intOrNull(r.OutputTokensMax), w.maxTokens)
	}
	return fails
}

// checkLeaves checks that the summary has a row for each of w's leaves
// and no other (summary.Decode refuses a file with a row twice).
func checkLeaves(f *summary.File, w summaryWant) []string {
	var fails []string
	type key struct {
		rt, prompt string
		conc       int
	}
	seen := map[key]bool{}
	for _, r := range f.Summary {
		seen[key{r.Runtime, r.Prompt, r.Concurrency}] = true
	}
	for _, rt := range w.runtimes {
		for _, p := range w.prompts {
			for _, c := range w.concurrency {
				if !seen[key{rt, p, c}] {
					fails = append(fails, fmt.Sprintf("no row for %s/%s/conc=%d", rt, p, c))
				}
			}
		}
	}
	for _, r := range f.Summary {
		if !slices.Contains(w.runtimes, r.Runtime) || !slices.Contains(w.prompts, r.Prompt) || !slices.Contains(w.concurrency, r.Concurrency) {
			fails = append(fails, fmt.Sprintf("unexpected row %s/%s/conc=%d", r.Runtime, r.Prompt, r.Concurrency))
		}
	}
	return fails
}

// summaryTable returns the summary's rows as a table to print, a header
// line first.
func summaryTable(f *summary.File) []string {
	lines := []string{fmt.Sprintf("%-10s %-7s %4s %5s %5s %5s %9s %9s %9s %8s",
		"runtime", "prompt", "conc", "req", "ok", "fail", "ttft_ms", "decode/s", "agg/s", "tokens")}
	for _, r := range f.Summary {
		tokens := intOrNull(r.OutputTokensMin)
		if r.OutputTokensMax != nil && (r.OutputTokensMin == nil || *r.OutputTokensMax != *r.OutputTokensMin) {
			tokens += "-" + intOrNull(r.OutputTokensMax)
		}
		lines = append(lines, fmt.Sprintf("%-10s %-7s %4d %5d %5d %5d %9.1f %9.1f %9.1f %8s",
			r.Runtime, r.Prompt, r.Concurrency, r.Requests, r.Successes, r.Failures,
			1000*val(r.TTFTMean), val(r.DecodeTPSMean), val(r.AggregateTPSMean), tokens))
	}
	return lines
}
