package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/svgtest"
	"github.com/inferencebench/inferencebench/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

const seed = "../../testdata/seed-summary.json"

// report runs the command and returns its exit code, stdout and stderr.
func report(args ...string) (int, string, string) {
	return testkit.Run(func(stdout, stderr io.Writer) int { return command(args, stdout, stderr) })
}

// The earlier harness's file: no prompt, no host CPU, versions as pages of
// log text.
func TestSeed(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, seed)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strings.Join([]string{
		filepath.Join(dir, "report.md"),
		filepath.Join(dir, "ttft-none.svg"),
		filepath.Join(dir, "throughput-none.svg"),
	}, "\n")+"\n", stdout)

	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "seed.md", md)
	s := string(md)
	// Written before BENCH_CACHE: every request sent the same prompt.
	assert.Contains(t, s, "| 20260831T114727Z | `../../testdata/seed-summary.json` | 2026-08-31 11:47 UTC | macOS-15.6-arm64-arm-64bit | ollama 0.32.14, vllm 0.28.0+cpu | warm | 2 |")
	assert.Contains(t, s, "## Prompt (none)")
	// The seed's own figures, in ms and tok/s; it has no TTFT p99.
	assert.Contains(t, s, "| vllm-metal | 1 | qwen3.8-27b-nvfp4 | 333.8 | 372.3 | 420.1 | — | 25.0 | 23.5 | 23.5 | 5 | 0 |")
	assert.Contains(t, s, "| vllm-metal | 4 | qwen3.8-27b-nvfp4 | 1135.8 | 1169.1 | 1236.1 | — | 15.6 | 13.7 | 54.7 | 20 | 0 |")
	assert.Contains(t, s, "![Time to first token against concurrency, prompt (none)](ttft-none.svg)")
	// None of the later figures: their tables and charts are left out.
	for _, absent := range []string{"###", "SLO", "Warning", "sweep", "goodput"} {
		assert.NotContains(t, s, absent)
	}

	c := readChart(t, filepath.Join(dir, "ttft-none.svg"), 1)
	c.Has(t, "Time to first token — prompt (none)", xLabel, "TTFT mean (ms)", "vllm-metal", "1", "4")
	require.Len(t, c.Lines, 1)
	c.Lines[0].Points(t, 2)
	c.onScale(t, []float64{333.8013501954265, 1135.8489938022103})

	c = readChart(t, filepath.Join(dir, "throughput-none.svg"), 1)
	c.Has(t, "Aggregate output throughput — prompt (none)", "aggregate output (tok/s)", "vllm-metal")
	require.Len(t, c.Lines, 1)
	c.onScale(t, []float64{23.516827822391825, 54.66256367620249})
}

// One run of the suite: each prompt's tables and charts, runtimes side by
// side.
func TestOneRun(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/old.json")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	var want []string
	for _, p := range []string{"short", "code"} {
		for _, c := range []string{"ttft", "throughput", "latency", "tpot", "energy"} {
			want = append(want, c+"-"+p+".svg")
		}
		if p == "short" {
			want = append(want, "rate-ttft-short.svg", "goodput-short.svg")
		}
	}
	assert.Equal(t, strings.Join(append([]string{"report.md"}, want...), "\n")+"\n",
		strings.ReplaceAll(stdout, dir+string(filepath.Separator), ""), "the charts in the order report.md shows them")

	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "old.md", md)
	s := string(md)
	assert.Contains(t, s, "ollama 0.32.14, vllm-metal 0.28.0+cpu")
	assert.Contains(t, s, "darwin-24.6.0-arm64, Apple M4 Max")
	assert.Contains(t, s, "| cold | ttft=1s | 16 |", "the cache mode and the SLO")
	assert.Less(t, strings.Index(s, "## Prompt short"), strings.Index(s, "## Prompt code"), "prompts in the order run")
	assert.NotContains(t, s, "| conc | run |", "no run column for one run")
	assert.NotContains(t, s, "%)")
	assert.NotContains(t, s, "Warning")
	assert.Contains(t, s, "*No request record of this prompt has chunk arrival times, which the inter-token latency distribution needs (run with BENCH_RECORD_CHUNKS=1)")

	for _, p := range []string{"short", "code"} {
		c := readChart(t, filepath.Join(dir, "ttft-"+p+".svg"), 2)
		c.Has(t, "Time to first token — prompt "+p, "ollama", "vllm-metal", "1", "2", "4")
		require.Len(t, c.Lines, 2, "one line per runtime")
		assert.NotEqual(t, c.Lines[0].Stroke, c.Lines[1].Stroke, "a colour per runtime")
		for _, l := range c.Lines {
			l.Points(t, 3)
		}
		c = readChart(t, filepath.Join(dir, "throughput-"+p+".svg"), 2)
		require.Len(t, c.Lines, 2)
		// The points are at the file's figures, on one scale from zero.
		r, err := readRun("testdata/old.json")
		require.NoError(t, err)
		var want, energy []float64
		for _, rt := range []string{"ollama", "vllm-metal"} {
			for _, conc := range []int{1, 2, 4} {
				rw, ok := r.find(key{Runtime: rt, Prompt: p, Concurrency: conc})
				require.True(t, ok)
				want = append(want, *rw.AggregateTPSMean)
				energy = append(energy, *rw.EnergyJPerOutputToken)
			}
		}
		c.onScale(t, want)

		// TTFT and, vllm-metal reasoning, TTFC: four panels of a line
		// per runtime, the legend in the last.
		c = readChart(t, filepath.Join(dir, "latency-"+p+".svg"), 2)
		c.Has(t, "Time to first token and to the answer (TTFC), p50 and p99 — prompt "+p,
			"TTFT p50", "TTFT p99", "TTFC p50", "TTFC p99", "TTFT p99 (ms)", "TTFC p50 (ms)", xLabel+", log scale", "ollama", "vllm-metal")
		require.Len(t, c.Lines, 8)
		for i, l := range c.Lines {
			l.Points(t, 3)
			assert.Equal(t, c.Legend[i%2].Stroke, l.Stroke, "panel %d, line %d: the runtime's colour", i/2, i%2)
		}

		// No chunk times in the records: each request's TPOT.
		c = readChart(t, filepath.Join(dir, "tpot-"+p+".svg"), 2)
		c.Has(t, "Time per output token distribution (per request) — prompt "+p, "TPOT of a request (ms), log scale", "share of requests ≤ x")
		require.Len(t, c.Lines, 2)
		recs := readRecords(r)
		for i, rt := range []string{"ollama", "vllm-metal"} {
			d := recs.by[[2]string{rt, p}]
			requests := 2 * (1 + 2 + 4)
			if p == "short" {
				requests += 3 + 12
			}
			assert.Len(t, d.tpot, requests, "%s: timed, successful requests only", rt)
			assert.Empty(t, d.gaps)
			isCDF(t, c.Lines[i], len(d.tpot))
		}

		c = readChart(t, filepath.Join(dir, "energy-"+p+".svg"), 2)
		c.Has(t, "Energy per output token — prompt "+p, "energy per output token (J/tok)", xLabel+", log scale", "ollama", "vllm-metal")
		require.Len(t, c.Lines, 2)
		c.onScale(t, energy)
	}
}

// Two runs: the base's rows, each followed by the later run's with the
// change in percent; rows only one run has; null figures.
func TestVersions(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/old.json", "testdata/new.json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 13, strings.Count(stdout, "\n"), "report.md and twelve charts")
	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "versions.md", md)
	s := string(md)

	assert.Contains(t, s, "| 20261201T021700Z (base) |")
	assert.Contains(t, s, "ollama 0.32.14, vllm-metal 0.29.1")
	lines := strings.Split(s, "\n")
	after := func(prefix string) string {
		t.Helper()
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return lines[i+1]
			}
		}
		t.Fatalf("no line %q in:\n%s", prefix, s)
		return ""
	}
	// vllm-metal decodes 10% faster under a new model name; TTFT is lower.
	next := after("| vllm-metal | 1 | 20261201T021700Z | qwen3.8-27b-nvfp4 |")
	assert.Regexp(t, `^\|  \| \| 20261202T021700Z \| qwen3\.8-27b-nvfp4-v2 \| [0-9.]+ \(-9\.1%\) \|.* \| 27\.[0-9] \(\+10\.0%\) \|`, next)
	// ollama did not change.
	next = after("| ollama | 1 | 20261201T021700Z |")
	assert.Contains(t, next, "(±0.0%)")
	// All of ollama's code requests at concurrency 4 failed: no figures.
	// (goodput 0: none of its requests met the SLO).
	next = after("| ollama | 4 | 20261201T021700Z | qwen3.8:27b-mlx | 1300.5 |")
	assert.Equal(t, "|  | | 20261202T021700Z | qwen3.8:27b-mlx | — | — | — | — | — | — | — | 0.00 | 0.0% | 0 | 8 |", next)
	// Not run the second night; run only the second night.
	assert.Equal(t, "|  | | 20261202T021700Z | not in this run | — | — | — | — | — | — | — | — | — | — | — |",
		after("| ollama | 2 | 20261201T021700Z | qwen3.8:27b-mlx | 681.8 |"))
	assert.Equal(t, "| vllm-metal | 8 | 20261201T021700Z | not in this run | — | — | — | — | — | — | — | — | — | — | — |",
		lines[slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| vllm-metal | 8 |") })])
	// Both cold: no warning.
	assert.NotContains(t, s, "Warning")
	// The later figures' tables, with their changes.
	assert.Equal(t, "|  | | 20261202T021700Z | 886.2 (-9.1%) | 890.5 (-9.1%) | 36.83 (-9.1%) | 37.01 (-9.1%) | 143.91 (-9.1%) | 287.82 (-9.1%) |",
		after("| vllm-metal | conc 1 | 20261201T021700Z | 974.9 |"), "token timing")
	assert.Equal(t, "|  | | 20261202T021700Z | Qwen/Qwen3.8-27B-NVFP4 | 14.0 | 0.0 | 0 | length 2 |",
		after("| vllm-metal | conc 1 | 20261201T021700Z | as asked |"), "the served model where it differs")
	assert.Contains(t, s, "| ollama | conc 2 | 20261201T021700Z | as asked | 12.0 | — | 1 of 4 | length 3, stop 1 |", "short outputs, finish reasons")
	assert.Equal(t, "|  | | 20261202T021700Z | 1.596 (-9.1%) | 41.0 (±0.0%) | 49 |",
		after("| vllm-metal | conc 1 | 20261201T021700Z | 1.755 | 41.0 | 54 |"), "power")
	assert.Equal(t, "|  | | 20261202T021700Z | 271.3 | 301.5 | 4677.8 | 4677.8 | 256 | 256 | 0 |",
		after("| vllm-metal | conc 1 | 20261201T021700Z | 298.5 | 331.6 |"), "server counters beside the client's")
	assert.Contains(t, s, "| ollama | conc 1 | 20261201T021700Z | — | 251.2 | — | 4288.0 | — | 256 | 1 |", "a model load")
	assert.Contains(t, s, "| ollama | conc 2 | 20261201T021700Z | — | 681.8 | — | 5171.2 | — | 481 | 0 |",
		"output tokens of requests that differed: energy ÷ J/tok")
	assert.Equal(t, "|  | | 20261202T021700Z | qwen3.8-27b-nvfp4-v2 | 2.00 (±0.0%) | 0.6 (±0.0%) | 0.86 (+6.0%) | 903.0 (-9.1%) | 966.0 (-9.1%) | 0.86 (+112.1%) | 100.0% | 12 | 0 |",
		after("| vllm-metal | 2 | 20261201T021700Z | qwen3.8-27b-nvfp4 | 2.00 |"), "open loop")
	assert.Contains(t, s, "in-flight cap (BENCH_MAX_INFLIGHT), so that the load was not fully open: ollama at 2 req/s (20261202T021700Z): 1; vllm-metal at 2 req/s (20261202T021700Z): 1.")
	assert.Contains(t, s, "| vllm-metal | 20261202T021700Z | 8 | 4 | 2 | TTFT p95 1.057s broke the SLO's 1s |", "the sweep's stops")
	assert.Contains(t, s, "| ollama | 20261202T021700Z | 8 | 4 | 2 | no request succeeded |")
	assert.Contains(t, s, "| 20261202T021700Z | ollama | code | 4 | other | 8 | ollama (http://127.0.0.1:11434): model runner crashed |")

	c := readChart(t, filepath.Join(dir, "throughput-short.svg"), 4)
	// ollama's version is the same in both runs: its lines are named by
	// run; vllm-metal's by its versions, which tell them apart.
	c.Has(t, "ollama (20261201T021700Z)", "ollama (20261202T021700Z)",
		"vllm-metal 0.28.0+cpu", "vllm-metal 0.29.1", "1", "2", "4", "8",
		xLabel+", log scale")
	require.Len(t, c.Lines, 4, "a line per runtime and run")
	assert.Equal(t, c.Lines[0].Stroke, c.Lines[1].Stroke, "a runtime keeps its colour")
	assert.NotEqual(t, c.Lines[0].Dash, c.Lines[1].Dash, "each run its dash")
	assert.NotEqual(t, c.Lines[0].Stroke, c.Lines[2].Stroke)
	c.Lines[3].Points(t, 4) // vllm-metal's second night has concurrency 8 too

	// ollama code at concurrency 4 failed: the second night's line stops at 1.
	c = readChart(t, filepath.Join(dir, "ttft-code.svg"), 4)
	require.Len(t, c.Lines, 3, "a single point draws a marker, no line")
	assert.Equal(t, c.Legend[0].Stroke, c.Legend[1].Stroke)
	c.Lines[0].Points(t, 3) // ollama, first night: 1, 2, 4
	c.Lines[1].Points(t, 3) // vllm-metal, both nights
	c.Lines[2].Points(t, 3)
	assert.Equal(t, c.Legend[2].Stroke, c.Lines[1].Stroke)

	// The knees: ollama's first night at 4, vllm-metal's both nights at
	// 2; ringed on their lines' points, with one legend entry.
	for _, tc := range []struct {
		prompt string
		knees  [][2]int // line, point
	}{
		{"short", [][2]int{{0, 2}, {2, 1}, {3, 1}}},
		// ollama's second night has no row at its knee, 2: no ring.
		{"code", [][2]int{{0, 1}, {1, 1}, {2, 1}}},
	} {
		c := readChart(t, filepath.Join(dir, "throughput-"+tc.prompt+".svg"), 4)
		c.Has(t, kneeLabel)
		require.Len(t, c.Rings, len(tc.knees)+1, "%s: the knees and the legend's sample", tc.prompt)
		for i, k := range tc.knees {
			assert.InDelta(t, c.Lines[k[0]].XY[k[1]][0], c.Rings[i].X, 0.01, "%s knee %d", tc.prompt, i)
			assert.InDelta(t, c.Lines[k[0]].XY[k[1]][1], c.Rings[i].Y, 0.01, "%s knee %d", tc.prompt, i)
		}
	}
	c = readChart(t, filepath.Join(dir, "ttft-short.svg"), 4)
	assert.Empty(t, c.Rings, "only the throughput chart marks the knees")

	// The ITL distribution, from the second night's chunk times only: the
	// first night recorded none, and says so.
	c = readChart(t, filepath.Join(dir, "itl-short.svg"), 2)
	c.Has(t, "Inter-token latency distribution — prompt short", "gap between text chunks (ms), log scale", "share of gaps ≤ x",
		"ollama (20261202T021700Z)", "vllm-metal 0.29.1")
	require.Len(t, c.Lines, 2)
	assert.Contains(t, s, "Left out, recorded without chunk times (BENCH_RECORD_CHUNKS=1 records them): ollama (20261201T021700Z), vllm-metal 0.28.0+cpu.")
	recs := readRecords(&run{File: "testdata/new.json", ID: "20261202T021700Z"})
	require.NoError(t, recs.err)
	for i, rt := range []string{"ollama", "vllm-metal"} {
		d := recs.by[[2]string{rt, "short"}]
		// Every gap of the timed, successful requests, not the warm-up's:
		// two rounds at concurrency 1, 2 and 4 (and 8 for vllm-metal),
		// 3 and 12 requests at 0.5 and 2 requests/s.
		requests := 2*(1+2+4) + 3 + 12 + i*2*8
		assert.Equal(t, (chunks-1)*requests, len(d.gaps), rt)
		assert.Less(t, slices.Max(d.gaps), 1.0, "%s: the warm-up's gaps of a second are left out", rt)
		isCDF(t, c.Lines[i], len(d.gaps))
	}
	_, err := os.Stat(filepath.Join(dir, "tpot-short.svg"))
	assert.True(t, os.IsNotExist(err), "no TPOT chart where there is the ITL's")

	// The open loop's charts, against the rate.
	c = readChart(t, filepath.Join(dir, "rate-ttft-short.svg"), 4)
	c.Has(t, "Time to first token at a request rate, p50 and p99 — prompt short", "TTFT p50", "TTFT p99", xLabelRate, "0.5", "2")
	require.Len(t, c.Lines, 8, "two panels of a line per runtime and night")
	for _, l := range c.Lines {
		l.Points(t, 2)
	}
	c = readChart(t, filepath.Join(dir, "goodput-short.svg"), 4)
	c.Has(t, "Goodput — prompt short", "goodput (requests/s meeting the SLO)", xLabelRate)
	require.Len(t, c.Lines, 4)
}

// -charts=false: report.md only, with no links to charts.
func TestNoCharts(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-charts=false", "-o", dir, "testdata/old.json", "testdata/new.json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, filepath.Join(dir, "report.md")+"\n", stdout)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.NotContains(t, md, "![")
	with := string(testkit.ReadFile(t, "testdata/versions.md"))
	assert.Equal(t, regexp.MustCompile(`\n(!\[[^\n]*\n)+(\n\*[^\n]*\*\n)*`).ReplaceAllString(with, ""), md,
		"the same report without the image lines and the charts' notes")
}

// The default folder is ./report.
func TestDefaultDir(t *testing.T) {
	seedAbs, err := filepath.Abs(seed)
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	code, stdout, stderr := report(seedAbs)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, filepath.Join("report", "report.md")+"\n"), stdout)
	_, err = os.Stat(filepath.Join("report", "ttft-none.svg"))
	assert.NoError(t, err)
}

// Drawing twice gives the same bytes.
func TestChartsStable(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		code, _, stderr := report("-o", dir, "testdata/old.json", "testdata/new.json")
		require.Equal(t, 0, code, stderr)
	}
	for _, name := range []string{"ttft-short.svg", "throughput-code.svg", "latency-short.svg", "itl-short.svg", "rate-ttft-short.svg"} {
		assert.Equal(t, testkit.ReadFile(t, filepath.Join(a, name)), testkit.ReadFile(t, filepath.Join(b, name)))
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-o", "x"},
		{"-nope", seed},
		{"-o", "", seed},
	} {
		code, stdout, stderr := report(args...)
		assert.Equal(t, 2, code, "args %q", args)
		assert.Contains(t, stderr, "usage: report [-o DIR]", "args %q", args)
		assert.Empty(t, stdout)
	}
	code, _, stderr := report("-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stderr, "-charts")
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty.json", "\n", "empty file, want a summary JSON object"},
		{"text.json", "goos: linux\nBenchmarkX 1 2 ns/op\n", "not JSON: line 1, column 1: invalid character 'g'"},
		{"cut.json", "{\n  \"summary\": [\n    {\"runtime\": \"a\",\n", "not JSON: "},
		{"bad.json", "{\n  \"summary\": [\n    {\"runtime\": x}\n  ]\n}\n", "not JSON: line 3, column 17: invalid character 'x'"},
		{"list.json", "[]", `not a summary JSON: the top level is a list, want an object with a "summary" list`},
		{"other.json", `{"name": "x"}`, `not a summary JSON: no "summary" list`},
		{"summary-object.json", `{"summary": {}}`, `not a summary JSON: "summary" is object, want a list`},
		{"no-runtime.json", `{"summary": [{"concurrency": 1}]}`, `not a summary JSON: summary[0] has no "runtime"`},
		{"no-conc.json", `{"summary": [{"runtime": "a", "concurrency": 1}, {"runtime": "a"}]}`, `not a summary JSON: summary[1] has no "concurrency"`},
		{"zero-conc.json", `{"summary": [{"runtime": "a", "concurrency": 0}]}`, `not a summary JSON: summary[0] has "concurrency" 0, want 1 or more`},
		{"string-conc.json", `{"summary": [{"runtime": "a", "concurrency": "4"}]}`, `not a summary JSON: "summary.concurrency" is string, want an integer`},
		{"string-ttft.json", `{"summary": [{"runtime": "a", "concurrency": 4, "ttft_s_mean": "0.3"}]}`, `not a summary JSON: "summary.ttft_s_mean" is string, want a number`},
		{"dup.json", `{"summary": [{"runtime": "a", "concurrency": 4}, {"runtime": "a", "concurrency": 4, "model": "m"}]}`,
			`not a summary JSON: summary[0] and summary[1] are both runtime "a", prompt "(none)", concurrency 4`},
	} {
		path := write(tc.name, tc.content)
		out := filepath.Join(dir, "out-"+tc.name)
		code, stdout, stderr := report("-o", out, path)
		assert.Equal(t, 1, code, tc.name)
		assert.Contains(t, stderr, "report: "+path+": "+tc.want, tc.name)
		assert.Empty(t, stdout, tc.name)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%s: nothing written", tc.name)
	}

	// Every bad file is named, not only the first.
	missing := filepath.Join(dir, "missing.json")
	code, _, stderr := report("-o", filepath.Join(dir, "out"), seed, missing, write("x.json", "[]"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "report: open "+missing+": no such file or directory\n")
	assert.Contains(t, stderr, "report: "+filepath.Join(dir, "x.json")+": not a summary JSON")

	// A folder that cannot be made.
	code, _, stderr = report("-o", filepath.Join(seed, "sub"), seed)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "report: mkdir ")
}

func TestChange(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		base, new *float64
		want      string
	}{
		{f(100), f(110), "+10.0%"},
		{f(100), f(90.04), "-10.0%"},
		{f(100), f(100.04), "±0.0%"},
		{f(100), f(99.96), "±0.0%"},
		{f(0), f(1), ""},
		{nil, f(1), ""},
		{f(1), nil, ""},
		{f(-2), f(-1), "+50.0%"},
	} {
		assert.Equal(t, tc.want, change(tc.base, tc.new))
	}
}

func TestSlugs(t *testing.T) {
	taken := map[string]bool{}
	assert.Equal(t, "none", promptFileName(noPrompt, taken))
	assert.Equal(t, "none-2", promptFileName("none", taken))
	assert.Equal(t, "my_prompt_v2.1", promptFileName("my prompt/v2.1", taken))
	assert.Equal(t, "prompt", promptFileName("..", taken))
}

// chart is a line chart read back (internal/svgtest).
type chart struct{ svgtest.Chart }

// readChart is svgtest.ReadChart: a legend of n entries, each line drawn
// as its sample where there are as many.
func readChart(t *testing.T, path string, n int) chart {
	t.Helper()
	return chart{svgtest.ReadChart(t, path, n)}
}

// parseChart is svgtest.ParseChart: n legend samples of lines after them.
func parseChart(t *testing.T, path string, n int) chart {
	t.Helper()
	return chart{svgtest.ParseChart(t, path, n)}
}

// isCDF checks that the line draws the steps of the distribution of n
// values, every one of them (n ≤ cdfPoints): up from the share below each
// value to the share at or below it, left to right, to the top.
func isCDF(t *testing.T, l svgtest.Line, n int) {
	t.Helper()
	require.NotEmpty(t, l.XY)
	require.Zero(t, len(l.XY)%2, "two points a step")
	assert.LessOrEqual(t, len(l.XY), 2*n)
	for i := 0; i < len(l.XY); i += 2 {
		assert.Equal(t, l.XY[i][0], l.XY[i+1][0], "a step is upright")
		if i > 0 {
			assert.GreaterOrEqual(t, l.XY[i][0], l.XY[i-1][0], "left to right")
			assert.Equal(t, l.XY[i][1], l.XY[i-1][1], "level between steps")
		}
	}
	top := l.XY[len(l.XY)-1][1]
	for _, p := range l.XY {
		assert.LessOrEqual(t, p[1], top, "ends at the top (y grows up: vgsvg flips the page)")
	}
}

// onScale checks that the lines' points, in order, are at the heights of
// values on an axis from zero: y = bottom + k·v, the same k > 0 for all.
func (c chart) onScale(t *testing.T, values []float64) {
	t.Helper()
	ys := c.YS()
	require.Len(t, ys, len(values))
	require.NotZero(t, c.Bottom, "found the y axis")
	i := slices.Index(values, slices.Max(values))
	k := (ys[i] - c.Bottom) / values[i]
	assert.Greater(t, k, 0.0)
	for i, v := range values {
		assert.InDelta(t, c.Bottom+k*v, ys[i], 0.01, "point %d (%v)", i, v)
	}
}

// Failures are listed by class with their first message, and a run that
// did not complete says so.
func TestFailuresAndIncomplete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "interrupted.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261202T133437Z","complete":false,"host":{"platform":"linux-6.1.0-amd64","cpu":"Virtual  CPU        "},"summary":[
 {"runtime":"vllm","prompt":"short","concurrency":4,"successes":8,"failures":4,"ttft_s_mean":0.05,
  "errors":{"timeout":{"count":1,"first":"vllm (http://127.0.0.1:8000): timed out | after 600s"},
            "reset":{"count":3,"first":"vllm (http://127.0.0.1:8000): reading the stream: unexpected EOF"}}},
 {"runtime":"vllm","prompt":"short","concurrency":1,"successes":3,"failures":0,"errors":{}}]}`), 0o644))
	code, _, stderr := report("-charts=false", "-o", dir, path)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, md, "| 20261202T133437Z (incomplete) |")
	assert.Contains(t, md, "| linux-6.1.0-amd64, Virtual CPU | — | warm | 2 |", "the CPU's padding gone")
	assert.Contains(t, md, "## Failures\n")
	assert.Contains(t, md, "| 20261202T133437Z | vllm | short | 4 | reset | 3 | vllm (http://127.0.0.1:8000): reading the stream: unexpected EOF |\n"+
		"| 20261202T133437Z | vllm | short | 4 | timeout | 1 | vllm (http://127.0.0.1:8000): timed out \\| after 600s |\n",
		"classes in order, a | in a message escaped")
	assert.Equal(t, 2, strings.Count(md, "| vllm | short | 4 |"), "only rows with failures are listed")

	code, _, stderr = report("-charts=false", "-o", dir, seed)
	require.Equal(t, 0, code, stderr)
	md = string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.NotContains(t, md, "## Failures", "no section without failures")
	assert.NotContains(t, md, "(incomplete)", "a file without the key is not called incomplete")
}

// A cold run against a warm one: a warning at the top, and each run's
// mode in the runs table. Figures are still set side by side.
func TestCacheModes(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := report("-o", dir, "testdata/old.json", "testdata/warm.json")
	require.Equal(t, 0, code, stderr)
	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "cache.md", md)
	s := string(md)
	warning := "> **Warning: these runs differ in cache mode** (cold: 20261201T021700Z; warm: 20261201T031700Z)."
	assert.Contains(t, s, warning)
	assert.Less(t, strings.Index(s, warning), strings.Index(s, "| run | file |"), "at the top")
	assert.Contains(t, s, "not comparable")
	assert.Contains(t, s, "| 20261201T021700Z (base) | `testdata/old.json` |")
	assert.Contains(t, s, "| cold | ttft=1s | 16 |\n| 20261201T031700Z | `testdata/warm.json` |")
	assert.Contains(t, s, "| warm | ttft=1s | 16 |")
	// The warm run's prompts came from the cache.
	assert.Contains(t, s, "| vllm-metal | conc 1 | 20261201T021700Z | as asked | 14.0 | 0.0 | 0 | length 2 |\n"+
		"|  | | 20261201T031700Z | as asked | 14.0 | 13.0 | 0 | length 2 |")
	// The warm run has no request records: no distribution lines of its own.
	c := readChart(t, filepath.Join(dir, "tpot-short.svg"), 2)
	c.Has(t, "Time per output token distribution (per request) — prompt short", "ollama (20261201T021700Z)", "vllm-metal (20261201T021700Z)")
	assert.Contains(t, s, "No request records beside the summary of 20261201T031700Z.")

	// The seed (warm: written before BENCH_CACHE) against a cold run.
	code, _, stderr = report("-charts=false", "-o", dir, seed, "testdata/old.json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))),
		"> **Warning: these runs differ in cache mode** (warm: 20260831T114727Z; cold: 20261201T021700Z).")
}

// A file of the summary format before the later keys existed: the same
// run with only the seed's row keys and arguments. Every later figure is
// "—", without a change; a chart without lines is left out.
func TestOldKeys(t *testing.T) {
	dir := t.TempDir()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, "testdata/old.json"), &f))
	var seedFile map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, seed), &seedFile))
	keep := func(m, like map[string]any) {
		for k := range m {
			if _, ok := like[k]; !ok {
				delete(m, k)
			}
		}
	}
	keep(f["arguments"].(map[string]any), seedFile["arguments"].(map[string]any))
	seedRow := seedFile["summary"].([]any)[0].(map[string]any)
	var rows []any
	for _, r := range f["summary"].([]any) {
		row := r.(map[string]any)
		if row["rate_rps"] != nil {
			continue // an open-loop row has no concurrency to key it by
		}
		prompt := row["prompt"]
		keep(row, seedRow)
		row["prompt"] = prompt
		rows = append(rows, row)
	}
	f["summary"] = rows
	f["run_id"] = "20261130T021700Z"
	data, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(dir, "before.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	code, stdout, stderr := report("-o", filepath.Join(dir, "out"), path, "testdata/old.json")
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	// Its TTFT p99, goodput and SLO attainment are missing; the later
	// run's have no change.
	assert.Contains(t, s, "| ollama | 1 | 20261130T021700Z | qwen3.8:27b-mlx | 251.2 | 251.2 | 252.4 | — | 29.9 | 28.2 | 28.2 | — | — | 2 | 0 |\n"+
		"|  | | 20261201T021700Z | qwen3.8:27b-mlx | 251.2 (±0.0%) | 251.2 (±0.0%) | 252.4 (±0.0%) | 252.5 | 29.9 (±0.0%) | 28.2 (±0.0%) | 28.2 (±0.0%) | 0.22 | 100.0% | 2 | 0 |")
	assert.Contains(t, s, "| ollama | conc 1 | 20261130T021700Z | — | — | — | — | — | — |\n|  | | 20261201T021700Z | 251.2 | 252.5 | 33.76 |", "token timing")
	assert.Contains(t, s, "| ollama | conc 1 | 20261130T021700Z | — | — | — | — | — |\n", "requests: the counts it did not write are —, not 0")
	assert.Contains(t, s, "| ollama | conc 1 | 20261130T021700Z | — | — | — |\n|  | | 20261201T021700Z | 1.135 | 32.0 | 45 |", "power")
	assert.Contains(t, s, "| ollama | conc 1 | 20261130T021700Z | — | 251.2 | — | 4288.0 | — | — | — |", "server counters")
	assert.Contains(t, s, "(warm: 20261130T021700Z; cold: 20261201T021700Z)", "before BENCH_CACHE: warm")
	assert.NotContains(t, s, "| 20261130T021700Z | 4 | 4 |", "no sweep")
	// Its lines are missing from the charts of later figures.
	c := readChart(t, filepath.Join(dir, "out", "energy-short.svg"), 2)
	require.Len(t, c.Lines, 2)
	c.Has(t, "ollama (20261201T021700Z)", "vllm-metal (20261201T021700Z)")
	c = readChart(t, filepath.Join(dir, "out", "ttft-short.svg"), 4)
	require.Len(t, c.Lines, 4)

	// Alone, it has only the first tables and charts.
	code, stdout, stderr = report("-o", filepath.Join(dir, "alone"), path)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 5, strings.Count(stdout, "\n"), "report.md, and the TTFT and throughput charts of each prompt:\n%s", stdout)
	s = string(testkit.ReadFile(t, filepath.Join(dir, "alone", "report.md")))
	assert.NotContains(t, s, "###")
}

// Rows whose TTFC is their TTFT (no reasoning): the latency chart has TTFT
// panels only; an open-loop row alone makes the open-loop table and
// charts.
func TestLatencyPanels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plain.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261203T000000Z","summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"ttft_s_p50":0.05,"ttft_s_p99":0.06,"ttfc_s_p50":0.05,"ttfc_s_p99":0.06},
 {"runtime":"sim","prompt":"p","concurrency":2,"successes":8,"ttft_s_p50":0.07,"ttft_s_p99":0.09,"ttfc_s_p50":0.07,"ttfc_s_p99":0.09},
 {"runtime":"sim","prompt":"p","concurrency":0,"rate_rps":5,"successes":9,"ttft_s_p50":0.05,"ttft_s_p99":0.08,"achieved_rps":4.9}]}`), 0o644))
	code, stdout, stderr := report("-o", dir, path)
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"latency-p.svg", "rate-ttft-p.svg"} {
		assert.Contains(t, stdout, f)
	}
	assert.NotContains(t, stdout, "goodput-p.svg", "no goodput without an SLO")
	c := readChart(t, filepath.Join(dir, "latency-p.svg"), 1)
	c.Has(t, "Time to first token, p50 and p99 — prompt p", "TTFT p50", "TTFT p99", xLabel)
	assert.NotContains(t, c.Texts, "TTFC p50")
	require.Len(t, c.Lines, 2)
	c.Lines[0].Points(t, 2)
	c = readChart(t, filepath.Join(dir, "rate-ttft-p.svg"), 1)
	c.Has(t, "5", xLabelRate)
	assert.Empty(t, c.Lines, "one rate: a marker, no line")
	s := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, s, "| sim | 5 | — | 4.90 | — | — | 50.0 | 80.0 | 9 | — |\n", "open loop, no SLO columns")
}

// Request records: a broken file is a warning that leaves its run out of
// the distribution charts; a summary without a run ID finds the records
// named after it.
func TestRecordsFiles(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(from, to string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, to), testkit.ReadFile(t, from), 0o644))
	}
	copyTo("testdata/old.json", "old.json")
	copyTo("testdata/20261201T021700Z.requests.jsonl", "20261201T021700Z.requests.jsonl")
	copyTo("testdata/new.json", "new.json")
	broken := filepath.Join(dir, "20261202T021700Z.requests.jsonl")
	require.NoError(t, os.WriteFile(broken, []byte("{\"runtime\":\"ollama\"}\nnot json\n{}\n"), 0o644))

	code, stdout, stderr := report("-o", filepath.Join(dir, "out"), filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "report: warning: "+broken+": line 2: ")
	assert.Contains(t, stderr, "the charts of request records (distributions, TTFT against input length) leave run 20261202T021700Z out")
	assert.Contains(t, stdout, "tpot-short.svg", "the first night's TPOT only")
	c := readChart(t, filepath.Join(dir, "out", "tpot-short.svg"), 2)
	// vllm-metal's versions differ between the runs: its lines are named
	// by version; ollama's are the same, so its by run.
	c.Has(t, "ollama (20261201T021700Z)", "vllm-metal 0.28.0+cpu")
	assert.NotContains(t, c.Texts, "ollama (20261202T021700Z)")
	md := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	assert.Contains(t, md, "The request records of 20261202T021700Z could not be read (report says why).")

	// No run ID: <name>.requests.jsonl beside <name>.json.
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, "testdata/old.json"), &f))
	delete(f, "run_id")
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "noid.json"), data, 0o644))
	copyTo("testdata/20261201T021700Z.requests.jsonl", "noid.requests.jsonl")
	code, stdout, stderr = report("-o", filepath.Join(dir, "noid"), filepath.Join(dir, "noid.json"))
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, "tpot-code.svg")

	// Without records: no distribution chart, and nothing said.
	code, stdout, stderr = report("-o", filepath.Join(dir, "warm"), "testdata/warm.json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "tpot-")
	assert.NotContains(t, stdout, "itl-")
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "warm", "report.md"))), "request records")
}

func TestCDF(t *testing.T) {
	// Every value a step; zero counted, not drawn; equal values one step.
	pts := cdf([]float64{0, 0.001, 0.002, 0.002, 0.004}, 1e3)
	assert.Equal(t, plotter.XYs{
		{X: 1, Y: 0.2}, {X: 1, Y: 0.4},
		{X: 2, Y: 0.4}, {X: 2, Y: 0.8},
		{X: 4, Y: 0.8}, {X: 4, Y: 1},
	}, pts)
	// Many values: cdfPoints steps at most, the first and last included.
	xs := make([]float64, 100000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	pts = cdf(xs, 1)
	assert.LessOrEqual(t, len(pts), 2*cdfPoints)
	assert.Equal(t, plotter.XY{X: 1, Y: 0}, pts[0])
	assert.Equal(t, plotter.XY{X: 100000, Y: 1}, pts[len(pts)-1])
	assert.Empty(t, cdf([]float64{0, 0}, 1), "nothing a log axis can show")
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0.5", "1", "2", "5", "10", "20", "50"}, labels(0.3, 60))
	assert.Equal(t, []string{"40", "50", "60", "70"}, labels(31, 74), "a narrow range: every multiple")
	assert.Equal(t, []string{"0.001", "0.01", "0.1", "1", "10"}, labels(0.001, 60), "a wide one: the powers of ten")
}

// Each -count repetition sweeps again: a stop they share is listed, and
// its knee ringed, once.
func TestSweepRepetitions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sweep.json")
	stop := `{"runtime":"sim","prompt":"p","concurrency":2,"knee":2,"reason":"reached the sweep's bound, 2, still growing"}`
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261203T000000Z",
 "arguments":{"sweep":{"max":2,"stops":[`+stop+`,`+stop+`,
  {"runtime":"sim","prompt":"p","concurrency":2,"knee":1,"reason":"aggregate throughput grew +1.0% (10.0 → 10.1 tok/s), less than 5%"},`+stop+`]}},
 "summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"aggregate_output_tps_mean":10},
 {"runtime":"sim","prompt":"p","concurrency":2,"successes":8,"aggregate_output_tps_mean":19}]}`), 0o644))
	code, _, stderr := report("-o", dir, path)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, s, "| runtime | bound | stopped at | knee | why |\n|---|---:|---:|---:|---|\n"+
		"| sim | 2 | 2 | 2 | reached the sweep's bound, 2, still growing (in 3 repetitions) |\n"+
		"| sim | 2 | 2 | 1 | aggregate throughput grew +1.0% (10.0 → 10.1 tok/s), less than 5% |\n")
	c := readChart(t, filepath.Join(dir, "throughput-p.svg"), 1)
	require.Len(t, c.Rings, 3, "knees at 2 and 1, and the legend's sample")
}

// golden compares got with testdata/name (testkit.Golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got, "go test ./cmd/report -update")
}

// laterRun writes to dir/later.json the run of fixture as a later run
// (run_id id) would have it: each row passed through edit, which may
// change it, or drop it by returning false. It returns the file's path.
func laterRun(t *testing.T, dir, fixture, id string, edit func(row map[string]any) bool) string {
	t.Helper()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, fixture), &f))
	f["run_id"] = id
	var rows []any
	for _, x := range f["summary"].([]any) {
		if rw := x.(map[string]any); edit(rw) {
			rows = append(rows, rw)
		}
	}
	f["summary"] = rows
	data, err := json.Marshal(f)
	require.NoError(t, err)
	later := filepath.Join(dir, "later.json")
	require.NoError(t, os.WriteFile(later, data, 0o644))
	return later
}

// Runs of two Macs (host.label) are named by their host, so that tables
// and charts put the hosts side by side for each runtime and model.
func TestHostsSideBySide(t *testing.T) {
	dir := t.TempDir()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, "testdata/new.json"), &f))
	write := func(name, id, host string) string {
		f["run_id"] = id
		f["host"].(map[string]any)["label"] = host
		data, err := json.Marshal(f)
		require.NoError(t, err)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	m2 := write("m2.json", "20261201T021700Z", "mac-m2")
	m4 := write("m4.json", "20261201T021900Z", "mac-m4")
	m4later := write("m4b.json", "20261202T021900Z", "mac-m4")

	code, _, stderr := report("-o", filepath.Join(dir, "two"), m2, m4)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "two", "report.md")))
	assert.Contains(t, s, "| mac-m2 (base) | `"+m2+"` |")
	assert.Contains(t, s, "| mac-m4 | `"+m4+"` | 2026-")
	assert.Contains(t, s, "| mac-m2: darwin-24.6.0-arm64", "the host column names the machine")
	c := parseChart(t, filepath.Join(dir, "two", "ttft-short.svg"), 0)
	assert.Contains(t, c.Texts, "ollama (mac-m2)")
	assert.Contains(t, c.Texts, "ollama (mac-m4)")

	// A host with two runs: its runs keep their IDs after the host.
	code, _, stderr = report("-o", filepath.Join(dir, "three"), m2, m4, m4later)
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(dir, "three", "report.md")))
	assert.Contains(t, s, "| mac-m2 (base) |")
	assert.Contains(t, s, "| mac-m4 20261201T021900Z |")
	assert.Contains(t, s, "| mac-m4 20261202T021900Z |")

	// One host: runs are named by their IDs, as before.
	code, _, stderr = report("-o", filepath.Join(dir, "one"), m4, m4later)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, string(testkit.ReadFile(t, filepath.Join(dir, "one", "report.md"))), "| 20261201T021900Z (base) |")
}
