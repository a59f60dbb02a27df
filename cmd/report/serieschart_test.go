package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotutil"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/svgtest"
	"github.com/inferencebench/inferencebench/internal/telemetry"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// testdata/series is a run the suite wrote on the simulator with 2 slots
// at concurrency 8 (BENCH_METRICS_INTERVAL=200ms SIM_SLOTS=2
// BENCH_CONCURRENCY=8 BENCH_PROMPTS=short BENCH_MAX_TOKENS=64
// -benchtime=2x -count=2): two leaf runs of 9 samples each, the queue
// going 6, 4, 2, 0 as the slots free.
const seriesRun = "testdata/series/20261206T071107Z.json"

// hex is plotutil's colour i as svgtest reads a stroke.
func hex(i int) string {
	c := color.RGBAModel.Convert(plotutil.Color(i)).(color.RGBA)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// linesOf are the chart's lines of more than two points in colour i.
func linesOf(s svgtest.SVG, i int) []svgtest.Path {
	var out []svgtest.Path
	for _, p := range s.Paths {
		if strings.EqualFold(p.Stroke, hex(i)) && p.Width == 1.5 && len(p.Points) > 2 {
			out = append(out, p)
		}
	}
	return out
}

// A run with a metric series gets a section of its own and, for each
// runtime, a chart of KV-cache use, running and waiting requests and the
// client's throughput over the run: a line per leaf run, a point per
// sample, the queue rising and falling.
func TestSeriesChart(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, seriesRun)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, filepath.Join(dir, "series-sim.svg")+"\n")
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	sec := md[strings.Index(md, "## Server metrics over time\n"):strings.Index(md, "## Prompt short\n")]
	assert.Contains(t, sec, "![Server KV-cache use and queue over the run, beside the client's throughput: sim](series-sim.svg)\n")
	// 18 samples: 2 leaf runs of the first at 0 and 8 at 2 running and a
	// queue of 6, 4, 2, 0, 6, 4, 2, 0.
	assert.Contains(t, sec, "*sim, over the samples of each leaf's timed parts: prompt=short/conc=8: "+
		"KV-cache use mean 89%, peak 100%; running mean 1.78; waiting mean 2.67, peak 6.*\n")

	s := svgtest.Read(t, filepath.Join(dir, "series-sim.svg"))
	svgtest.HasTexts(t, s.Texts, "Server and client over the run — sim", "KV-cache use, %", "KV-cache use",
		"requests at the server", "running", "waiting", "client output, tok/s", "client output, 0.2 s bins", "seconds from the run's start")
	kv, running, waiting, tput := linesOf(s, 0), linesOf(s, 1), linesOf(s, 3), linesOf(s, 2)
	for name, ls := range map[string][]svgtest.Path{"kv": kv, "running": running, "waiting": waiting, "throughput": tput} {
		assert.Len(t, ls, 2, "%s: a line per leaf run", name)
	}
	for _, l := range append(kv, append(running, waiting...)...) {
		assert.Len(t, l.Points, 9, "a point per sample")
	}
	for _, l := range waiting {
		assert.NotEmpty(t, l.Dash, "waiting is dashed")
		ys := map[float64]bool{}
		for _, p := range l.Points {
			ys[p[1]] = true
		}
		assert.Len(t, ys, 4, "the queue at 0, 6, 4 and 2")
	}
}

// A run without a series has no such section; a series file that cannot
// be read is a warning, and the rest of the report is written.
func TestSeriesChartAbsentOrBroken(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, draws)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "series-")
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))), "Server metrics")

	in := t.TempDir()
	for _, ext := range []string{".json", ".requests.jsonl"} {
		b := testkit.ReadFile(t, strings.TrimSuffix(seriesRun, ".json")+ext)
		require.NoError(t, os.WriteFile(filepath.Join(in, "20261206T071107Z"+ext), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(in, "20261206T071107Z"+telemetry.ExtSeries), []byte("{\"leaf\":\"x\",\"t_s\":\"soon\"}\n"), 0o644))
	code, stdout, stderr = report("-o", dir, filepath.Join(in, "20261206T071107Z.json"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "report: warning: ")
	assert.Contains(t, stderr, "the server metrics charts leave run")
	assert.NotContains(t, stdout, "series-")
}

// The client's throughput: each request's output tokens spread evenly
// from its first token to its end over the bins it covers.
func TestThroughputBins(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	recs := []records.Record{
		{Runtime: "a", StartS: 1, TTFTS: f(0.5), TotalS: 2.5, OutputTokens: 100}, // 1.5 s to 3.5 s: 50 tok/s
		{Runtime: "a", StartS: 3, TTFTS: f(0), TotalS: 1, OutputTokens: 10},      // 3 s to 4 s
		{Runtime: "a", StartS: 0, TotalS: 1, OutputTokens: 99, Warmup: true},     // not timed
		{Runtime: "b", StartS: 0, TotalS: 1, OutputTokens: 99},                   // another runtime
	}
	got := throughput(recs, "a", 1)
	assert.InDeltaSlice(t, []float64{0, 25, 50, 35, 0}, append(got, make([]float64, 5-len(got))...), 1e-9)
}

// A series of nothing the chart draws (a server that gave only a prefix
// hit rate, no records) is no chart, and no panic.
func TestSeriesChartNothingToDraw(t *testing.T) {
	half := 0.5
	rs := &runSeries{runtime: "a", segs: []*segment{{leaf: "runtime=a/prompt=p/conc=1", count: 1,
		ss: []telemetry.ServerSample{{TS: 1, PrefixHitRate: &half}, {TS: 2, PrefixHitRate: &half}}}}}
	b, err := seriesChart("t", rs, nil)
	require.NoError(t, err)
	assert.True(t, b == nil, "no chart")
}
