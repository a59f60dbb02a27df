package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
	"github.com/inferencebench/inferencebench/runtimes"
)

// nightOf is a run of night n of runtime mlx (OpenAI kind) at conc=1: four
// replies of 128 tokens at 400 tok/s (times k), the last replaced by burst
// when set, its rows computed as the suite computes them.
func nightOf(t *testing.T, dir string, n int, k float64, burst *runtimes.Result, edit func(*summary.File)) {
	t.Helper()
	r := summary.NewRun(nightly(n))
	r.Host.Label = "mac-studio"
	r.Arguments = summary.Arguments{OutputDir: "results", Cache: config.CacheCold, Turns: 1, Concurrency: []int{1}, MaxTokens: 128}
	r.Cache = config.CacheCold
	r.Runtimes = []summary.RuntimeInfo{{Name: "mlx", Kind: "openai", Model: "qwen3-8b"}}
	r.Versions = map[string]*string{"mlx": nil}
	ttft, span := time.Duration(float64(50*time.Millisecond)*k), time.Duration(float64(320*time.Millisecond)*k)
	normal := runtimes.Result{TTFT: ttft, TTFC: ttft, Total: ttft + span, OutputTokens: 128, Chunks: 128, Turn: 1}
	var rounds []stats.Round
	for i := range 4 {
		res := normal
		if i == 3 && burst != nil {
			res = *burst
		}
		rounds = append(rounds, stats.Round{Wall: res.Total, MaxTokens: 128, Results: []runtimes.Result{res}})
	}
	r.Add(bench.Key{Runtime: "mlx", Model: "qwen3-8b", Prompt: "short", Concurrency: 1}, rounds, summary.Telemetry{})
	f := r.File()
	if edit != nil {
		edit(&f)
	}
	writeFile(t, dir, f)
}

// The case: seven steady nights, then one whose last reply came in
// a burst (first token at 300 ms, 128 tokens in 23.6 ms). Its row's
// decode rate is not moved (the burst is counted in burst_replies), and
// the history judges the median: no decode "improvement" (+315% before).
func TestBurstReplyMakesNoDecodeVerdict(t *testing.T) {
	dir := t.TempDir()
	for n := range 8 {
		var burst *runtimes.Result
		if n == 7 {
			burst = &runtimes.Result{TTFT: 300 * time.Millisecond, TTFC: 300 * time.Millisecond,
				Total: 300*time.Millisecond + 23580*time.Microsecond, OutputTokens: 128, Chunks: 128, Turn: 1}
		}
		nightOf(t, dir, n, noise[min(n, len(noise)-1)], burst, nil)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	s := v.find(t, "mlx", 1, 0)
	d := s.figure(t, "decode")
	assert.Equal(t, "unchanged", d.Verdict, "one burst reply is no decode improvement")
	require.NotNil(t, d.Latest)
	assert.InDelta(t, 400, *d.Latest, 10)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(out, historyMD))), "| decode p50 | 1")
	// Its late first token is a real wait, but TTFT p95 of four replies is
	// that one reply: not judged (a +518% "regression" before).
	for _, f := range s.Figures {
		assert.NotEqual(t, "ttft-p95", f.Figure, "a p95 of 4 replies is not judged")
	}
	p50 := s.figure(t, "ttft-p50")
	assert.Equal(t, "unchanged", p50.Verdict, "nor does it move the median")
}

// With 21 replies or more a row's TTFT p95 is judged, and one stalled
// reply among them moves it by nothing (the largest has no weight).
func TestTTFTP95JudgedFromEnoughReplies(t *testing.T) {
	row := func(successes int, p95 float64) *summary.Row {
		return &summary.Row{Successes: successes, TTFTP95: &p95}
	}
	v := trended[1]
	require.Equal(t, "ttft-p95", v.id)
	assert.Nil(t, v.value(row(20, 0.3)))
	require.NotNil(t, v.value(row(21, 0.3)))
	assert.Equal(t, 0.3, *v.value(row(21, 0.3)))
	// The suite's own p95 of 21 TTFTs, the last a stall of 10 s: the
	// second largest's.
	ttfts := make([]runtimes.Result, 21)
	for i := range ttfts {
		d := time.Duration(50+i) * time.Millisecond
		ttfts[i] = runtimes.Result{TTFT: d, TTFC: d, Total: d + 320*time.Millisecond, OutputTokens: 128, Chunks: 128, Turn: 1}
	}
	ttfts[20].TTFT, ttfts[20].TTFC, ttfts[20].Total = 10*time.Second, 10*time.Second, 10*time.Second+320*time.Millisecond
	m := stats.Compute([]stats.Round{{Wall: time.Second, MaxTokens: 128, Results: ttfts}}, stats.SLO{})
	assert.InDelta(t, 0.069, m.TTFT.P95, 1e-9, "the stall has no weight in p95 of 21")
}

// A run whose control drifted is said so in history.md and verdicts.json,
// and is left out of every baseline: a night of a slow machine whose
// control caught it does not make the next night an "improvement".
func TestDriftedControlIsNoBaseline(t *testing.T) {
	dir := t.TempDir()
	drifted := func(f *summary.File) {
		f.Runtimes[0].Control = &summary.Control{Control: stats.Control{Leaf: "runtime=mlx/prompt=short/conc=1", Drifted: true, Verdict: stats.ControlDrifted}}
	}
	for n := range 8 {
		k, edit := noise[min(n, len(noise)-1)], (func(*summary.File))(nil)
		if n == 6 {
			k, edit = 1.6, drifted // the machine slowed under the run, and its control said so
		}
		nightOf(t, dir, n, k, nil, edit)
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCmd("-o", out, dir)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(out, historyMD)))
	drift := nightly(6).UTC().Format(summary.RunIDFormat)
	assert.Contains(t, md, "## Drifted controls")
	assert.Contains(t, md, "- run "+drift+", mlx: ")
	assert.Contains(t, md, "not used as a baseline for the verdicts")
	assert.Contains(t, md, "Not used as a baseline, their control having drifted: "+drift+".")
	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	s := v.find(t, "mlx", 1, 0)
	for _, f := range s.Figures {
		assert.NotContains(t, f.BaselineRuns, drift, f.Figure)
		assert.Equal(t, "unchanged", f.Verdict, f.Figure)
	}
}
