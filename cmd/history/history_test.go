package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// runCmd runs the command at testNow and returns its exit code, stdout
// and stderr.
func runCmd(args ...string) (int, string, string) {
	return testkit.Run(func(stdout, stderr io.Writer) int { return command(args, stdout, stderr, testNow) })
}

// The fixture's eight nights (fixtureRuns): history.md as committed, the
// verdicts, and the charts' points.
func TestFixture(t *testing.T) {
	in := fixtureRuns(t, t.TempDir())
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCmd("-o", out, in)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "8 runs, 4 series")
	testkit.Golden(t, filepath.Join("testdata", "history.md"), testkit.ReadFile(t, filepath.Join(out, historyMD)), "go test ./cmd/history -update")

	names := dirNames(t, out)
	assert.ElementsMatch(t, []string{
		"history.md", "verdicts.json",
		"ollama-ttft-p50.svg", "ollama-ttft-p95.svg", "ollama-decode.svg", "ollama-aggregate.svg",
		"vllm-ttft-p50.svg", "vllm-ttft-p95.svg", "vllm-decode.svg", "vllm-aggregate.svg", "vllm-j-per-token.svg",
	}, names, "J/token only where the rows have it")

	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	assert.Equal(t, "20261127T020000Z", v.LatestRun)
	assert.Equal(t, 8, v.Runs)
	assert.Equal(t, 0.05, v.FamilyAlpha)
	require.Len(t, v.Series, 4)
	conc1 := v.find(t, "ollama", 1, 0)
	assert.Equal(t, "regression", conc1.Verdict)
	assert.Equal(t, "mac-studio", conc1.Host)
	assert.Equal(t, "cold", conc1.Cache)
	ttft := conc1.figure(t, "ttft-p50")
	assert.Equal(t, "regression", ttft.Verdict)
	assert.InDelta(t, 1.2, *ttft.Change, 1e-9, "the latest over the window's median")
	assert.InDelta(t, 0.05, *ttft.Centre, 1e-12)
	assert.Less(t, ttft.PValue, 0.01)
	require.NotNil(t, ttft.PFamily, "tested: adjusted over the night's family")
	assert.GreaterOrEqual(t, *ttft.PFamily, ttft.PValue)
	assert.LessOrEqual(t, *ttft.PFamily, 0.05, "a regression of the family")
	assert.False(t, ttft.HeldBack)
	assert.Equal(t, 0.05, ttft.Threshold)
	assert.Equal(t, "20261127T020000Z", ttft.LatestRun)
	assert.Len(t, ttft.BaselineRuns, 7)
	assert.Equal(t, "20261120T020000Z", ttft.BaselineRuns[0])
	assert.Equal(t, "0.6.5", *ttft.VersionBefore)
	assert.Equal(t, "0.7.0", *ttft.VersionAfter)
	assert.Equal(t, "unchanged", conc1.figure(t, "decode").Verdict)
	require.Len(t, conc1.CanaryChanges, 1)
	assert.Equal(t, 20, conc1.CanaryChanges[0].At, "foxText and foxChanged differ at rune 20")
	assert.Equal(t, "ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at character 21", conc1.CanaryChanges[0].Text)

	failed := v.find(t, "ollama", 4, 0)
	assert.Equal(t, "insufficient", failed.Verdict, "no figure in the latest run")
	assert.Nil(t, failed.figure(t, "ttft-p50").Latest)
	assert.Nil(t, failed.figure(t, "ttft-p50").PFamily, "not tested: no p-value adjusted")
	assert.Empty(t, failed.CanaryChanges, "no canary in the latest run: nothing compared")

	vllm := v.find(t, "vllm", 1, 0)
	assert.Equal(t, "improvement", vllm.Verdict)
	assert.Equal(t, "improvement", vllm.figure(t, "decode").Verdict, "higher is better")
	assert.Equal(t, "improvement", vllm.figure(t, "j-per-token").Verdict, "lower is better")
	assert.Equal(t, "unchanged", vllm.figure(t, "ttft-p50").Verdict)
	assert.InDelta(t, 0.87, *vllm.figure(t, "j-per-token").Change, 1e-9)

	open := v.find(t, "vllm", 0, 2)
	assert.Equal(t, "insufficient", open.Verdict, "three runs")
	assert.Len(t, open.figure(t, "decode").BaselineRuns, 2)

	// ollama's TTFT p50: a line of 8 points and one of 7 (the last
	// night's requests failed), left to right, the latest ringed red;
	// the versions written where they changed.
	c := readChart(t, filepath.Join(out, "ollama-ttft-p50.svg"), 2)
	require.Len(t, c.Lines, 2)
	c.Lines[0].Points(t, 8)
	c.Lines[1].Points(t, 7)
	require.Len(t, c.Rings, 1)
	assert.Equal(t, "#D62728", c.Rings[0].Stroke, "a regression is ringed red")
	last := c.Lines[0].XY[7]
	assert.InDelta(t, last[0], c.Rings[0].X, 0.01, "around the latest point")
	assert.InDelta(t, last[1], c.Rings[0].Y, 0.01)
	c.Has(t, "ollama: TTFT p50", "0.6.5", "0.7.0", "qwen3:8b · short · conc=1 · cold", "qwen3:8b · short · conc=4 · cold")
	// The points' heights are the nights' TTFT: the ratio of two
	// nights' heights above a third is the ratio of their values'
	// distances (vgsvg's y grows up).
	ys := c.Lines[0].YS()
	want := []float64{50, 50.5, 49.5, 50.25, 49.75, 50.6, 49.4, 60}
	k := (ys[7] - ys[0]) / (want[7] - want[0])
	for i := range want {
		assert.InDelta(t, ys[0]+k*(want[i]-want[0]), ys[i], 0.05, "point %d", i)
	}

	c = readChart(t, filepath.Join(out, "vllm-decode.svg"), 2)
	c.Lines[0].Points(t, 8)
	c.Lines[1].Points(t, 3)
	require.Len(t, c.Rings, 1, "no ring where there is too little data")
	assert.Equal(t, "#2CA02C", c.Rings[0].Stroke, "an improvement is ringed green")
	assert.Greater(t, c.Rings[0].Y, c.Lines[0].XY[6][1]+50, "decode went up (y grows up: vgsvg flips the page)")

	c = readChart(t, filepath.Join(out, "vllm-ttft-p50.svg"), 2)
	require.Len(t, c.Rings, 1)
	assert.Equal(t, "#7F7F7F", c.Rings[0].Stroke, "unchanged is ringed grey")
	c.Has(t, "0.9.0")
	assert.NotContains(t, c.Texts, "0.7.0", "ollama's versions are not vllm's")
}

// -fail-on-regression: exit 1 naming the series and figures; without
// regression, 0.
func TestFailOnRegression(t *testing.T) {
	in := fixtureRuns(t, t.TempDir())
	code, _, stderr := runCmd("-o", t.TempDir(), "-fail-on-regression", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "1 series regressed")
	assert.Contains(t, stderr, "mac-studio · ollama · qwen3:8b · short · conc=1 · cold: TTFT p50 +20.0%, TTFT p95 +20.0%")

	// A threshold above the step: nothing regressed.
	code, _, stderr = runCmd("-o", t.TempDir(), "-fail-on-regression", "-threshold", "0.25", in)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)

	// Without the flag a regression is only reported.
	code, _, _ = runCmd("-o", t.TempDir(), in)
	assert.Equal(t, 0, code)
}

// Bad input: a message naming the file or flag, exit 2, nothing written.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := fixtureRuns(t, filepath.Join(dir, "good"))
	one := writeFile(t, filepath.Join(dir, "one"), withRows(newFile(nightly(0), "m", "sim", "1")))
	two := writeFile(t, filepath.Join(dir, "two"), withRows(newFile(nightly(1), "m", "sim", "1")))
	notJSON := filepath.Join(dir, "notes.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("hello"), 0o644))
	notSummary := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(notSummary, []byte(`{"benchmarks": []}`), 0o644))
	noRows := writeFile(t, filepath.Join(dir, "norows"), newFile(nightly(2), "m", "sim", "1"))
	future := writeFile(t, filepath.Join(dir, "future"), withRows(newFile(testNow.Add(time.Hour), "m", "sim", "1")))
	noTime := func() string {
		f := withRows(newFile(nightly(3), "m", "sim", "1"))
		f.CreatedAt = ""
		return writeFile(t, filepath.Join(dir, "notime"), f)
	}()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.MkdirAll(filepath.Join(empty, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(empty, "sub", "x.txt"), nil, 0o644))
	copyOf := filepath.Join(dir, "copy", "renamed.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(copyOf), 0o755))
	require.NoError(t, os.WriteFile(copyOf, testkit.ReadFile(t, one), 0o644))

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no -o", []string{good}, []string{"-o: give the folder"}},
		{"window 1", []string{"-window", "1", good}, []string{"-window 1: want 2 or more"}},
		{"threshold 0", []string{"-threshold", "0", good}, []string{"-threshold 0: want a fraction above 0"}},
		{"threshold negative", []string{"-threshold", "-0.1", good}, []string{"-threshold -0.1"}},
		{"threshold not a number", []string{"-threshold", "five", good}, []string{`invalid value "five" for flag -threshold`}},
		{"no files", []string{}, []string{"no summary JSON file or folder given"}},
		{"missing file", []string{good, filepath.Join(dir, "gone.json")}, []string{"gone.json: no such file"}},
		{"not JSON", []string{good, notJSON}, []string{notJSON + ": not JSON"}},
		{"not a summary", []string{good, notSummary}, []string{notSummary + `: not a summary JSON: no "summary" list`}},
		{"no rows", []string{good, noRows}, []string{noRows + ": a summary without rows"}},
		{"from the future", []string{good, future}, []string{future + `: "created_at" 2027-12-31T01:00:00.000000+00:00 is in the future`}},
		{"no created_at", []string{good, noTime}, []string{noTime + `: no "created_at"`}},
		{"same file twice", []string{one, two, one}, []string{one + ": run 20261120T020000Z of host \"m\" is also " + one}},
		{"same run under two names", []string{one, two, copyOf}, []string{"run 20261120T020000Z of host \"m\" is also"}},
		{"folder without summaries", []string{good, empty}, []string{empty + ": a folder without summary JSON files"}},
		{"one run", []string{one}, []string{"1 run read (" + one + "): a history needs two or more"}},
		{"several problems, all named", []string{notJSON, noRows, good}, []string{notJSON + ": not JSON", noRows + ": a summary without rows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if tc.name != "no -o" {
				args = append([]string{"-o", out}, args...)
			}
			code, stdout, stderr := runCmd(args...)
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "nothing written")
		})
	}
}

// withRows gives f one row of sim.
func withRows(f summary.File) summary.File {
	f.Summary = append(f.Summary, row("sim", "sim-model", "short", 1, 0, figs{0.05, 0.06, 400, 380, 0}, ""))
	return f
}

// Odd but valid input: files of the earlier harness (no host label, no
// cache key, versions as log text), a series in only some runs, rows
// with no figures, two hosts, and a history written inside the folder it
// reads.
func TestOddInput(t *testing.T) {
	dir := t.TempDir()
	for n := range 6 {
		f := newFile(nightly(n), "", "ollama", "ollama version is 0.5.1")
		if n == 5 {
			f.Versions["ollama"] = testkit.Ptr("Warning: client version is 0.6.0\nollama version is 0.6.0")
		}
		f.Arguments.Cache, f.Arguments.Turns = "", 0 // before the keys existed: warm, one turn
		f.Summary = append(f.Summary, row("ollama", "m", "", 1, 0, figs{0.05, 0.06, 40, 40, 0}, ""))
		if n%2 == 1 {
			f.Summary = append(f.Summary, row("ollama", "m", "", 2, 0, figs{}, ""))
		}
		writeFile(t, filepath.Join(dir, "old"), f)
		g := newFile(nightly(n).Add(time.Hour), "mac-mini", "ollama", "0.6.0")
		g.Summary = append(g.Summary, row("ollama", "m", "", 1, 0, figs{0.07, 0.09, 30, 30, 0.2}, ""))
		if n < 5 { // no longer run on the last night
			g.Summary = append(g.Summary, row("ollama", "m", "", 4, 0, figs{0.1 * noise[n], 0.2, 80, 300, 0.1}, ""))
		}
		writeFile(t, filepath.Join(dir, "mini"), g)
	}
	out := filepath.Join(dir, "history")
	code, _, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	// Again, the history now inside the folder read: left out.
	code, stdout, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "12 runs, 4 series")

	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	hosts := map[string]bool{}
	for _, s := range v.Series {
		hosts[s.Host] = true
		assert.Equal(t, 1, s.Turns)
	}
	assert.Equal(t, map[string]bool{"arm64": true, "mac-mini": true}, hosts, "no label: host.machine")
	old := v.findOn(t, "arm64", "ollama", 1, 0)
	assert.Equal(t, "warm", old.Cache, "no cache key: warm")
	assert.Equal(t, "0.6.0", *old.figure(t, "ttft-p50").VersionAfter, "the version's line of the log text")
	assert.Equal(t, "0.5.1", *old.figure(t, "ttft-p50").VersionBefore)

	stale := v.findOn(t, "mac-mini", "ollama", 4, 0)
	assert.Equal(t, "insufficient", stale.Verdict, "not in its host's latest run")
	assert.Equal(t, "20261124T030000Z", stale.LatestRun)

	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	assert.Contains(t, md, "- mac-mini · ollama · m · (none) · conc=4 · cold: not in the latest run of its host (last run 20261124T030000Z)")
	assert.Contains(t, md, "arm64 · ollama · m · (none) · conc=2 · warm: no figure in any run")
	assert.Contains(t, md, "| arm64 | ollama | 0.5.1 (2026-11-20, 20261120T020000Z) → 0.6.0 (2026-11-25, 20261125T020000Z) |")
	c := readChart(t, filepath.Join(out, "ollama-ttft-p50.svg"), 3)
	require.Len(t, c.Lines, 3)
	c.Lines[2].Points(t, 5)
	assert.Len(t, c.Rings, 2, "none on the line no longer run")
	c.Has(t, "arm64: 0.5.1", "arm64: 0.6.0", "mac-mini: 0.6.0", "arm64 · m · (none) · conc=1 · warm")
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// verdicts.json, as a reader would decode it.
type verdictsDoc struct {
	LatestRun   string  `json:"latest_run"`
	Runs        int     `json:"runs"`
	FamilyAlpha float64 `json:"family_alpha"`
	Series      []seriesDoc
}

type seriesDoc struct {
	LatestRun                                    string `json:"latest_run"`
	Host, Runtime, Model, Prompt, Cache, Verdict string
	Concurrency                                  int
	RateRPS                                      *float64 `json:"rate_rps"`
	Turns                                        int
	API                                          string
	Images                                       *string
	EmbedBatch                                   int `json:"embed_batch"`
	Figures                                      []figureDoc
	CanaryChanges                                []struct {
		At   int
		Text string
	} `json:"canary_changes"`
}

type figureDoc = struct {
	Figure, Verdict        string
	Latest, Centre, Change *float64
	Threshold              float64
	PValue                 float64  `json:"p_value"`
	PFamily                *float64 `json:"p_family"`
	HeldBack               bool     `json:"held_back"`
	LatestRun              string   `json:"latest_run"`
	BaselineRuns           []string `json:"baseline_runs"`
	VersionBefore          *string  `json:"version_before"`
	VersionAfter           *string  `json:"version_after"`
}

func readVerdicts(t *testing.T, path string) verdictsDoc {
	t.Helper()
	var v verdictsDoc
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, path), &v))
	return v
}

// find returns the only series of the runtime at the load.
func (v verdictsDoc) find(t *testing.T, runtime string, conc int, rate float64) seriesDoc {
	t.Helper()
	return v.findOn(t, "*", runtime, conc, rate)
}

// findOn returns the only series of the runtime at the load on host ("*":
// any).
func (v verdictsDoc) findOn(t *testing.T, host, runtime string, conc int, rate float64) seriesDoc {
	t.Helper()
	var found []seriesDoc
	for _, s := range v.Series {
		r := 0.0
		if s.RateRPS != nil {
			r = *s.RateRPS
		}
		if s.Runtime == runtime && s.Concurrency == conc && r == rate && (host == "*" || s.Host == host) {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "series %s conc=%d rate=%v", runtime, conc, rate)
	return found[0]
}

func (s seriesDoc) figure(t *testing.T, id string) figureDoc {
	t.Helper()
	for _, f := range s.Figures {
		if f.Figure == id {
			return f
		}
	}
	require.Failf(t, "no figure", "%s in %s conc=%d", id, s.Runtime, s.Concurrency)
	return figureDoc{}
}

// Canary replies: a change with the version, one without, and one across
// a night whose canary failed (compared with the night before it).
func TestCanaryChanges(t *testing.T) {
	dir := t.TempDir()
	for n, c := range []struct{ version, canary string }{
		{"1", "alpha"}, {"1", "alpha"}, {"1", "alphabet"}, {"1", ""}, {"2", "beta"}, {"2", "beta"},
	} {
		f := newFile(nightly(n), "m", "sim", c.version)
		f.Summary = append(f.Summary, row("sim", "sim-model", "short", 1, 0, figs{0.05, 0.06, 400, 380, 0}, c.canary))
		writeFile(t, dir, f)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	s := readVerdicts(t, filepath.Join(out, verdictsJSON)).find(t, "sim", 1, 0)
	require.Len(t, s.CanaryChanges, 2)
	assert.Equal(t, 5, s.CanaryChanges[0].At)
	assert.Equal(t, "sim: canary reply of prompt short changed at character 6 (same version 1)", s.CanaryChanges[0].Text)
	assert.Equal(t, 0, s.CanaryChanges[1].At)
	assert.Equal(t, "sim 1 → 2: canary reply of prompt short changed at character 1", s.CanaryChanges[1].Text)
	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	assert.Contains(t, md, "- m · sim · sim-model · short · conc=1 · cold, run 20261122T020000Z → 20261124T020000Z: sim 1 → 2: canary reply of prompt short changed at character 1\n",
		"across the night without a canary")

	// A window of 2 runs: only the last change is within it.
	code, _, stderr = runCmd("-o", out, "-window", "2", dir)
	require.Equal(t, 0, code, stderr)
	s = readVerdicts(t, filepath.Join(out, verdictsJSON)).find(t, "sim", 1, 0)
	require.Len(t, s.CanaryChanges, 1)
	assert.Equal(t, "insufficient", s.Verdict, "a window of 2 judges nothing")
}

// A reply that changed after the row's first 2,000 characters: placed
// exactly from the runs' request records, where both runs have them;
// "after character 2000" where one has none; a records file that cannot
// be read is named, and nothing is written.
func TestCanaryChangeAfterTheKeptText(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("abcdefghij", 250) // 2,500 characters
	changed := long[:2299] + "X" + long[2300:]
	var recordFiles []string
	for n, text := range []string{long, changed} {
		f := newFile(nightly(n), "m", "sim", "1")
		r := row("sim", "sim-model", "short", 1, 0, figs{0.05, 0.06, 400, 380, 0}, "")
		r.Canary = canary.New(text, 500)
		require.Len(t, r.Canary.Text, canary.TextMax, "the row keeps the first 2,000 characters")
		f.Summary = append(f.Summary, r)
		path := writeFile(t, dir, f)
		recs, err := records.Append(nil, []records.Record{
			{Runtime: "sim", Prompt: "short", Concurrency: 1, Count: 1, Warmup: true, OutputTokens: 500},
			{Runtime: "sim", Prompt: "short", Concurrency: 1, Count: 1, Canary: true, OutputTokens: 500, Text: &text},
		})
		require.NoError(t, err)
		recordFiles = append(recordFiles, summary.RecordsBeside(path))
		require.NoError(t, os.WriteFile(recordFiles[n], recs, 0o644))
	}
	out := filepath.Join(t.TempDir(), "out")
	changes := func() []string {
		t.Helper()
		code, _, stderr := runCmd("-o", out, dir)
		require.Equal(t, 0, code, stderr)
		var texts []string
		for _, c := range readVerdicts(t, filepath.Join(out, verdictsJSON)).find(t, "sim", 1, 0).CanaryChanges {
			texts = append(texts, fmt.Sprintf("%d: %s", c.At, c.Text))
		}
		return texts
	}
	assert.Equal(t, []string{"2299: sim: canary reply of prompt short changed at character 2300 (same version 1)"}, changes())

	require.NoError(t, os.Remove(recordFiles[1]))
	assert.Equal(t, []string{"2000: sim: canary reply of prompt short changed after character 2000 (the first 2000 are the same) (same version 1)"}, changes(),
		"without the latest run's records")

	require.NoError(t, os.WriteFile(recordFiles[1], []byte("{\"runtime\": 1}\n{\"canary\": true, \"text\": 5}\n{}\n"), 0o644))
	out = filepath.Join(t.TempDir(), "bad")
	code, _, stderr := runCmd("-o", out, dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, recordFiles[1])
	assert.NoDirExists(t, out)
}

// The earlier harness's file, twice (the second a night later): read,
// with its version as log text under "vllm" for runtime vllm-metal, no
// host label, no cache key, no prompt.
func TestSeed(t *testing.T) {
	dir := t.TempDir()
	var f map[string]any
	seed := testkit.ReadFile(t, filepath.Join("..", "..", "testdata", "seed-summary.json"))
	require.NoError(t, json.Unmarshal(seed, &f))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "first.json"), seed, 0o644))
	f["run_id"], f["created_at"] = "later", "2026-09-01T11:47:27.622260+00:00"
	later, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "later.json"), later, 0o644))

	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "2 runs, 2 series")
	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	s := v.find(t, "vllm-metal", 1, 0)
	assert.Equal(t, "arm64", s.Host)
	assert.Equal(t, "warm", s.Cache)
	assert.Equal(t, "", s.Prompt)
	assert.Equal(t, "insufficient", s.Verdict)
	assert.Equal(t, "0.28.0+cpu", *s.figure(t, "ttft-p50").VersionAfter)
	assert.Equal(t, "later", s.LatestRun)
}

// Two Macs that start their nights in the same second share run ids: each
// host's runs are read, none taken for the other's copy, and each runtime
// gets one chart per figure with both hosts' lines. A history written into
// the folder it reads is left out the next time, its verdicts.json too.
func TestTwoHostsSameRunIDs(t *testing.T) {
	dir := t.TempDir()
	for n := range 6 {
		for _, host := range []string{"mac-m2", "mac-m4"} {
			f := newFile(nightly(n), host, "ollama", "0.6.5")
			f.Summary = append(f.Summary, row("ollama", "m", "short", 1, 0, figs{0.05 * noise[n], 0.06, 40, 40, 0}, ""))
			writeFile(t, filepath.Join(dir, host), f)
		}
	}
	code, stdout, stderr := runCmd("-o", dir, dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "12 runs, 2 series")
	charts := 0
	for _, name := range dirNames(t, dir) {
		if strings.HasSuffix(name, ".svg") {
			charts++
			assert.NotContains(t, name, "-2-", "one chart per runtime and figure")
		}
	}
	assert.Equal(t, 4, charts, "ollama's TTFT p50, p95, decode, aggregate")
	c := readChart(t, filepath.Join(dir, "ollama-ttft-p50.svg"), 2)
	require.Len(t, c.Lines, 2, "a line a host")

	code, _, stderr = runCmd("-o", dir, dir)
	require.Equal(t, 0, code, "the history's own files are not read as summaries: %s", stderr)

	// A window too short to judge anything is said, and run.
	code, _, stderr = runCmd("-o", filepath.Join(t.TempDir(), "short"), "-window", "3", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "-window 3: a verdict needs 4 earlier runs")
}

// Nights of another API, other images or another embeddings batch are
// other series: their leaves and benchstat lines tell them apart, and a
// history that pooled them would read a night of completions (or of
// images, three times the prefill) as the chat's regression.
func TestOtherWorkOtherSeries(t *testing.T) {
	dir := t.TempDir()
	n := 0
	night := func(mod func(*summary.Arguments), ttft float64) {
		for range 6 {
			f := newFile(nightly(n), "mini", "sim", "1.0")
			mod(&f.Arguments)
			f.Summary = append(f.Summary, row("sim", "m", "short", 1, 0, figs{ttft * noise[n%len(noise)], 2 * ttft, 400, 380, 0}, ""))
			writeFile(t, dir, f)
			n++
		}
	}
	night(func(*summary.Arguments) {}, 0.05)
	night(func(a *summary.Arguments) { a.API = "completions" }, 0.15)
	night(func(a *summary.Arguments) { a.Images = "2@512x512" }, 0.30)
	night(func(a *summary.Arguments) { a.API, a.EmbedBatch = "embeddings", 4 }, 0.02)
	night(func(a *summary.Arguments) { a.API, a.EmbedBatch = "embeddings", 16 }, 0.08)
	out := filepath.Join(dir, "history")
	code, stdout, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "30 runs, 5 series")

	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	var got []string
	for _, s := range v.Series {
		assert.NotEqual(t, "regression", s.Verdict, "%s %v %d", s.API, s.Images, s.EmbedBatch)
		assert.NotEqual(t, "improvement", s.Verdict, "%s %v %d", s.API, s.Images, s.EmbedBatch)
		img := "none"
		if s.Images != nil {
			img = *s.Images
		}
		got = append(got, fmt.Sprintf("%s/%s/%d", s.API, img, s.EmbedBatch))
	}
	assert.ElementsMatch(t, []string{"chat/none/1", "completions/none/1", "chat/2@512x512/1", "embeddings/none/4", "embeddings/none/16"}, got)
	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	assert.Contains(t, md, "mini · sim · m · short · conc=1 · cold · api=completions")
	assert.Contains(t, md, "mini · sim · m · short · conc=1 · cold · images=2@512x512")
	assert.Contains(t, md, "mini · sim · m · short · conc=1 · cold · api=embeddings · embed-batch=16")
}
