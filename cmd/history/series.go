package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/figures"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// figure is one figure the history judges, as internal/figures declares
// it (name, unit, scale, which way is better), with its id; a row gives
// its value (summary.Row.Value). Adding one is a line in trended.
type figure struct {
	figures.Figure
	id string // in chart file names and verdicts.json
	// judged says whether a row's value can be judged; nil: always.
	judged func(*summary.Row) bool
}

// value is r's f where it can be judged, nil where not or r lacks it.
func (f figure) value(r *summary.Row) *float64 {
	if f.judged != nil && !f.judged(r) {
		return nil
	}
	return r.Value(f.Figure)
}

var trended = []figure{
	{figures.TTFTP50, "ttft-p50", nil},
	// TTFT p95 only where one reply cannot move it: with at least
	// tailReplies successes, the largest TTFT has no weight in it.
	{figures.TTFTP95, "ttft-p95", func(r *summary.Row) bool { return r.Successes >= tailReplies }},
	// The decode rate's median over the row's replies, which one reply
	// cannot move (docs/metrics.md); a row of native Ollama in a file
	// before burst_replies had the server's rate here, and has none (see
	// clientDecode).
	{figures.DecodeP50, "decode", nil},
	{figures.Aggregate, "aggregate", nil},
	{figures.Energy, "j-per-token", nil},
	{figures.NetEnergy, "net-j-per-token", nil},
	// Quality (BENCH_QUALITY): one measurement a run, the same on one
	// server and version night after night at temperature 0, so a window
	// without spread calls any move of the threshold: a version that
	// agrees less with the reference, or answers fewer problems right, is
	// a regression however much faster it is. An accuracy of 0 (random
	// weights) is no value, as DetectTrend leaves out what is not above 0.
	{figures.AgreeTop1, "agree-top1", nil},
	{figures.ExactAccuracy, "exact-accuracy", nil},
}

// tailReplies is the fewest successful replies a row needs for its TTFT
// p95 to be judged. The suite's p95 interpolates between the sorted
// values at (n−1)·0.95: from n = 21 on, the largest has no weight in it,
// so one stalled reply, however late, cannot move the figure (at n = 4
// it is 85% of the largest: one stall of 300 ms read as a +518% TTFT p95
// "regression").
const tailReplies = 21

// show formats a value of the figure in its unit.
func (f figure) show(v float64) string {
	v *= f.Scale
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// key is what makes rows one series: the same machine, leaf, workload
// and settings.
type key struct {
	Host, Runtime, Model, Prompt string
	Concurrency                  int
	Rate                         float64
	Cache                        string
	Turns, SharedPrefix          int
	// API, Images and EmbedBatch are the run's other work: BENCH_API
	// ("chat" by default), BENCH_IMAGES ("none"), BENCH_EMBED_BATCH (1).
	// A row's name and the benchstat file's lines keep them apart; so
	// must a series, or a night of another API would read as a change.
	API, Images string
	EmbedBatch  int
	// Settings are the row's settings (summary.Settings.Of), joined: a
	// run that asked for other work (another max_tokens, temperature,
	// prompt text, …) is in a series of its own.
	Settings string
}

// base is the key without its settings: the series that differ only in
// settings share it.
func (k key) base() key {
	k.Settings = ""
	return k
}

// label names the series on the page: host · runtime · model · prompt ·
// load · workload, and the settings that tell it from a series of the
// same leaf and workload (max_tokens=64).
func (s *series) label() string {
	return s.key.host() + " · " + s.key.Runtime + " · " + s.rest()
}

// rest is the label without host and runtime, the legend of a runtime's
// chart (with the host where the chart has several).
func (s *series) rest() string {
	k := s.key
	parts := []string{k.Model, promptName(k.Prompt), k.load(), k.Cache}
	if k.Turns != 1 {
		parts = append(parts, "turns="+strconv.Itoa(k.Turns))
	}
	if k.SharedPrefix != 0 {
		parts = append(parts, "shared-prefix="+strconv.Itoa(k.SharedPrefix))
	}
	if k.API != defaultAPI {
		parts = append(parts, "api="+k.API)
	}
	if k.Images != "" {
		parts = append(parts, "images="+k.Images)
	}
	if k.EmbedBatch > 1 {
		parts = append(parts, "embed-batch="+strconv.Itoa(k.EmbedBatch))
	}
	return strings.Join(append(parts, s.shown...), " · ")
}

// joinSettings is the key's form of a row's settings.
func joinSettings(vs []summary.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Setting + "=" + v.Value
	}
	return strings.Join(parts, "\x00")
}

func (k key) host() string {
	if k.Host == "" {
		return "(no host label)"
	}
	return k.Host
}

func (k key) load() string {
	return bench.Key{Concurrency: k.Concurrency, Rate: k.Rate}.Load()
}

func promptName(p string) string {
	if p == "" {
		return "(none)"
	}
	return p
}

func (k key) compare(o key) int {
	return cmp.Or(
		strings.Compare(k.Host, o.Host), strings.Compare(k.Runtime, o.Runtime), strings.Compare(k.Model, o.Model),
		strings.Compare(k.Prompt, o.Prompt), cmp.Compare(k.Rate, o.Rate), cmp.Compare(k.Concurrency, o.Concurrency),
		strings.Compare(k.Cache, o.Cache), cmp.Compare(k.Turns, o.Turns), cmp.Compare(k.SharedPrefix, o.SharedPrefix),
		strings.Compare(k.API, o.API), strings.Compare(k.Images, o.Images), cmp.Compare(k.EmbedBatch, o.EmbedBatch),
		strings.Compare(k.Settings, o.Settings))
}

// defaultAPI is BENCH_API's default, which a summary leaves out.
const defaultAPI = "chat"

// workload is the key of the file's rows without their row's own parts:
// the workload keys, with what a missing one means (summary.Absent), and
// the API.
func workload(f *summary.File) key {
	k := key{Cache: f.Arguments.CacheMode(), Turns: f.Arguments.Turns, SharedPrefix: f.Arguments.SharedPrefix,
		API: cmp.Or(f.Arguments.API, defaultAPI), Images: f.Arguments.Images, EmbedBatch: max(f.Arguments.EmbedBatch, 1)}
	if k.Turns == 0 {
		v, _, _ := summary.Absent(summary.KeyTurns)
		k.Turns, _ = strconv.Atoi(v)
	}
	return k
}

// point is a series' row in one run.
type point struct {
	run     *run
	row     *summary.Row
	version string // the runtime's version in the run, "" if unknown
	// drift says the runtime's control leaf drifted in the run (the
	// control's own words), "" if not: the run is no baseline.
	drift string
	// disturbed says the row's leaf runs ran while other processes
	// loaded the machine (its leaf_runs), "" if not: the run is no
	// baseline, and a latest run so is not judged.
	disturbed string
}

// clientDecode returns row as the history judges it: a row of a native
// Ollama runtime in a file written before burst_replies had the server's
// own decode rate (eval_count / eval_duration) as decode_tps_*, another
// method than the client's of every later file, so its decode figures
// move to server_decode_tps_* and it has no client decode rate.
func clientDecode(f *summary.File, row *summary.Row) *summary.Row {
	if row.BurstReplies != nil || kindOf(f, row.Runtime) != "ollama" {
		return row
	}
	cp := *row
	cp.ServerDecodeTPSMean, cp.ServerDecodeTPSP50, cp.ServerDecodeTPSP95 = row.DecodeTPSMean, row.DecodeTPSP50, row.DecodeTPSP95
	cp.DecodeTPSMean, cp.DecodeTPSP50, cp.DecodeTPSP95 = nil, nil, nil
	return &cp
}

// kindOf is the runtime's kind in f, "" if the file does not say.
func kindOf(f *summary.File, runtime string) string {
	for _, rt := range f.Runtimes {
		if rt.Name == runtime {
			return rt.Kind
		}
	}
	return ""
}

// driftOf says how the runtime's control leaf drifted in f ("" if it did
// not, or had none).
func driftOf(f *summary.File, runtime string) string {
	for _, rt := range f.Runtimes {
		if rt.Name == runtime && rt.Control != nil && rt.Control.Drifted {
			if d := rt.Control.Drift(runtime); d != "" {
				return d
			}
			return "its control leaf drifted"
		}
	}
	return ""
}

// series is one leaf's rows across runs, oldest first, and the verdicts
// on its latest.
type series struct {
	key key
	// stale is set when the series is not in its host's latest run: its
	// figures are shown, and judged insufficient, so that a leaf no
	// longer run does not repeat its last verdict night after night.
	stale   bool
	points  []point
	results []result // one per figure it has a value of, in trended's order
	// drifted are the runs of the window before the latest whose
	// runtime's control drifted, left out of every baseline, oldest
	// first; latestDrift is the latest run's drift, "" if none.
	// disturbed are the runs of the window before the latest that ran
	// disturbed (point.disturbed), left out of every baseline too;
	// latestDisturbed is how the latest did, "" if it did not: its
	// figures are not judged.
	disturbed       []string
	latestDisturbed string
	drifted         []string
	latestDrift     string
	canary          []canaryChange
	// settings are the settings of its rows (the key's); shown those of
	// them that tell it from the other series of its leaf and workload,
	// for its label; started how it began, if where a setting changed.
	settings []summary.Value
	shown    []string
	started  *settingsChange
}

// settingsChange is where a series began because a setting changed: its
// first run, the run of its leaf and workload before it, and each setting
// that changed between the two (summary.Change: "max_tokens 128 → 64").
type settingsChange struct {
	before, after string // run ids
	changes       []string
}

// result is one figure's verdict on the series' latest run.
type result struct {
	fig   figure
	trend stats.Trend
	// adjusted is the p-value adjusted over the night's family (correct);
	// heldBack says the figure moved beyond its window's noise by the
	// threshold, but not beyond the family's.
	adjusted      float64
	heldBack      bool
	latest        float64 // NaN: none in the latest run
	latestRun     string
	baselineRuns  []string
	versionBefore string // in the window's latest run
	versionAfter  string
}

// canaryChange is a changed canary reply between consecutive runs of a
// series.
type canaryChange struct {
	before, after string // run ids
	at            int    // rune index, canary.Change
	text          string // canary.Describe
}

// verdict is the series' verdict: a regression if any figure regressed,
// else an improvement if any improved, else unchanged if any figure was
// judged, else insufficient.
func (s *series) verdict() stats.Verdict {
	v := stats.Insufficient
	for _, r := range s.results {
		switch {
		case r.trend.Verdict == stats.Regression:
			return stats.Regression
		case r.trend.Verdict == stats.Improvement:
			v = stats.Improvement
		case r.trend.Verdict == stats.Unchanged && v == stats.Insufficient:
			v = stats.Unchanged
		}
	}
	return v
}

// history is every series of the runs, judged.
type history struct {
	runs   []*run
	series []*series
	opts   options
	latest *run
}

// build groups the runs' rows into series and judges each.
func build(runs []*run, o options) *history {
	h := &history{runs: runs, opts: o, latest: runs[len(runs)-1]}
	byKey := map[key]*series{}
	for _, r := range runs {
		work := workload(r.file)
		for i := range r.file.Summary {
			row := &r.file.Summary[i]
			rate := 0.0
			if row.RateRPS != nil && *row.RateRPS > 0 {
				rate = *row.RateRPS
			}
			settings := r.settings.Of(row.Runtime, row.Prompt, rate > 0)
			k := work
			k.Host, k.Runtime, k.Model, k.Prompt = r.host, row.Runtime, row.Model, row.Prompt
			k.Concurrency, k.Rate, k.Settings = row.Concurrency, rate, joinSettings(settings)
			if rate > 0 {
				k.Concurrency = 0
			}
			s := byKey[k]
			if s == nil {
				s = &series{key: k, settings: settings}
				byKey[k] = s
				h.series = append(h.series, s)
			}
			s.points = append(s.points, point{run: r, row: clientDecode(r.file, row), version: version(r.file, row.Runtime),
				drift: driftOf(r.file, row.Runtime), disturbed: disturbedOf(row)})
		}
	}
	slices.SortFunc(h.series, func(a, b *series) int { return a.key.compare(b.key) })
	h.splitBySettings()
	hostLatest := map[string]*run{}
	for _, r := range runs {
		hostLatest[r.host] = r // runs are oldest first
	}
	for _, s := range h.series {
		s.stale = s.points[len(s.points)-1].run != hostLatest[s.key.Host]
		s.judge(o)
	}
	h.correct()
	return h
}

// splitBySettings finds the series of one leaf and workload that differ in
// their settings: each is labelled with the settings that differ among
// them, and a series whose first run came after a run of another is said
// to start there, with the settings that changed.
func (h *history) splitBySettings() {
	order := map[*run]int{}
	for i, r := range h.runs {
		order[r] = i
	}
	groups := map[key][]*series{}
	for _, s := range h.series {
		groups[s.key.base()] = append(groups[s.key.base()], s)
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		var names []string
		for _, s := range g {
			for _, v := range s.settings {
				if !slices.Contains(names, v.Setting) {
					names = append(names, v.Setting)
				}
			}
		}
		for _, name := range names {
			v0, ok0 := g[0].setting(name)
			differs := false
			for _, o := range g[1:] {
				v, ok := o.setting(name)
				differs = differs || ok != ok0 || v != v0
			}
			for _, s := range g {
				if v, ok := s.setting(name); differs && ok {
					s.shown = append(s.shown, v.String())
				}
			}
		}
		for _, s := range g {
			first := order[s.points[0].run]
			var prev *series
			at := -1
			for _, o := range g {
				for _, p := range o.points {
					if i := order[p.run]; i < first && i > at {
						prev, at = o, i
					}
				}
			}
			if prev == nil {
				continue
			}
			c := &settingsChange{before: h.runs[at].id, after: s.points[0].run.id}
			for _, v := range s.settings {
				if before, ok := prev.setting(v.Setting); ok && before != v {
					c.changes = append(c.changes, summary.Change(before, v))
				}
			}
			if len(c.changes) > 0 {
				s.started = c
			}
		}
	}
}

// setting returns the series' value of the named setting, if its rows
// have it.
func (s *series) setting(name string) (summary.Value, bool) {
	for _, v := range s.settings {
		if v.Setting == name {
			return v, true
		}
	}
	return summary.Value{}, false
}

// judge gives each figure of s its verdict, and finds the canary changes
// among its latest run and the o.window runs before it.
func (s *series) judge(o options) {
	last := len(s.points) - 1
	latest := s.points[last]
	s.latestDrift = latest.drift
	// A run whose control drifted measured the machine as much as the
	// runtime: it is no baseline (history.md says which were left out).
	s.latestDisturbed = latest.disturbed
	for i, n := last-1, 0; i >= 0 && n < o.window; i-- {
		switch p := s.points[i]; {
		case p.drift != "":
			s.drifted = append(s.drifted, p.run.id)
		case p.disturbed != "":
			s.disturbed = append(s.disturbed, p.run.id)
		default:
			n++
		}
	}
	slices.Reverse(s.drifted)
	slices.Reverse(s.disturbed)
	for _, f := range trended {
		has := false
		for _, p := range s.points {
			has = has || f.value(p.row) != nil
		}
		if !has {
			continue
		}
		res := result{fig: f, latest: math.NaN(), latestRun: latest.run.id, versionAfter: latest.version}
		if v := f.value(latest.row); v != nil {
			res.latest = *v
		}
		var window []float64
		var runs []string
		for i := last - 1; i >= 0 && len(window) < o.window; i-- {
			if s.points[i].drift != "" || s.points[i].disturbed != "" {
				continue
			}
			if v := f.value(s.points[i].row); v != nil {
				window = append(window, *v)
				runs = append(runs, s.points[i].run.id)
				if len(window) == 1 {
					res.versionBefore = s.points[i].version
				}
			}
		}
		slices.Reverse(window)
		slices.Reverse(runs)
		res.baselineRuns = runs
		res.trend = stats.DetectTrend(window, res.latest, f.Better, o.threshold)
		if s.stale || latest.disturbed != "" {
			res.trend.Verdict = stats.Insufficient
		}
		s.results = append(s.results, res)
	}
	s.canaryChanges(max(0, last-o.window))
}

// canaryChanges finds the changed canary replies of the series' runs
// from points[first] to its latest: each reply against the one before it
// (the nearest earlier run with a canary, so that a night whose canary
// failed hides no change, even before first).
func (s *series) canaryChanges(first int) {
	var prev *point
	for i := first - 1; i >= 0 && prev == nil; i-- {
		if s.points[i].row.Canary != nil {
			prev = &s.points[i]
		}
	}
	for i := first; i < len(s.points); i++ {
		p := &s.points[i]
		if p.row.Canary == nil {
			continue
		}
		if prev != nil {
			before, after := canary.Whole(prev.row.Canary, p.row.Canary, prev.run.canaryTexts, p.run.canaryTexts)
			if changed, at := canary.Change(before, after); changed {
				s.canary = append(s.canary, canaryChange{before: prev.run.id, after: p.run.id, at: at,
					text: canary.Describe(s.key.Runtime, s.key.Prompt, prev.version, p.version, before, after)})
			}
		}
		prev = p
	}
}

// version is the runtime's version in f (summary's File.VersionOf: the
// last line of a version given as log text), "" where unknown, cut to 60
// characters for a table cell. The earlier harness's files name
// vllm-metal's version "vllm": a runtime without a version of its own
// takes that of the name before its first '-'.
func version(f *summary.File, runtime string) string {
	v := f.VersionOf(runtime)
	if _, own := f.Versions[runtime]; !own {
		if base, _, ok := strings.Cut(runtime, "-"); ok {
			v = f.VersionOf(base)
		}
	}
	if r := []rune(v); len(r) > 60 {
		v = string(r[:59]) + "…"
	}
	return v
}

// judged is one figure of a series with its verdict.
type judged struct {
	s   *series
	res result
}

// withVerdict are the figures judged v (a regression, an improvement),
// the largest change first, on a log scale (a halving weighs as a
// doubling): the regressions worst first.
func (h *history) withVerdict(v stats.Verdict) []judged {
	var out []judged
	for _, s := range h.series {
		for _, r := range s.results {
			if r.trend.Verdict == v {
				out = append(out, judged{s, r})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b judged) int {
		return cmp.Compare(math.Abs(math.Log(b.res.trend.Change)), math.Abs(math.Log(a.res.trend.Change)))
	})
	return out
}

// regressed names the series that regressed, and their figures.
func (h *history) regressed() []string {
	var out []string
	for _, s := range h.series {
		var figs []string
		for _, r := range s.results {
			if r.trend.Verdict == stats.Regression {
				figs = append(figs, fmt.Sprintf("%s %s", r.fig.Name, percent(r.trend.Change)))
			}
		}
		if len(figs) > 0 {
			out = append(out, s.label()+": "+strings.Join(figs, ", "))
		}
	}
	return out
}

// percent shows a ratio as a change: 1.1 is "+10.0%".
func percent(ratio float64) string {
	if ratio == 0 || math.IsNaN(ratio) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", (ratio-1)*100)
}
