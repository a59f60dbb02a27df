package main

import (
	"fmt"
	"strings"
)

// The quality section (BENCH_QUALITY): each runtime's greedy replies
// against the reference's, and its exact answers, a line per run,
// runtime and prompt (every load of them has the same figures).

// hasQuality reports whether some row of runs has quality figures.
func hasQuality(runs []*run) bool {
	for _, r := range runs {
		for _, rw := range r.Rows {
			if rw.Quality.Reference != "" || rw.ExactAccuracy != nil {
				return true
			}
		}
	}
	return false
}

// writeQuality writes the quality section of runs that measured quality.
func writeQuality(b *strings.Builder, runs []*run) {
	if !hasQuality(runs) {
		return
	}
	b.WriteString("## Quality\n\n" +
		"Untimed greedy replies before the timed rounds (BENCH_QUALITY; docs/metrics.md, \"Quality\"). " +
		"Top-1 agreement is the share of the reference's tokens (words, where a side gave no log-probabilities) the runtime's reply has too; " +
		"KL the mean divergence from the reference's next-token distribution over the common prefix, over the shared top-k (a lower bound); " +
		"first difference the reference's tokens before the first that differs. Exact answers: right of asked, with the Wilson 95% interval; " +
		"with random weights every runtime scores near 0, which is no difference.\n\n")
	writeHead(b, head{text: "run"}, head{text: "runtime"}, head{text: "prompt"}, head{text: "reference"},
		head{"top-1 agreement", true}, head{"KL nats/tok", true}, head{"first difference", true}, head{text: "texts equal"},
		head{"exact answers", true})
	for _, r := range runs {
		seen := map[[2]string]bool{}
		for _, rw := range r.Rows {
			k := [2]string{rw.Runtime, rw.Prompt}
			q := rw.Quality
			if seen[k] || (q.Reference == "" && q.ExactAccuracy == nil) {
				continue
			}
			seen[k] = true
			ref, top1, kl, first, equal := missing, missing, missing, missing, missing
			switch {
			case q.Reference == rw.Runtime:
				ref = "(the reference)"
			case q.Reference != "":
				ref = q.Reference
			}
			if q.AgreeTop1Ratio != nil && q.AgreeCompared != nil {
				top1 = fmt.Sprintf("%.1f%% of %d %ss", 100**q.AgreeTop1Ratio, *q.AgreeCompared, q.AgreeBy)
			}
			if q.AgreeKLMean != nil {
				kl = fmt.Sprintf("%.4f", *q.AgreeKLMean)
			}
			if q.AgreeFirstDiff != nil {
				first = fmt.Sprint(*q.AgreeFirstDiff)
			}
			if q.AgreeTextEqual != nil {
				equal = map[bool]string{true: "yes", false: "no"}[*q.AgreeTextEqual]
			}
			writeLine(b, 0, cell(r.Label), cell(rw.Runtime), cell(rw.Prompt), cell(ref), top1, kl, first, equal, exactCell(rw))
		}
	}
	b.WriteString("\n")
}

// exactCell is a row's exact answers: "31 of 60, 52% (39–64%)".
func exactCell(rw row) string {
	q := rw.Quality
	if q.ExactAccuracy == nil || q.ExactRight == nil || q.ExactAsked == nil || q.ExactLo == nil || q.ExactHi == nil {
		return missing
	}
	return fmt.Sprintf("%d of %d, %.0f%% (%.0f–%.0f%%)", *q.ExactRight, *q.ExactAsked, 100**q.ExactAccuracy, 100**q.ExactLo, 100**q.ExactHi)
}
