package main

import "github.com/inferencebench/inferencebench/internal/stats"

// correct holds the night's verdicts to one family, as compare's are
// (stats.Decide): every figure of every series judged in its latest run
// is a test, and a regression or an improvement stands only where its
// p-value, adjusted by Holm's method over them all, is at most
// stats.FamilyAlpha. Many series each tested at TrendAlpha would call
// some figure of some series on a night when nothing changed.
func (h *history) correct() {
	var tested []*result
	for _, s := range h.series {
		for i := range s.results {
			if s.results[i].trend.Verdict != stats.Insufficient {
				tested = append(tested, &s.results[i])
			}
		}
	}
	ps := make([]float64, len(tested))
	for i, r := range tested {
		ps[i] = r.trend.P
	}
	for i, adj := range stats.Holm(ps) {
		r := tested[i]
		r.adjusted = adj
		if r.trend.Verdict != stats.Unchanged && adj > stats.FamilyAlpha {
			r.trend.Verdict = stats.Unchanged
			r.heldBack = true
		}
	}
}
