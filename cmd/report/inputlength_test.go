package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/svgtest"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The lengths fixture's N, runtimes and loads, in the order the charts
// and tables have them.
var (
	lengthsNs    = []float64{512, 4096, 32768}
	lengthsLines = [][2]string{{"ollama", "conc 1"}, {"ollama", "conc 4"}, {"vllm", "conc 1"}, {"vllm", "conc 4"}}
)

// lengthsValues returns a figure of the fixture's rows, times scale, in
// the order of lengthsLines and N; only the lines of the runtimes asked
// for, or all.
func lengthsValues(t *testing.T, r *run, value func(row) *float64, scale float64, runtimes ...string) []float64 {
	t.Helper()
	var out []float64
	for _, l := range lengthsLines {
		if len(runtimes) > 0 && !slices.Contains(runtimes, l[0]) {
			continue
		}
		for _, rw := range inputRows(r, l[0]) {
			if loadOf(rw).load() == l[1] {
				require.NotNil(t, value(rw), "%s %s %s", l[0], l[1], rw.Prompt)
				out = append(out, *value(rw)*scale)
			}
		}
	}
	return out
}

// A run of in<N> prompts: the input length section before the prompts'
// own sections, a table per runtime, the two charts of every in<N> row.
func TestInputLength(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/lengths.json")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	want := []string{"report.md", "input-ttft.svg", "input-rates.svg"}
	for _, p := range []string{"in512", "in4096", "in32768"} {
		want = append(want, "ttft-"+p+".svg", "throughput-"+p+".svg", "latency-"+p+".svg")
	}
	assert.Equal(t, strings.Join(want, "\n")+"\n", strings.ReplaceAll(stdout, dir+string(filepath.Separator), ""),
		"the input length charts first, then each prompt's as before")

	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "lengths.md", md)
	s := string(md)
	section := strings.Index(s, "## Input length\n")
	require.GreaterOrEqual(t, section, 0)
	assert.Less(t, strings.Index(s, "| run | file |"), section)
	for _, p := range []string{"in512", "in4096", "in32768"} {
		assert.Less(t, section, strings.Index(s, "## Prompt "+p+"\n"), "before the prompts' sections, which stay")
	}
	assert.Contains(t, s, "a truncated prompt means the server cut it, and the row does not describe N")
	assert.Less(t, strings.Index(s, "![TTFT p50 and p99 against input tokens](input-ttft.svg)\n"+
		"![Prefill and decode tokens/s against input tokens](input-rates.svg)\n"), strings.Index(s, "### ollama\n"))
	assert.Contains(t, s, "*No prefill line for vllm: no prefill figure (prompt_tps), as the server reports no prompt evaluation time.*")
	head := "| N | prompt tokens | load | TTFT p50 ms | TTFT p99 ms | prefill tok/s | decode tok/s | TPOT ms | truncated |\n" +
		"|---:|---:|---|---:|---:|---:|---:|---:|---:|\n"
	// By N, then load; the cut prompts in bold; vllm's prefill missing.
	assert.Contains(t, s, "### ollama\n\n"+head+
		"| 512 | 510.0 | conc 1 | 308.4 | 311.1 | 1831.9 | 41.6 | 24.24 | 0 |\n"+
		"| 512 | 510.5 | conc 4 | 948.2 | 1536.1 | 1388.7 | 28.7 | 35.14 | 0 |\n"+
		"| 4096 | 4094.0 | conc 1 | 2582.4 | 2607.2 | 1604.1 | 37.6 | 26.79 | 0 |\n"+
		"| 4096 | 4094.5 | conc 4 | 8441.2 | 13813.3 | 1216.0 | 24.5 | 41.19 | 0 |\n"+
		"| 32768 | 32766.0 | conc 1 | 35614.6 | 35959.9 | 920.9 | 25.7 | 39.15 | 0 |\n"+
		"| 32768 | 32766.8 | conc 4 | 117284.4 | 192147.5 | 698.1 | 15.7 | 64.09 | **2 of 8** |\n\n"+
		"### vllm\n\n"+head+
		"| 512 | 511.0 | conc 1 | 99.7 | 100.4 | — | 57.4 | 17.55 | 0 |\n")
	assert.Equal(t, 1, strings.Count(s, "**2 of 8**"))

	r, err := readRun("testdata/lengths.json")
	require.NoError(t, err)

	// TTFT: a line per runtime and load for p50, then for p99, dashed,
	// through the points of every N on log axes.
	c := parseChart(t, filepath.Join(dir, "input-ttft.svg"), len(lengthsLines)+2)
	c.Has(t, "Time to first token against input length, p50 and p99", xLabelInput, "TTFT (ms), log scale",
		"ollama, conc 1", "ollama, conc 4", "vllm, conc 1", "vllm, conc 4", "TTFT p50", "TTFT p99", cutLabel,
		"512", "4096", "32768", "100", "1000", "10000", "100000")
	require.Len(t, c.Lines, 2*len(lengthsLines))
	for i, l := range c.Lines {
		l.Points(t, len(lengthsNs))
		sample := c.Legend[i%len(lengthsLines)]
		assert.Equal(t, sample.Stroke, l.Stroke, "line %d: its runtime and load's colour", i)
		if i < len(lengthsLines) {
			assert.Empty(t, l.Dash, "p50 solid")
		} else {
			assert.NotEmpty(t, l.Dash, "p99 dashed")
		}
	}
	assert.Len(t, slices.CompactFunc(slices.Clone(c.Legend[:4]), func(a, b svgtest.Line) bool { return a.Stroke == b.Stroke }), 4, "a colour each")
	assert.Empty(t, c.Legend[4].Dash, "the legend's p50 sample is solid")
	assert.NotEmpty(t, c.Legend[5].Dash, "the legend's p99 sample is dashed")
	c.logX(t, lengthsNs)
	c.onLogScale(t, append(lengthsValues(t, r, func(r row) *float64 { return r.TTFTP50 }, 1e3),
		lengthsValues(t, r, func(r row) *float64 { return r.TTFTP99 }, 1e3)...))
	// The cut prompts' row, ollama at 4 and 32768: its p50 and p99 ringed.
	require.Len(t, c.Rings, 3, "two rings and the legend's sample")
	for i, l := range []svgtest.Line{c.Lines[1], c.Lines[5]} {
		assert.InDelta(t, l.XY[2][0], c.Rings[i].X, 0.01)
		assert.InDelta(t, l.XY[2][1], c.Rings[i].Y, 0.01)
	}

	// Rates: ollama's prefill (vllm has none), then every line's
	// decode, dashed.
	c = parseChart(t, filepath.Join(dir, "input-rates.svg"), len(lengthsLines)+2)
	c.Has(t, "Prefill and decode rates against input length", xLabelInput, "tokens/s, log scale",
		"prefill tok/s", "decode tok/s", cutLabel, "512", "4096", "32768", "20", "50", "100", "1000")
	require.Len(t, c.Lines, 2+len(lengthsLines))
	for i, l := range c.Lines {
		l.Points(t, len(lengthsNs))
		if i < 2 {
			assert.Equal(t, c.Legend[i].Stroke, l.Stroke, "prefill %d", i)
			assert.Empty(t, l.Dash, "prefill %d solid", i)
		} else {
			assert.Equal(t, c.Legend[i-2].Stroke, l.Stroke, "decode %d", i)
			assert.NotEmpty(t, l.Dash, "decode %d dashed", i)
		}
	}
	assert.Empty(t, c.Legend[0].Dash, "ollama's first figure is prefill")
	assert.NotEmpty(t, c.Legend[2].Dash, "vllm's only figure is decode")
	c.logX(t, lengthsNs)
	c.onLogScale(t, append(lengthsValues(t, r, func(r row) *float64 { return r.PromptTPSMean }, 1, "ollama"),
		lengthsValues(t, r, func(r row) *float64 { return r.DecodeTPSMean }, 1)...))
	require.Len(t, c.Rings, 3)
	for i, l := range []svgtest.Line{c.Lines[1], c.Lines[3]} {
		assert.InDelta(t, l.XY[2][0], c.Rings[i].X, 0.01)
		assert.InDelta(t, l.XY[2][1], c.Rings[i].Y, 0.01)
	}

	// Drawing twice gives the same bytes.
	code, _, stderr = report("-o", filepath.Join(dir, "again"), "testdata/lengths.json")
	require.Equal(t, 0, code, stderr)
	for _, name := range []string{"input-ttft.svg", "input-rates.svg"} {
		assert.Equal(t, testkit.ReadFile(t, filepath.Join(dir, name)), testkit.ReadFile(t, filepath.Join(dir, "again", name)), name)
	}

	// Without charts: the section's tables, no links.
	code, _, stderr = report("-charts=false", "-o", filepath.Join(dir, "nocharts"), "testdata/lengths.json")
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(dir, "nocharts", "report.md")))
	assert.Contains(t, s, "## Input length\n")
	assert.Contains(t, s, "| 32768 | 32766.8 | conc 4 | 117284.4 | 192147.5 | 698.1 | 15.7 | 64.09 | **2 of 8** |\n")
	assert.NotContains(t, s, "input-ttft.svg")
	assert.NotContains(t, s, "No prefill line")
}

// Runs without in<N> rows have no input length section and neither
// chart.
func TestInputLengthNone(t *testing.T) {
	for _, files := range [][]string{{seed}, {"testdata/old.json"}, {"testdata/old.json", "testdata/new.json"}} {
		dir := t.TempDir()
		code, stdout, stderr := report(append([]string{"-o", dir}, files...)...)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout, "input-", files)
		for _, name := range []string{"input-ttft.svg", "input-rates.svg"} {
			_, err := os.Stat(filepath.Join(dir, name))
			assert.True(t, os.IsNotExist(err), "%v: %s", files, name)
		}
		assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))), "## Input length", files)
	}
}

// Two runs: a table per runtime and run, and a line per runtime, load
// and run, a runtime and load's colour shared by its runs.
func TestInputLengthRuns(t *testing.T) {
	dir := t.TempDir()
	later := laterRun(t, dir, "testdata/lengths.json", "20261204T021700Z", func(rw map[string]any) bool {
		switch {
		case rw["runtime"] == "vllm" && rw["prompt"] == "in4096" && rw["concurrency"] == 4.0:
			return false // not run
		case rw["runtime"] == "ollama" && rw["prompt"] == "in512" && rw["concurrency"] == 1.0:
			rw["prompt_tps_mean"] = nil
		case rw["runtime"] == "ollama" && rw["prompt"] == "in32768" && rw["concurrency"] == 4.0:
			rw["truncated_prompts"] = 0 // num_ctx raised
		}
		return true
	})

	code, _, stderr := report("-o", filepath.Join(dir, "out"), "testdata/lengths.json", later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	var heads []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "### ") && strings.Contains(l, "T021700Z)") {
			heads = append(heads, l)
		}
	}
	assert.Equal(t, []string{
		"### ollama (20261203T021700Z)", "### ollama (20261204T021700Z)",
		"### vllm (20261203T021700Z)", "### vllm (20261204T021700Z)",
	}, heads)
	assert.Equal(t, 1, strings.Count(s, "**2 of 8**"), "only the first run's prompts were cut")
	assert.Contains(t, s, "### vllm (20261204T021700Z)\n\n| N |")
	assert.Contains(t, s, "| 512 | 510.0 | conc 1 | 308.4 | 311.1 | — | 41.6 | 24.24 | 0 |\n"+
		"| 512 | 510.5 | conc 4 |", "the later run's ollama table, without its first prefill")
	assert.Contains(t, s, "*No prefill line for vllm (20261203T021700Z); vllm (20261204T021700Z): no prefill figure")

	c := parseChart(t, filepath.Join(dir, "out", "input-ttft.svg"), 2*len(lengthsLines)+2)
	c.Has(t, "ollama, conc 1 (20261203T021700Z)", "ollama, conc 1 (20261204T021700Z)", "vllm, conc 4 (20261204T021700Z)")
	require.Len(t, c.Lines, 2*2*len(lengthsLines), "p50 and p99 of each runtime, load and run")
	for i, l := range c.Lines {
		if i%8 == 7 {
			l.Points(t, 2) // vllm at 4, the later run: no 4096
		} else {
			l.Points(t, 3)
		}
		assert.Equal(t, c.Legend[i%8].Stroke, l.Stroke)
	}
	assert.Equal(t, c.Legend[0].Stroke, c.Legend[1].Stroke, "a runtime and load keep their colour across runs")
	assert.NotEqual(t, c.Legend[1].Stroke, c.Legend[2].Stroke)
	require.Len(t, c.Rings, 3, "the first run's cut prompts only")

	c = parseChart(t, filepath.Join(dir, "out", "input-rates.svg"), 2*len(lengthsLines)+2)
	require.Len(t, c.Lines, 4+2*len(lengthsLines), "prefill of ollama's lines, decode of all")
	c.Lines[0].Points(t, 3)
	c.Lines[1].Points(t, 2) // the later run's ollama at 1 has no prefill at 512
	c.Lines[2].Points(t, 3)
	c.Lines[3].Points(t, 3)
	assert.Greater(t, c.Lines[1].XY[0][0], c.Lines[0].XY[0][0], "it starts at 4096")
}

// logX checks that every line's points are at the x of their N on one
// log axis: x = a + k·log(N), k > 0.
func (c chart) logX(t *testing.T, ns []float64) {
	t.Helper()
	require.NotEmpty(t, c.Lines)
	first := c.Lines[0]
	require.Len(t, first.XY, len(ns))
	k := (first.XY[len(ns)-1][0] - first.XY[0][0]) / math.Log(ns[len(ns)-1]/ns[0])
	assert.Greater(t, k, 0.0)
	for i, l := range c.Lines {
		for _, p := range l.XY {
			n := ns[0] * math.Exp((p[0]-first.XY[0][0])/k)
			j := slices.IndexFunc(ns, func(x float64) bool { return math.Abs(x-n) < 0.01*x })
			assert.GreaterOrEqual(t, j, 0, "line %d: a point at x %v is at no N (%v)", i, p[0], n)
		}
	}
}

// onLogScale checks that the lines' points, in order, are at the heights
// of values on a log axis: y = a + k·log(v), the same a and k > 0 for
// all.
func (c chart) onLogScale(t *testing.T, values []float64) {
	t.Helper()
	ys := c.YS()
	require.Len(t, ys, len(values))
	lo, hi := slices.Index(values, slices.Min(values)), slices.Index(values, slices.Max(values))
	k := (ys[hi] - ys[lo]) / math.Log(values[hi]/values[lo])
	assert.Greater(t, k, 0.0)
	for i, v := range values {
		assert.InDelta(t, ys[lo]+k*math.Log(v/values[lo]), ys[i], 0.01, "point %d (%v)", i, v)
	}
}
