package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// The output files' names.
const (
	historyMD    = "history.md"
	verdictsJSON = "verdicts.json"
)

// render returns every file of the history: history.md, verdicts.json and
// the charts, nothing written yet.
func (h *history) render() ([]outFile, error) {
	charts, err := h.charts()
	if err != nil {
		return nil, err
	}
	js, err := h.verdicts()
	if err != nil {
		return nil, err
	}
	files := []outFile{{historyMD, h.markdown(charts)}, {verdictsJSON, js}}
	for _, c := range charts {
		files = append(files, outFile{c.name, c.data})
	}
	return files, nil
}

// The times on the page: to the minute, or to the second where the runs
// share a minute.
const (
	dateFormat    = "2006-01-02 15:04 UTC"
	secondsFormat = "2006-01-02 15:04:05 UTC"
)

// writef writes to a page as fmt.Fprintf does.
type writef func(format string, args ...any)

// markdown is history.md: the regressions worst first, canary changes,
// the series with too little data, the versions, then a table per series
// and the charts.
func (h *history) markdown(charts []chartFile) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	h.mdIntro(w)
	h.mdVerdicts(w)
	h.mdDrifted(w)
	h.mdCanaries(w)
	h.mdTooLittle(w)
	h.mdVersions(w)
	h.mdSeries(w)
	mdCharts(w, charts)
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

// mdIntro is the page's title and what it judged, how.
func (h *history) mdIntro(w writef) {
	first := h.runs[0]
	from, to := first.created.UTC().Format(dateFormat), h.latest.created.UTC().Format(dateFormat)
	if from == to {
		from, to = first.created.UTC().Format(secondsFormat), h.latest.created.UTC().Format(secondsFormat)
	}
	w("# Benchmark history\n\n")
	w("%d runs from %s to %s; the latest is %s. Each series' latest run is judged against up to %d runs before it: "+
		"a change of %s or more that the window's run-to-run spread makes unlikely (p < %v) is a regression or an "+
		"improvement; a figure with fewer than %d earlier runs has too little data (docs/history.md in the suite). "+
		"Only figures that one reply cannot move are judged: medians, the aggregate rate, and TTFT p95 of rows of %d replies or more.\n\n",
		len(h.runs), from, to, h.latest.id,
		h.opts.window, strings.TrimPrefix(percent(1+h.opts.threshold), "+"), stats.TrendAlpha, stats.TrendMinBaseline, tailReplies)
}

// mdVerdicts are the regressions, worst first, and the improvements,
// largest first.
func (h *history) mdVerdicts(w writef) {
	for _, sec := range []struct {
		title, order string
		v            stats.Verdict
	}{{"Regressions", "Worst first.", stats.Regression}, {"Improvements", "Largest first.", stats.Improvement}} {
		w("## %s\n\n", sec.title)
		js := h.withVerdict(sec.v)
		if len(js) == 0 {
			w("None.\n\n")
			continue
		}
		w("%s\n\n| series | figure | window centre | latest | change | p | version |\n|---|---|--:|--:|--:|--:|---|\n", sec.order)
		for _, j := range js {
			r := j.res
			w("| %s | %s | %s %s | %s %s | %s | %s | %s |\n", mdEscape(j.s.label()), r.fig.Name,
				r.fig.show(r.trend.Centre), r.fig.Shown, r.fig.show(r.latest), r.fig.Shown, percent(r.trend.Change),
				pValue(r.trend.P), mdEscape(versionChange(r.versionBefore, r.versionAfter)))
		}
		w("\n")
	}
}

// mdDrifted are the runs whose control leaf drifted: none is a baseline
// of a verdict, and a latest run that drifted is judged but said so.
func (h *history) mdDrifted(w writef) {
	type runtimeRun struct{ runtime, run string }
	seen := map[runtimeRun]bool{}
	var lines []string
	for _, s := range h.series {
		for _, p := range s.points {
			k := runtimeRun{s.key.Runtime, p.run.id}
			if p.drift == "" || seen[k] {
				continue
			}
			seen[k] = true
			what := "not used as a baseline for the verdicts"
			if p.run == h.latest {
				what = "the latest run: its verdicts judge a run whose machine changed under it"
			}
			lines = append(lines, fmt.Sprintf("- run %s, %s: %s; %s\n", p.run.id, mdEscape(s.key.Runtime), mdEscape(p.drift), what))
		}
	}
	if len(lines) == 0 {
		return
	}
	w("## Drifted controls\n\nRuns whose control leaf (the runtime's first leaf run again at the end) drifted.\n\n")
	for _, l := range lines {
		w("%s", l)
	}
	w("\n")
}

// mdCanaries are the changed canary replies.
func (h *history) mdCanaries(w writef) {
	w("## Canary changes\n\n")
	any := false
	for _, s := range h.series {
		for _, c := range s.canary {
			if !any {
				w("Each reply of the latest run and its window against the run before it with a canary.\n\n")
			}
			any = true
			w("- %s, run %s → %s: %s\n", mdEscape(s.label()), c.before, c.after, mdEscape(c.text))
		}
	}
	if !any {
		w("None.\n")
	}
	w("\n")
}

// mdTooLittle are the series with too little data, and why.
func (h *history) mdTooLittle(w writef) {
	w("## Too little data\n\n")
	any := false
	for _, s := range h.series {
		if s.verdict() != stats.Insufficient {
			continue
		}
		any = true
		w("- %s: %s\n", mdEscape(s.label()), tooLittle(s))
	}
	if !any {
		w("None.\n")
	}
	w("\n")
}

// mdVersions are each runtime's versions, from their first run.
func (h *history) mdVersions(w writef) {
	w("## Versions\n\n| host | runtime | versions, from their first run |\n|---|---|---|\n")
	for _, v := range h.versions() {
		w("| %s | %s | %s |\n", mdEscape(v.host), mdEscape(v.runtime), mdEscape(v.history))
	}
	w("\n")
}

// mdSeries is a table per series.
func (h *history) mdSeries(w writef) {
	w("## Series\n\n")
	for _, s := range h.series {
		latest := s.points[len(s.points)-1]
		w("### %s\n\n", mdEscape(s.label()))
		w("%s: latest run %s (%s), version %s, %d runs in all.", verdictWord(s.verdict()), latest.run.id,
			latest.run.created.UTC().Format(dateFormat), orUnknown(latest.version), len(s.points))
		if s.stale {
			w(" Not in the latest run of its host.")
		}
		if c := s.started; c != nil {
			w(" %s.", mdEscape(upper(c.String())))
		}
		if s.latestDrift != "" {
			w(" **The latest run's control drifted**: %s.", mdEscape(s.latestDrift))
		}
		if len(s.drifted) > 0 {
			w(" Not used as a baseline, their control having drifted: %s.", strings.Join(s.drifted, ", "))
		}
		if s.latestDisturbed != "" {
			w(" **The latest run ran disturbed**, %s: not judged.", mdEscape(s.latestDisturbed))
		}
		if len(s.disturbed) > 0 {
			w(" Not used as a baseline, having run disturbed: %s.", strings.Join(s.disturbed, ", "))
		}
		w("\n\n")
		if len(s.results) == 0 {
			w("No figure in any run (every request failed).\n\n")
			continue
		}
		w("| figure | latest | window centre | change | p | runs | verdict |\n|---|--:|--:|--:|--:|--:|---|\n")
		for _, r := range s.results {
			latestV, centre := "—", "—"
			if !math.IsNaN(r.latest) {
				latestV = r.fig.show(r.latest) + " " + r.fig.Shown
			}
			if r.trend.Baseline > 0 {
				centre = r.fig.show(r.trend.Centre) + " " + r.fig.Shown
			}
			p := "—"
			if r.trend.Verdict != stats.Insufficient {
				p = pValue(r.trend.P)
			}
			w("| %s | %s | %s | %s | %s | %d | %s |\n", r.fig.Name, latestV, centre, percent(r.trend.Change), p,
				r.trend.Baseline, verdictWord(r.trend.Verdict))
		}
		w("\n")
	}
}

// mdCharts are the charts, a picture each.
func mdCharts(w writef, charts []chartFile) {
	if len(charts) > 0 {
		w("## Charts\n\nEach series a line, a point per run; the runtime's version written where it changed; the latest point ringed red for a regression, green for an improvement, grey when unchanged. The y axis does not start at zero.\n\n")
		for _, c := range charts {
			w("![%s](%s)\n\n", mdEscape(c.alt), c.name)
		}
	}
}

func tooLittle(s *series) string {
	why := tooLittleWhy(s)
	if c := s.started; c != nil && !s.stale {
		why = c.String() + "; " + why
	}
	return why
}

func tooLittleWhy(s *series) string {
	if s.stale {
		return "not in the latest run of its host (last run " + s.points[len(s.points)-1].run.id + ")"
	}
	if len(s.results) == 0 {
		return "no figure in any run"
	}
	most := 0
	for _, r := range s.results {
		most = max(most, r.trend.Baseline)
	}
	if latest := s.results[0]; math.IsNaN(latest.latest) && most >= stats.TrendMinBaseline {
		return "no figure in the latest run " + latest.latestRun
	}
	return fmt.Sprintf("%d earlier runs with figures, %d needed", most, stats.TrendMinBaseline)
}

// String says where the series began: "a new series from run B, where
// max_tokens 128 → 64 (run A before it)".
func (c *settingsChange) String() string {
	return fmt.Sprintf("a new series from run %s, where %s (run %s before it)", c.after, strings.Join(c.changes, ", "), c.before)
}

// upper is s with its first letter upper-cased, to begin a sentence.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func verdictWord(v stats.Verdict) string {
	switch v {
	case stats.Regression:
		return "**regression**"
	case stats.Improvement:
		return "improvement"
	case stats.Unchanged:
		return "unchanged"
	}
	return "too little data"
}

func pValue(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

func versionChange(before, after string) string {
	if before == after {
		return orUnknown(after)
	}
	return orUnknown(before) + " → " + orUnknown(after)
}

// hostVersions is a runtime's versions on a host, in the order first
// seen.
type hostVersions struct {
	host, runtime, history string
}

func (h *history) versions() []hostVersions {
	type hr struct{ host, runtime string }
	seen := map[hr][]string{}
	var order []hr
	for _, r := range h.runs {
		names := make([]string, 0, len(r.file.Versions))
		for _, row := range r.file.Summary {
			if !slices.Contains(names, row.Runtime) {
				names = append(names, row.Runtime)
			}
		}
		for _, name := range names {
			k := hr{r.host, name}
			if _, ok := seen[k]; !ok {
				order = append(order, k)
			}
			v := orUnknown(version(r.file, name))
			vs := seen[k]
			if len(vs) == 0 || !strings.HasPrefix(vs[len(vs)-1], v+" (") {
				seen[k] = append(vs, v+" ("+r.created.UTC().Format(time.DateOnly)+", "+r.id+")")
			}
		}
	}
	slices.SortStableFunc(order, func(a, b hr) int {
		return strings.Compare(a.host+"\x00"+a.runtime, b.host+"\x00"+b.runtime)
	})
	out := make([]hostVersions, len(order))
	for i, k := range order {
		host := k.host
		if host == "" {
			host = "(no host label)"
		}
		out[i] = hostVersions{host, k.runtime, strings.Join(seen[k], " → ")}
	}
	return out
}

// mdEscape keeps s inside a table cell and a line: pipes escaped,
// newlines as spaces.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
