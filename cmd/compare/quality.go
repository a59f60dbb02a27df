package main

import (
	"fmt"
	"strings"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// qualityClause says a group's quality figures (BENCH_QUALITY) beside its
// verdict, unjudged: "agrees on 89.06% of tokens (base 100%), exact
// answers 52% (base 60%)". A run measures them once, before its timed
// rounds, so their -count samples are one measurement repeated, not
// samples a test could judge; each is the mean over the group's prompts
// of benchstat's centres. "" where the files have none.
func qualityClause(g *verdictGroup) string {
	var parts []string
	for _, q := range []struct{ unit, say string }{
		{figures.AgreeTop1.Unit, "agrees on %s of tokens (base %s)"},
		{figures.ExactAccuracy.Unit, "exact answers %s (base %s)"},
	} {
		var olds, news []float64
		seen := map[string]bool{}
		for _, c := range g.changes {
			if c.unit != q.unit || seen[c.key.Prompt] {
				continue
			}
			seen[c.key.Prompt] = true
			olds, news = append(olds, c.old), append(news, c.new)
		}
		if len(news) > 0 {
			parts = append(parts, fmt.Sprintf(q.say, pct(mean(news)), pct(mean(olds))))
		}
	}
	return strings.Join(parts, ", ")
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
