package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// settingsDoc is what verdicts.json says of a series' settings.
type settingsDoc struct {
	Series []struct {
		Runtime, Verdict string
		LatestRun        string `json:"latest_run"`
		Concurrency      int
		Settings         map[string]string
		SettingsChanged  *struct {
			BeforeRun string   `json:"before_run"`
			AfterRun  string   `json:"after_run"`
			Changes   []string `json:"changes"`
		} `json:"settings_changed"`
		CanaryChanges []json.RawMessage `json:"canary_changes"`
		Figures       []struct {
			Figure, Verdict string
			BaselineRuns    []string `json:"baseline_runs"`
		}
	}
}

// dropArguments rewrites the summary at path without the argument keys,
// as a file written before they existed.
func dropArguments(t *testing.T, path string, keys ...string) {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, path), &doc))
	for _, k := range keys {
		delete(doc["arguments"].(map[string]any), k)
	}
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// A run with another BENCH_MAX_TOKENS asked for shorter replies: its
// series is a new one, so its shorter reply is no changed canary and its
// figures no regression; history.md says where the series began. Runs
// that differ only in the number of samples, or that lack the keys (an
// older file), stay in their series.
func TestSettingsStartASeries(t *testing.T) {
	dir := t.TempDir()
	night := func(n, maxTokens int, k float64, canary string) string {
		f := newFile(nightly(n), "mac-studio", "ollama", "0.6.5")
		f.Arguments.MaxTokens = maxTokens
		f.Arguments.Count, f.Arguments.Warmups = testkit.Ptr(6), 2
		if n == 3 {
			f.Arguments.Count, f.Arguments.Warmups = testkit.Ptr(10), 1 // more samples: the same work
		}
		f.Prompts = summary.Prompts{{Name: "short", Text: "In exactly four concise bullet points, explain why database transactions are useful."}}
		p95, aggregate := 0.080*k, 38*k
		if maxTokens == 64 {
			p95, aggregate = p95*1.3, aggregate*0.7
		}
		f.Summary = append(f.Summary, row("ollama", "qwen3:8b", "short", 1, 0, figs{0.050 * k, p95, 40 * k, aggregate, 0}, canary))
		path := writeFile(t, dir, f)
		if n == 2 {
			dropArguments(t, path, "temperature", "ignore_eos", "num_ctx")
		}
		return f.RunID
	}
	var ids []string
	for n := range 7 {
		ids = append(ids, night(n, 128, noise[n], foxText))
	}
	// Half the tokens: a shorter reply, and an aggregate rate 30% lower
	// (the TTFT p95 30% higher), which against the 128-token window would
	// be regressions.
	ids = append(ids, night(7, 64, 1, foxText[:40]))

	out := filepath.Join(t.TempDir(), "out")
	if keep := os.Getenv("HISTORY_SETTINGS_OUT"); keep != "" { // to look at the page
		out = keep
	}
	code, stdout, stderr := runCmd("-o", out, "-fail-on-regression", dir)
	require.Equal(t, 0, code, "no regression: %s", stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "8 runs, 2 series")

	var v settingsDoc
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, filepath.Join(out, verdictsJSON)), &v))
	require.Len(t, v.Series, 2)
	old, new := v.Series[0], v.Series[1]
	if old.Settings["max_tokens"] != "128" {
		old, new = new, old
	}
	assert.Equal(t, "128", old.Settings["max_tokens"])
	assert.Equal(t, ids[6], old.LatestRun)
	assert.Nil(t, old.SettingsChanged)
	assert.Empty(t, old.CanaryChanges)
	assert.Equal(t, "insufficient", old.Verdict, "not in its host's latest run")
	for _, fig := range old.Figures {
		assert.Len(t, fig.BaselineRuns, 6, "%s: the older file and the one with more samples are in the window", fig.Figure)
	}

	assert.Equal(t, map[string]string{
		"max_tokens": "64", "temperature": "0", "ignore_eos": "false", "num_ctx": "none", "tools_sha256": "none",
		"prompt short": "In exactly four concise bullet points, explain why database transactions are useful.",
	}, new.Settings)
	assert.Equal(t, ids[7], new.LatestRun)
	assert.Equal(t, "insufficient", new.Verdict, "a new series: nothing before it")
	assert.Empty(t, new.CanaryChanges, "the shorter reply is not a changed canary")
	for _, fig := range new.Figures {
		assert.Empty(t, fig.BaselineRuns, fig.Figure)
	}
	require.NotNil(t, new.SettingsChanged)
	assert.Equal(t, ids[6], new.SettingsChanged.BeforeRun)
	assert.Equal(t, ids[7], new.SettingsChanged.AfterRun)
	assert.Equal(t, []string{"max_tokens 128 → 64"}, new.SettingsChanged.Changes)

	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	assert.Contains(t, md, "## Regressions\n\nNone.")
	assert.Contains(t, md, "## Canary changes\n\nNone.")
	started := "a new series from run " + ids[7] + ", where max_tokens 128 → 64 (run " + ids[6] + " before it)"
	assert.Contains(t, md, "- mac-studio · ollama · qwen3:8b · short · conc=1 · cold · max_tokens=64: "+started+"; 0 earlier runs with figures, 4 needed\n")
	assert.Contains(t, md, "### mac-studio · ollama · qwen3:8b · short · conc=1 · cold · max_tokens=128\n")
	assert.Contains(t, md, ". A"+strings.TrimPrefix(started, "a")+".\n")
	c := readChart(t, filepath.Join(out, "ollama-ttft-p50.svg"), 2)
	c.Has(t, "qwen3:8b · short · conc=1 · cold · max_tokens=128", "qwen3:8b · short · conc=1 · cold · max_tokens=64")

	// Four nights more at 64 tokens are judged against their own series
	// only; a night back at 128 joins the old series again.
	for n := 8; n < 12; n++ {
		ids = append(ids, night(n, 64, noise[n-8], foxText[:40]))
	}
	code, _, stderr = runCmd("-o", out, "-fail-on-regression", dir)
	require.Equal(t, 0, code, stderr)
	v = settingsDoc{}
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, filepath.Join(out, verdictsJSON)), &v))
	for _, s := range v.Series {
		if s.Settings["max_tokens"] == "64" {
			assert.Equal(t, "unchanged", s.Verdict)
			assert.Equal(t, ids[7:11], s.Figures[0].BaselineRuns, "the 64-token nights only")
		}
	}
	ids = append(ids, night(12, 128, 1, foxText))
	code, _, stderr = runCmd("-o", out, "-fail-on-regression", dir)
	require.Equal(t, 0, code, stderr)
	v = settingsDoc{}
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, filepath.Join(out, verdictsJSON)), &v))
	require.Len(t, v.Series, 2)
	for _, s := range v.Series {
		if s.Settings["max_tokens"] == "128" {
			assert.Equal(t, "unchanged", s.Verdict)
			assert.Equal(t, ids[12], s.LatestRun)
			assert.Equal(t, ids[:7], s.Figures[0].BaselineRuns, "the 128-token nights")
			assert.Empty(t, s.CanaryChanges, "the same reply as the last 128-token night")
			assert.Nil(t, s.SettingsChanged, "the series began with the first run")
		}
	}
}

// A night run with BENCH_TOOLS sent other requests under the same names:
// its series is a new one, named by the tools file's digest.
func TestToolsStartASeries(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for n := range 6 {
		f := newFile(nightly(n), "mac-studio", "ollama", "0.6.5")
		f.Arguments.MaxTokens = 128
		if n == 5 {
			f.Arguments.Tools, f.Arguments.ToolsSHA256 = testkit.Ptr("testdata/tools.json"), testkit.Ptr("0123456789abcdef")
		}
		k := noise[n]
		f.Summary = append(f.Summary, row("ollama", "qwen3:8b", "short", 1, 0, figs{0.050 * k, 0.080 * k, 40 * k, 38 * k, 0}, foxText))
		writeFile(t, dir, f)
		ids = append(ids, f.RunID)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "6 runs, 2 series")
	var v settingsDoc
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, filepath.Join(out, verdictsJSON)), &v))
	require.Len(t, v.Series, 2)
	s := v.Series[0]
	if s.Settings["tools_sha256"] != "0123456789abcdef" {
		s = v.Series[1]
	}
	assert.Equal(t, "0123456789abcdef", s.Settings["tools_sha256"])
	require.NotNil(t, s.SettingsChanged)
	assert.Equal(t, []string{"tools_sha256 none → 0123456789abcdef"}, s.SettingsChanged.Changes)
	assert.Equal(t, ids[4], s.SettingsChanged.BeforeRun)
	assert.Equal(t, ids[5], s.SettingsChanged.AfterRun)
}
