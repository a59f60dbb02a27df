package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// What benchstat cannot say, from the summary JSON beside each .txt: the
// runtimes' versions, and the canary replies that changed between OLD and
// NEW (BENCH_CANARY).

// beside is what compare reads beside a run's .txt: its summary JSON and
// the settings it records (summary.SettingsOf), and the whole texts of its
// canary replies from its request records (records.ReadCanaryTexts; nil
// without them).
type beside struct {
	file        *summary.File
	settings    summary.Settings
	canaryTexts map[string]string
}

// summaryBeside reads the summary JSON of the run whose .txt in is, and
// its records' canary texts: a nil file, and no error, when there is no
// summary (a .txt copied alone); no texts when there are no records.
func summaryBeside(in input) (beside, error) {
	path := strings.TrimSuffix(in.path, summary.ExtBench) + summary.ExtJSON
	if path == in.path {
		return beside{}, nil
	}
	f, settings, err := summary.ReadComparable(path)
	if errors.Is(err, fs.ErrNotExist) {
		return beside{}, nil
	}
	if err != nil {
		return beside{}, fmt.Errorf("%s: the summary beside it: %w", in, err)
	}
	texts, err := records.ReadCanaryTexts(summary.RecordsBeside(path))
	if err != nil {
		return beside{file: f, settings: settings}, fmt.Errorf("%s: the request records beside it: %w", in, err)
	}
	return beside{file: f, settings: settings, canaryTexts: texts}, nil
}

// settingsDiffer returns the settings in which OLD's and NEW's summaries
// differ (summary.Differences): none when either has no summary beside
// it, which compares as before.
func settingsDiffer(old, new beside) []summary.Difference {
	if old.file == nil || new.file == nil {
		return nil
	}
	return summary.Differences(old.settings, new.settings)
}

// notes are the lines compare prints before benchstat's tables: each
// runtime's versions (OLD → NEW where they differ), and each canary reply
// that changed, with the versions it changed between; of runtime only
// alone, if only is not empty. runs has what was read beside each run;
// nothing is said if a run has no summary.
func notes(runs []beside, only string) []string {
	var out []string
	var names []string
	var files []*summary.File
	for _, b := range runs {
		if b.file == nil {
			return nil
		}
		files = append(files, b.file)
	}
	for _, f := range files {
		for _, rt := range f.Runtimes {
			if only != "" && rt.Name != only {
				continue
			}
			if !slices.Contains(names, rt.Name) {
				names = append(names, rt.Name)
			}
		}
	}
	var vs []string
	for _, name := range names {
		var each []string
		for _, f := range files {
			each = append(each, orUnknown(f.VersionOf(name)))
		}
		if len(each) == 2 && each[0] == each[1] {
			each = each[:1]
		}
		vs = append(vs, name+" "+strings.Join(each, " → "))
	}
	if len(vs) > 0 {
		out = append(out, "versions: "+strings.Join(vs, ", "))
	}
	if len(files) == 2 {
		if o, n, ok := summary.SLOs(runs[0].settings, runs[1].settings); ok {
			out = append(out, fmt.Sprintf("slo: %q in OLD, %q in NEW: good-req/s counts the requests that met each run's own targets, "+
				"so it does not compare; the other figures do", o, n))
		}
		for _, c := range canaryChanges(runs[0], runs[1]) {
			if only == "" || c.runtime == only {
				out = append(out, "canary: "+c.text)
			}
		}
	}
	return out
}

// canaryChange is a canary reply that changed: its runtime, and how.
type canaryChange struct{ runtime, text string }

// canaryChanges says, for each row of new whose canary reply differs from
// its row's in old (the same runtime, prompt and load), how it changed.
// There are none if either run has no summary.
func canaryChanges(oldRun, newRun beside) []canaryChange {
	if oldRun.file == nil || newRun.file == nil {
		return nil
	}
	old, new := oldRun.file, newRun.file
	type key struct {
		runtime, prompt string
		conc            int
		rate            float64
	}
	keyOf := func(r summary.Row) key {
		k := key{r.Runtime, r.Prompt, r.Concurrency, 0}
		if r.RateRPS != nil {
			k.rate = *r.RateRPS
		}
		return k
	}
	before := map[key]*canary.Reply{}
	for _, r := range old.Summary {
		before[keyOf(r)] = r.Canary
	}
	var out []canaryChange
	said := map[string]bool{}
	for _, r := range new.Summary {
		b, a := canary.Whole(before[keyOf(r)], r.Canary, oldRun.canaryTexts, newRun.canaryTexts)
		d := canary.Describe(r.Runtime, r.Prompt, old.VersionOf(r.Runtime), new.VersionOf(r.Runtime), b, a)
		// A reply changes alike at every load: say it once.
		if d != "" && !said[d] {
			said[d] = true
			out = append(out, canaryChange{r.Runtime, d})
		}
	}
	return out
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown)"
	}
	return v
}

// drift is a runtime whose control drifted during its run.
type drift struct {
	runtime string
	short   string // "decode -50.0%": the figures that moved
	long    string // the note: what moved, where, and what it means
}

// drifts returns the runtimes of the run whose control leaf drifted: its
// first run and its run at the end of the run differ beyond noise
// (internal/stats' Control), so the server changed during the run and
// its figures are no baseline. Of runtime only alone, if only is not
// empty; none without a summary.
func drifts(b beside, only string) []drift {
	if b.file == nil {
		return nil
	}
	var out []drift
	for _, rt := range b.file.Runtimes {
		c := rt.Control
		if !drifted(c) || only != "" && rt.Name != only {
			continue
		}
		// A figure moved where it passed its test (a file written
		// before the test has no p-value) and changed beyond its threshold.
		var moved []string
		for _, f := range []struct {
			name              string
			p                 *float64
			change, threshold float64
		}{{"TTFT p50", c.TTFTP, c.TTFTChange, c.TTFTThreshold}, {"decode", c.DecodeP, c.DecodeChange, c.DecodeThreshold}} {
			if (f.p == nil || *f.p < c.Alpha) && math.Abs(f.change) > f.threshold {
				moved = append(moved, fmt.Sprintf("%s %+.1f%%", f.name, 100*f.change))
			}
		}
		short := strings.Join(moved, ", ")
		if short == "" {
			short = "drifted"
		}
		out = append(out, drift{
			runtime: rt.Name,
			short:   short,
			long: fmt.Sprintf("%s's control drifted: its leaf %s, run again at the end of the run, moved from its first run (%s): "+
				"the server or the machine changed during the run, so its figures are no baseline", rt.Name, c.Leaf, short),
		})
	}
	return out
}
