package main

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// verdictsFile is verdicts.json.
type verdictsFile struct {
	LatestRun   string          `json:"latest_run"`
	Runs        int             `json:"runs"`
	Window      int             `json:"window"`
	Threshold   float64         `json:"threshold"`
	Alpha       float64         `json:"alpha"`
	FamilyAlpha float64         `json:"family_alpha"`
	MinBaseline int             `json:"min_baseline"`
	Series      []seriesVerdict `json:"series"`
}

type seriesVerdict struct {
	Host         string          `json:"host"`
	Runtime      string          `json:"runtime"`
	Model        string          `json:"model"`
	Prompt       string          `json:"prompt"`
	Concurrency  int             `json:"concurrency"` // 0 for an open loop
	RateRPS      *float64        `json:"rate_rps"`    // null for a closed loop
	Cache        string          `json:"cache"`
	Turns        int             `json:"turns"`
	SharedPrefix int             `json:"shared_prefix"`
	API          string          `json:"api"`         // BENCH_API: chat, completions, …
	Images       *string         `json:"images"`      // BENCH_IMAGES (N@WxH[:jpeg]); null: none
	EmbedBatch   int             `json:"embed_batch"` // BENCH_EMBED_BATCH; 1 unless an embeddings run's batch
	Verdict      stats.Verdict   `json:"verdict"`
	LatestRun    string          `json:"latest_run"`
	Version      *string         `json:"version"` // in the latest run
	Figures      []figureVerdict `json:"figures"`
	// Settings are the settings of the series' rows (summary's
	// Settings.Of): max_tokens, temperature, … and "prompt NAME", the
	// prompt's text. SettingsChanged is how the series began where a
	// setting changed; null if it did not.
	Settings        map[string]string `json:"settings"`
	SettingsChanged *settingsJSON     `json:"settings_changed"`
	// CanaryChanges are the changed canary replies between consecutive
	// runs within the window, [] if none.
	CanaryChanges []canaryJSON `json:"canary_changes"`
	// DriftedRuns are the runs of the window whose runtime's control
	// drifted, left out of every baseline, [] if none; LatestDrift says
	// how the latest run's drifted, null if it did not.
	DriftedRuns []string `json:"drifted_runs"`
	LatestDrift *string  `json:"latest_drift"`
	// DisturbedRuns are the runs of the window that ran while other
	// processes loaded the machine (leaf_runs), left out of every
	// baseline, [] if none; LatestDisturbed says how the latest run did,
	// null if it did not: its figures are insufficient.
	DisturbedRuns   []string `json:"disturbed_runs"`
	LatestDisturbed *string  `json:"latest_disturbed"`
}

type figureVerdict struct {
	Figure    string        `json:"figure"`
	Verdict   stats.Verdict `json:"verdict"`
	Latest    *float64      `json:"latest"`
	Centre    *float64      `json:"centre"`
	Change    *float64      `json:"change"`
	Threshold float64       `json:"threshold"`
	PValue    float64       `json:"p_value"`
	// PFamily is PValue adjusted by Holm's method over every figure
	// judged in the night (null where the figure was not tested);
	// HeldBack: the figure moved by the threshold beyond its window's
	// noise, but not beyond the family's, so it is unchanged.
	PFamily       *float64 `json:"p_family"`
	HeldBack      bool     `json:"held_back"`
	LatestRun     string   `json:"latest_run"`
	BaselineRuns  []string `json:"baseline_runs"`
	VersionBefore *string  `json:"version_before"`
	VersionAfter  *string  `json:"version_after"`
}

type settingsJSON struct {
	BeforeRun string   `json:"before_run"` // the run of the leaf and workload before the series' first
	AfterRun  string   `json:"after_run"`  // the series' first run
	Changes   []string `json:"changes"`    // summary.Change: "max_tokens 128 → 64"
}

type canaryJSON struct {
	BeforeRun string `json:"before_run"`
	AfterRun  string `json:"after_run"`
	At        int    `json:"at"` // rune index of the first difference, from 0
	Text      string `json:"text"`
}

func (h *history) verdicts() ([]byte, error) {
	f := verdictsFile{
		LatestRun: h.latest.id, Runs: len(h.runs), Window: h.opts.window, Threshold: h.opts.threshold,
		Alpha: stats.TrendAlpha, FamilyAlpha: stats.FamilyAlpha, MinBaseline: stats.TrendMinBaseline, Series: []seriesVerdict{},
	}
	for _, s := range h.series {
		k := s.key
		latest := s.points[len(s.points)-1]
		sv := seriesVerdict{
			Host: k.Host, Runtime: k.Runtime, Model: k.Model, Prompt: k.Prompt, Concurrency: k.Concurrency,
			Cache: k.Cache, Turns: k.Turns, SharedPrefix: k.SharedPrefix, API: k.API, Images: orNull(k.Images),
			EmbedBatch: k.EmbedBatch, Verdict: s.verdict(),
			LatestRun: latest.run.id, Version: orNull(latest.version), Figures: []figureVerdict{}, CanaryChanges: []canaryJSON{},
			Settings: map[string]string{}, DriftedRuns: []string{}, LatestDrift: orNull(s.latestDrift),
			DisturbedRuns: append([]string{}, s.disturbed...), LatestDisturbed: orNull(s.latestDisturbed),
		}
		sv.DriftedRuns = append(sv.DriftedRuns, s.drifted...)
		for _, v := range s.settings {
			sv.Settings[v.Setting] = v.Value
		}
		if c := s.started; c != nil {
			sv.SettingsChanged = &settingsJSON{c.before, c.after, c.changes}
		}
		if k.Rate > 0 {
			sv.RateRPS = &k.Rate
		}
		for _, r := range s.results {
			fv := figureVerdict{
				Figure: r.fig.id, Verdict: r.trend.Verdict, Latest: finite(r.latest), Threshold: h.opts.threshold,
				PValue: r.trend.P, HeldBack: r.heldBack, LatestRun: r.latestRun, BaselineRuns: r.baselineRuns,
				VersionBefore: orNull(r.versionBefore), VersionAfter: orNull(r.versionAfter),
			}
			if r.trend.Verdict != stats.Insufficient {
				fv.PFamily = finite(r.adjusted)
			}
			if fv.BaselineRuns == nil {
				fv.BaselineRuns = []string{}
			}
			if r.trend.Baseline > 0 {
				fv.Centre = finite(r.trend.Centre)
			}
			if r.trend.Change > 0 {
				fv.Change = finite(r.trend.Change)
			}
			sv.Figures = append(sv.Figures, fv)
		}
		for _, c := range s.canary {
			sv.CanaryChanges = append(sv.CanaryChanges, canaryJSON{c.before, c.after, c.at, c.text})
		}
		f.Series = append(f.Series, sv)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(f)
	return buf.Bytes(), err
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
