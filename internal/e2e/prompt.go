package e2e

import (
	"fmt"
	"math"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// promptRate is the server's prompt rate of one request as Ollama reports
// it, prompt_eval_count / prompt_eval_duration, in tokens per second: the
// figure the suite's prompt_tps is made of. NaN when the server reported
// no count or no time. For a prompt the server had cached, the count
// includes the cached tokens and the time does not, so the ratio is far
// above the real rate.
func promptRate(r runtimes.Result) float64 {
	if r.PromptTokens <= 0 || r.PromptEval <= 0 {
		return math.NaN()
	}
	return float64(r.PromptTokens) / r.PromptEval.Seconds()
}

// sideRate is the server's cold prompt rate measured beside a suite run
// for one prompt at one concurrency, as the suite's rounds send it: rounds
// of concurrency requests at once, each request's prompt unique.
type sideRate struct {
	prompt      string
	concurrency int
	// rounds holds each round's prompt rates, one per request.
	rounds [][]float64
}

// figure is what a row's prompt_tps_mean is compared with: the median
// over the rounds of each round's mean rate. At concurrency 1 that is the
// median of the requests. At higher concurrency a round's rates are not
// alike (Ollama evaluates one prompt alone and the others together, each
// of those over the whole batch's time), so each round is taken whole,
// as the row's mean takes it, and the median over rounds keeps one
// disturbed round from moving the figure.
func (s sideRate) figure() float64 {
	var means []float64
	for _, rd := range s.rounds {
		means = append(means, mean(rd))
	}
	return median(means)
}

// requests returns every request's rate.
func (s sideRate) requests() []float64 {
	var all []float64
	for _, rd := range s.rounds {
		all = append(all, rd...)
	}
	return all
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// withinFactor reports whether x is within a factor f of ref: ref/f ≤ x
// ≤ ref·f. A missing figure (NaN) or a ref of 0 is never within.
func withinFactor(x, ref, f float64) bool {
	return ref > 0 && x >= ref/f && x <= ref*f
}

// sideKey names a side measurement: a prompt at a concurrency.
type sideKey struct {
	prompt      string
	concurrency int
}

// kinds maps each runtime of the file to its protocol kind.
func kinds(f *summary.File) map[string]runtimes.Kind {
	k := map[string]runtimes.Kind{}
	for _, rt := range f.Runtimes {
		k[rt.Name] = runtimes.Kind(rt.Kind)
	}
	return k
}

func rowName(r summary.Row) string {
	if r.RateRPS != nil {
		return fmt.Sprintf("row %s/%s/rate=%v", r.Runtime, r.Prompt, *r.RateRPS)
	}
	return fmt.Sprintf("row %s/%s/conc=%d", r.Runtime, r.Prompt, r.Concurrency)
}

// checkColdPromptRates compares a cold run's rows with the server's cold
// prompt rate measured on the side (side, by prompt and concurrency):
// every row of a runtime of kind ollama must have a prompt_tps_mean within
// a factor of factor of the side figure (sideRate.figure) of its prompt
// and concurrency. Rows of kind openai must have prompt_tps null: Ollama's
// /v1 reports no prompt timing, and nothing else may stand in for it. It
// returns a table of what was compared (a header first) and the failed
// checks.
func checkColdPromptRates(f *summary.File, side map[sideKey]sideRate, factor float64) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if f.Arguments.Cache != "cold" {
		fail("arguments.cache is %q, want \"cold\": the run's prompts were not unique", f.Arguments.Cache)
	}
	table = []string{fmt.Sprintf("%-10s %-7s %4s %8s %10s %10s %10s %7s",
		"runtime", "prompt", "conc", "p_tokens", "row_mean/s", "side/s", "side_med/s", "ratio")}
	kind := kinds(f)
	compared := 0
	for _, r := range f.Summary {
		if r.RateRPS != nil {
			continue // open loop: no side measurement of its shape
		}
		name := rowName(r)
		switch kind[r.Runtime] {
		case runtimes.KindOllama:
			s, ok := side[sideKey{r.Prompt, r.Concurrency}]
			ref := s.figure()
			row := val(r.PromptTPSMean)
			ratio := row / ref
			table = append(table, fmt.Sprintf("%-10s %-7s %4d %8.1f %10s %10.1f %10.1f %7.3f",
				r.Runtime, r.Prompt, r.Concurrency, val(r.PromptTokensMean), fixedOrNull(r.PromptTPSMean, 1), ref, median(s.requests()), ratio))
			switch {
			case !ok || math.IsNaN(ref):
				fail("%s: no side measurement of prompt %q at concurrency %d", name, r.Prompt, r.Concurrency)
			case r.PromptTPSMean == nil:
				fail("%s: prompt_tps_mean is null, want about %.1f tok/s, the server's cold prompt rate", name, ref)
			case !withinFactor(row, ref, factor):
				fail("%s: prompt_tps_mean %.1f tok/s is %.2f× the server's cold prompt rate measured on the side, %.1f tok/s (limit ×%g either way)",
					name, row, ratio, ref, factor)
			}
			compared++
		case runtimes.KindOpenAI:
			table = append(table, fmt.Sprintf("%-10s %-7s %4d %8.1f %10s %10s %10s %7s",
				r.Runtime, r.Prompt, r.Concurrency, val(r.PromptTokensMean), fixedOrNull(r.PromptTPSMean, 1), "-", "-", "-"))
			if r.PromptTPSMean != nil {
				fail("%s: prompt_tps_mean is %s, want null: Ollama's /v1 reports no prompt timing", name, fixedOrNull(r.PromptTPSMean, 1))
			}
		default:
			fail("%s: runtime %q is not in the file's runtimes", name, r.Runtime)
		}
	}
	if compared == 0 {
		fail("no row of a runtime of kind %s: nothing was compared", runtimes.KindOllama)
	}
	return table, fails
}

// checkWarmPromptRates checks the rows of a warm run (every request of a
// leaf sends the same prompt): every request succeeded, and no row has a
// prompt rate. Ollama counts cached prompt tokens in prompt_eval_count but
// not in prompt_eval_duration, so the suite must leave the figure out
// (null) rather than report their ratio, although the server reported
// both (prompt_tokens_mean is set). Ollama's /v1 reports no prompt timing
// at all. It returns a table of the rows (a header first) and the failed
// checks.
func checkWarmPromptRates(f *summary.File) (table, fails []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if f.Arguments.Cache != "warm" {
		fail("arguments.cache is %q, want \"warm\"", f.Arguments.Cache)
	}
	table = []string{fmt.Sprintf("%-10s %-7s %4s %5s %5s %8s %15s %14s %14s",
		"runtime", "prompt", "conc", "req", "ok", "p_tokens", "prompt_tps_mean", "prompt_tps_p50", "prompt_tps_p95")}
	kind := kinds(f)
	natives := 0
	for _, r := range f.Summary {
		name := rowName(r)
		table = append(table, fmt.Sprintf("%-10s %-7s %4d %5d %5d %8.1f %15s %14s %14s",
			r.Runtime, r.Prompt, r.Concurrency, r.Requests, r.Successes, val(r.PromptTokensMean),
			fixedOrNull(r.PromptTPSMean, 1), fixedOrNull(r.PromptTPSP50, 1), fixedOrNull(r.PromptTPSP95, 1)))
		if r.Successes <= 0 || r.Successes != r.Requests || r.Failures != 0 {
			fail("%s: %d of %d requests succeeded, %d failed", name, r.Successes, r.Requests, r.Failures)
		}
		if r.PromptTPSMean != nil || r.PromptTPSP50 != nil || r.PromptTPSP95 != nil {
			fail("%s: prompt_tps mean, p50, p95 are %s, %s, %s, want null: in a warm run Ollama's prompt_eval_count includes cached tokens that prompt_eval_duration does not time",
				name, fixedOrNull(r.PromptTPSMean, 1), fixedOrNull(r.PromptTPSP50, 1), fixedOrNull(r.PromptTPSP95, 1))
		}
		switch kind[r.Runtime] {
		case runtimes.KindOllama:
			natives++
			if !(val(r.PromptTokensMean) > 0) {
				fail("%s: prompt_tokens_mean is %s, want > 0: the server's prompt count, which shows the null is the suite's refusal and not a missing reply",
					name, fixedOrNull(r.PromptTokensMean, 1))
			}
		case runtimes.KindOpenAI:
		default:
			fail("%s: runtime %q is not in the file's runtimes", name, r.Runtime)
		}
	}
	if natives == 0 {
		fail("no row of a runtime of kind %s: nothing was checked", runtimes.KindOllama)
	}
	return table, fails
}
