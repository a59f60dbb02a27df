package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
)

// The verdict: the headline figures (figures.Headline) of every leaf
// judged as one family of tests (stats.Decide: Holm's correction and the
// smallest change that counts), a headline line for each thing compared,
// the tests in detail, and what the comparison could have seen.

// exitRegression is compare's status when the verdict calls a figure
// worse: a CI step fails on it.
const exitRegression = 4

// test is one headline figure of one leaf of a group, and its call.
type test struct {
	group *verdictGroup
	c     change
	fig   figures.Figure
	call  stats.Call
}

// judgement is the verdict on every group of a comparison.
type judgement struct {
	groups    []*verdictGroup
	tests     []*test
	minEffect float64
	// bar is the Holm family's first step, FamilyAlpha over the number of
	// tests: a single change must reach it to be called.
	bar float64
}

// headlineFigure is the headline figure a change's unit is, as
// benchstat shows it (ttft-sec for ttft-ns). The mean decode rate stands
// in for its median in files written before the median was reported
// (judge drops it where the leaf has both).
func headlineFigure(unit string) (figures.Figure, bool) {
	for _, f := range headlineOrder {
		if shownUnit(f.Unit) == unit {
			return f, true
		}
	}
	return figures.Figure{}, false
}

// headlineOrder is the order the verdict names the figures in.
var headlineOrder = append([]figures.Figure{figures.Decode}, figures.Headline...)

// shownUnit is a unit as benchstat's tables show it: a -ns unit in
// seconds.
func shownUnit(u string) string {
	if s, ok := strings.CutSuffix(u, "-ns"); ok {
		return s + "-sec"
	}
	return u
}

// judge tests the headline figures of every group that is not blocked,
// at every leaf that is not, as one family.
func judge(groups []*verdictGroup, minEffect float64) judgement {
	j := judgement{groups: groups, minEffect: minEffect}
	for _, g := range groups {
		if len(g.blockers) > 0 {
			continue
		}
		hasMedian := map[string]bool{}
		for _, c := range g.changes {
			hasMedian[c.leaf] = hasMedian[c.leaf] || c.unit == figures.DecodeP50.Unit
		}
		for _, c := range g.changes {
			f, ok := headlineFigure(c.unit)
			if !ok || g.leafBlocked[c.leaf] != "" || (f == figures.Decode && hasMedian[c.leaf]) {
				continue
			}
			j.tests = append(j.tests, &test{group: g, c: c, fig: f})
		}
	}
	in := make([]stats.Test, len(j.tests))
	for i, t := range j.tests {
		in[i] = stats.Test{P: t.c.cmp.P, Ratio: ratio(t.c), Better: t.fig.Better}
	}
	for i, call := range stats.Decide(in, stats.FamilyAlpha, minEffect) {
		j.tests[i].call = call
	}
	if len(j.tests) > 0 {
		j.bar = stats.FamilyAlpha / float64(len(j.tests))
	}
	return j
}

// ratio is the change's new centre over its old; 1 where the old is 0.
func ratio(c change) float64 {
	if c.old == 0 {
		return 1
	}
	return c.new / c.old
}

// of are the tests of group g.
func (j judgement) of(g *verdictGroup) []*test {
	var out []*test
	for _, t := range j.tests {
		if t.group == g {
			out = append(out, t)
		}
	}
	return out
}

// status is compare's exit status for the judgement: exitRegression where
// any figure of one runtime's versions was called worse (two runtimes of
// one run, one slower than the other, are no regression), exitNoVerdict
// where a group or a leaf could not be judged, else 0.
func (j judgement) status() int {
	for _, t := range j.tests {
		if t.call.Verdict == stats.Regression && t.group.versions {
			return exitRegression
		}
	}
	if j.blind() {
		return exitNoVerdict
	}
	for _, g := range j.groups {
		if len(g.blockers) > 0 || len(g.leafBlocked) > 0 || len(j.of(g)) == 0 {
			return exitNoVerdict
		}
	}
	return 0
}

// fewest is the fewest samples of a side of any test.
func (j judgement) fewest() int {
	n := math.MaxInt
	for _, t := range j.tests {
		n = min(n, t.c.cmp.N1, t.c.cmp.N2)
	}
	return n
}

// blind reports whether the family is too large for its samples: the
// smallest p-value they can give is above the first step of Holm's, so
// no change could be called.
func (j judgement) blind() bool {
	return len(j.tests) > 0 && stats.MinUP(j.fewest(), j.fewest()) > j.bar
}

// headline is group g's verdict in one line: "ollama 0.6.5 → 0.7.0:
// worse: decode -15.0% at 1 user, -15.0% at 4 users; TTFT mean +25.4% at 1 user".
func (j judgement) headline(g *verdictGroup) string {
	s := g.title + ": "
	if len(g.blockers) > 0 {
		return s + "no verdict: " + strings.Join(g.blockers, "; ")
	}
	tests := j.of(g)
	if len(tests) == 0 {
		return s + "no verdict: " + strings.Join(blockedLeaves(g), "; ")
	}
	where := leafNamer(g.changes)
	var better, worse bool
	var figs []string
	for _, f := range headlineOrder {
		var called, unchanged []string
		for _, t := range tests {
			if t.fig != f {
				continue
			}
			at := where(t.c)
			switch t.call.Verdict {
			case stats.Improvement, stats.Regression:
				better = better || t.call.Verdict == stats.Improvement
				worse = worse || t.call.Verdict == stats.Regression
				called = append(called, strings.TrimSpace(fmt.Sprintf("%+.1f%% %s", (ratio(t.c)-1)*100, at)))
			default:
				unchanged = append(unchanged, at)
			}
		}
		if len(called) == 0 {
			continue
		}
		if len(unchanged) > 0 && unchanged[0] != "" {
			called = append(called, "no change "+strings.Join(unchanged, ", "))
		}
		figs = append(figs, f.Name+" "+strings.Join(called, ", "))
	}
	word := "no change"
	switch {
	case better && worse:
		word = "worse and better"
	case worse:
		word = "worse"
	case better:
		word = "better"
	}
	if len(figs) == 0 && j.blind() {
		s += "no verdict: " + j.cannotSee()
	} else if len(figs) == 0 {
		s += word + " (" + j.couldSee(g) + ")"
	} else {
		s += word + ": " + strings.Join(figs, "; ")
	}
	if b := blockedLeaves(g); len(b) > 0 {
		s += "; no verdict " + strings.Join(b, "; ")
	}
	if q := qualityClause(g); q != "" {
		s += "; " + q
	}
	if m := memoryClause(g); m != "" {
		s += "; " + m
	}
	for _, n := range g.notes {
		s += "; " + n
	}
	return s
}

// blockedLeaves says each leaf of g left out of the verdict, and why.
func blockedLeaves(g *verdictGroup) []string {
	where := leafNamer(g.changes)
	var out, seen []string
	for _, c := range g.changes {
		why := g.leafBlocked[c.leaf]
		if why == "" || slices.Contains(seen, c.leaf) {
			continue
		}
		seen = append(seen, c.leaf)
		at := where(c)
		if at == "" {
			at = "at " + c.leaf
		}
		out = append(out, at+": "+why)
	}
	return out
}

// couldSee says the smallest change group g's comparison would have
// called for each headline figure it tested: "it would have seen decode
// ±3.0%, TTFT mean ±8.1%".
func (j judgement) couldSee(g *verdictGroup) string {
	tests := j.of(g)
	var parts []string
	if j.blind() {
		return j.cannotSee()
	}
	for _, f := range headlineOrder {
		worst, ok, any := 0.0, true, false
		for _, t := range tests {
			if t.fig != f {
				continue
			}
			any = true
			d, can := stats.Detectable(t.c.oldVals, t.c.newVals, j.bar)
			ok = ok && can
			worst = math.Max(worst, d)
		}
		switch {
		case !any:
		case !ok:
			// The samples reach the bar, but so noisy (or zero) that no
			// change up to ten-fold would be called.
			parts = append(parts, f.Name+" no change it could tell from its noise")
		default:
			parts = append(parts, fmt.Sprintf("%s ±%.1f%%", f.Name, math.Max(worst, j.minEffect)*100))
		}
	}
	return "it would have seen " + strings.Join(parts, ", ")
}

// cannotSee says why a family this large could call nothing at its
// samples, and the -count that could.
func (j judgement) cannotSee() string {
	n := j.fewest()
	need := n
	for stats.MinUP(need, need) > j.bar {
		need++
	}
	return fmt.Sprintf("with %d tests a change needs p ≤ %.4f, which %d against %d samples cannot reach (%.4f at best): run -count=%d, or fewer leaves",
		len(j.tests), j.bar, n, n, stats.MinUP(n, n), need)
}

// details are each group's tests, under its title, in the headline's
// order: "  decode at 1 user: 400 → 340 tok/s, -15.0% (p=0.002, Holm
// 0.026): worse".
func (j judgement) details() []string {
	var out []string
	for _, g := range j.groups {
		tests := j.of(g)
		if len(tests) == 0 {
			continue
		}
		out = append(out, g.title+":")
		where := leafNamer(g.changes)
		for _, f := range headlineOrder {
			for _, t := range tests {
				if t.fig != f {
					continue
				}
				at := where(t.c)
				if at != "" {
					at = " " + at
				}
				out = append(out, fmt.Sprintf("  %s%s: %s → %s %s, %+.1f%% (p=%.3f, Holm %.3f): %s",
					f.Name, at, shown(f, t.c.old), shown(f, t.c.new), f.Shown, (ratio(t.c)-1)*100,
					t.c.cmp.P, t.call.Adjusted, j.word(t)))
			}
		}
	}
	return out
}

// word is a test's call: better, worse or no change, and why not where
// it was beyond noise.
func (j judgement) word(t *test) string {
	switch {
	case t.call.Verdict == stats.Improvement:
		return "better"
	case t.call.Verdict == stats.Regression:
		return "worse"
	case t.call.Small:
		return "no change (beyond noise, but less than " + pct(j.minEffect) + ")"
	}
	return "no change"
}

// shown is a value in the figure's shown unit, to four digits.
func shown(f figures.Figure, v float64) string {
	return fmt.Sprintf("%.4g", v*f.Scale)
}

// rule says how the verdict was reached.
func (j judgement) rule() string {
	var units []string
	for _, f := range headlineOrder {
		if slices.ContainsFunc(j.tests, func(t *test) bool { return t.fig == f }) {
			units = append(units, shownUnit(f.Unit))
		}
	}
	return fmt.Sprintf("%d tests (%s at each leaf): a change is called where its Holm-adjusted p ≤ %.2f "+
		"(any change called by chance: at most %.0f%% of comparisons) and it is %s or more (-min-effect); "+
		"the tables' other figures are not judged",
		len(j.tests), strings.Join(units, ", "), stats.FamilyAlpha, stats.FamilyAlpha*100, pct(j.minEffect))
}

func pct(f float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", f*100), "0"), ".0") + "%"
}

// verdict prints the verdict after benchstat's tables and returns
// compare's exit status (judgement.status), or exitNoVerdict with too few
// samples.
func (p program) verdict(root string, bsArgs []string, runs []*runFile, files []beside) (int, error) {
	changes, err := compareFigures(root, bsArgs)
	if err != nil {
		return 0, fail("the verdict: %v", err)
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(p.stdout, "verdict: "+format+"\n", args...)
	}
	fmt.Fprintln(p.stdout)
	if n := fewestSamples(changes); n < minSamples {
		say("no verdict: n=%d, need %d (go test -count=%d or more; with fewer, a change cannot be told from noise)", n, minSamples, minSamples)
		return exitNoVerdict, nil
	}
	groups := groupChanges(changes)
	if len(runs) == 2 {
		blockAcross(groups, files)
	} else {
		blockWithin(groups, files[0])
	}
	for _, g := range groups {
		blockDisturbed(g, sidesOf(g, runs, files))
	}
	for _, g := range groups {
		other, base, one := strings.Cut(g.name, " vs ")
		g.versions = !one || product(other) == product(base)
		if one && g.versions {
			g.title = sidesTitle(base, other, files[0])
		}
	}
	j := judge(groups, p.minEffect)
	for _, g := range groups {
		say("%s", j.headline(g))
	}
	for _, d := range j.details() {
		fmt.Fprintln(p.stdout, d)
	}
	if len(j.tests) > 0 {
		fmt.Fprintln(p.stdout, "judged: "+j.rule())
	}
	return j.status(), nil
}

// product is a runtime name's product: ollama of ollama@0.17.4, the
// name itself where it has no tag.
func product(name string) string {
	p, _, _ := strings.Cut(name, "@")
	return p
}

// sidesOf are the two sides group g compares: each run's row of its
// runtime, or one run's rows of its two runtimes.
func sidesOf(g *verdictGroup, runs []*runFile, files []beside) []side {
	if len(runs) == 2 {
		return []side{{runs[0].role, files[0].file, g.name}, {runs[1].role, files[1].file, g.name}}
	}
	other, base, _ := strings.Cut(g.name, " vs ")
	return []side{{base + "'s", files[0].file, base}, {other + "'s", files[0].file, other}}
}

// sidesTitle names two sides of one product in one run by their
// versions: "ollama 0.6.5 → 0.17.4 (ollama@old → ollama@new, side by
// side)", or by their names where the versions do not tell them apart.
func sidesTitle(base, other string, f beside) string {
	names := base + " → " + other + ", side by side"
	if f.file == nil {
		return product(base) + " (" + names + ")"
	}
	vb, vo := f.file.VersionOf(base), f.file.VersionOf(other)
	if vb == "" || vo == "" || vb == vo {
		return product(base) + " " + orUnknown(vb) + " (" + names + ")"
	}
	return product(base) + " " + vb + " → " + vo + " (" + names + ")"
}

// blockAcross titles each runtime compared across two runs with its
// versions and blocks it where either run's control drifted; it notes a
// changed canary reply.
func blockAcross(groups []*verdictGroup, files []beside) {
	canaries := canaryChanges(files[0], files[1])
	for _, g := range groups {
		g.title = versionTitle(g.name, files)
		for i, f := range files {
			for _, d := range drifts(f, g.name) {
				what := "NEW's control drifted"
				if i == 0 {
					what = "OLD, the baseline, drifted"
				}
				g.blockers = append(g.blockers, fmt.Sprintf("%s (%s, see above)", what, d.short))
			}
		}
		if slices.ContainsFunc(canaries, func(c canaryChange) bool { return c.runtime == g.name }) {
			g.notes = append(g.notes, "its canary reply changed (see above)")
		}
	}
}

// blockWithin blocks each runtime compared with the run's first where
// either one's control drifted.
func blockWithin(groups []*verdictGroup, f beside) {
	all := drifts(f, "")
	for _, g := range groups {
		other, base, _ := strings.Cut(g.name, " vs ")
		for _, d := range all {
			switch d.runtime {
			case base:
				g.blockers = append(g.blockers, fmt.Sprintf("%s, the baseline, drifted (%s, see above)", base, d.short))
			case other:
				g.blockers = append(g.blockers, fmt.Sprintf("%s's control drifted (%s, see above)", other, d.short))
			}
		}
	}
}
