package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the fixtures and golden files in testdata")

const seed = "../../testdata/seed-summary.json"

// report runs the command and returns its exit code, stdout and stderr.
func report(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := command(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./cmd/report -update writes it")
	assert.Equal(t, string(want), string(got), "%s differs: go test ./cmd/report -update, then review the diff", path)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
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

	md := readFile(t, filepath.Join(dir, "report.md"))
	golden(t, "seed.md", md)
	s := string(md)
	assert.Contains(t, s, "| 20260831T114727Z | `../../testdata/seed-summary.json` | 2026-08-31 11:47 UTC | macOS-15.6-arm64-arm-64bit | ollama 0.32.14, vllm 0.28.0+cpu | 2 |")
	assert.Contains(t, s, "## Prompt (none)")
	// The seed's own figures, in ms and tok/s.
	assert.Contains(t, s, "| vllm-metal | 1 | qwen3.8-27b-nvfp4 | 333.8 | 372.3 | 420.1 | 25.0 | 23.5 | 23.5 | 5 | 0 |")
	assert.Contains(t, s, "| vllm-metal | 4 | qwen3.8-27b-nvfp4 | 1135.8 | 1169.1 | 1236.1 | 15.6 | 13.7 | 54.7 | 20 | 0 |")
	assert.Contains(t, s, "![Time to first token against concurrency, prompt (none)](ttft-none.svg)")

	c := readChart(t, filepath.Join(dir, "ttft-none.svg"), 1)
	c.has(t, "Time to first token — prompt (none)", xLabel, "TTFT mean (ms)", "vllm-metal", "1", "4")
	require.Len(t, c.lines, 1)
	c.lines[0].points(t, 2)
	c.onScale(t, []float64{333.8013501954265, 1135.8489938022103})

	c = readChart(t, filepath.Join(dir, "throughput-none.svg"), 1)
	c.has(t, "Aggregate output throughput — prompt (none)", "aggregate output (tok/s)", "vllm-metal")
	require.Len(t, c.lines, 1)
	c.onScale(t, []float64{23.516827822391825, 54.66256367620249})
}

// One run of the suite: each prompt's table and charts, runtimes side by
// side.
func TestOneRun(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := report("-o", dir, "testdata/old.json")
	require.Equal(t, 0, code, stderr)
	md := readFile(t, filepath.Join(dir, "report.md"))
	golden(t, "old.md", md)
	s := string(md)
	assert.Contains(t, s, "ollama 0.32.14, vllm-metal 0.28.0+cpu")
	assert.Contains(t, s, "darwin-24.6.0-arm64, Apple M4 Max")
	assert.Less(t, strings.Index(s, "## Prompt short"), strings.Index(s, "## Prompt code"), "prompts in the order run")
	assert.NotContains(t, s, "| conc | run |", "no run column for one run")
	assert.NotContains(t, s, "%)")

	for _, p := range []string{"short", "code"} {
		c := readChart(t, filepath.Join(dir, "ttft-"+p+".svg"), 2)
		c.has(t, "Time to first token — prompt "+p, "ollama", "vllm-metal", "1", "2", "4")
		require.Len(t, c.lines, 2, "one line per runtime")
		assert.NotEqual(t, c.lines[0].stroke, c.lines[1].stroke, "a colour per runtime")
		for _, l := range c.lines {
			l.points(t, 3)
		}
		c = readChart(t, filepath.Join(dir, "throughput-"+p+".svg"), 2)
		require.Len(t, c.lines, 2)
		// The points are at the file's figures, on one scale from zero.
		r, err := readRun("testdata/old.json")
		require.NoError(t, err)
		var want []float64
		for _, rt := range []string{"ollama", "vllm-metal"} {
			for _, conc := range []int{1, 2, 4} {
				rw, ok := r.find(key{Runtime: rt, Prompt: p, Concurrency: conc})
				require.True(t, ok)
				want = append(want, *rw.AggregateTPSMean)
			}
		}
		c.onScale(t, want)
	}
}

// Two runs: the base's rows, each followed by the later run's with the
// change in percent; rows only one run has; null figures.
func TestVersions(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/old.json", "testdata/new.json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 5, strings.Count(stdout, "\n"), "report.md and four charts")
	md := readFile(t, filepath.Join(dir, "report.md"))
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
	next = after("| ollama | 4 | 20261201T021700Z | qwen3.8:27b-mlx | 1300.5 |")
	assert.Equal(t, "|  | | 20261202T021700Z | qwen3.8:27b-mlx | — | — | — | — | — | — | 0 | 8 |", next)
	// Not run the second night; run only the second night.
	assert.Equal(t, "|  | | 20261202T021700Z | not in this run | — | — | — | — | — | — | — | — |",
		after("| ollama | 2 | 20261201T021700Z | qwen3.8:27b-mlx | 681.8 |"))
	assert.Equal(t, "| vllm-metal | 8 | 20261201T021700Z | not in this run | — | — | — | — | — | — | — | — |",
		lines[slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| vllm-metal | 8 |") })])

	c := readChart(t, filepath.Join(dir, "throughput-short.svg"), 4)
	c.has(t, "ollama (20261201T021700Z)", "ollama (20261202T021700Z)",
		"vllm-metal (20261201T021700Z)", "vllm-metal (20261202T021700Z)", "1", "2", "4", "8",
		xLabel+", log scale")
	require.Len(t, c.lines, 4, "a line per runtime and run")
	assert.Equal(t, c.lines[0].stroke, c.lines[1].stroke, "a runtime keeps its colour")
	assert.NotEqual(t, c.lines[0].dash, c.lines[1].dash, "each run its dash")
	assert.NotEqual(t, c.lines[0].stroke, c.lines[2].stroke)
	c.lines[3].points(t, 4) // vllm-metal's second night has concurrency 8 too

	// ollama code at concurrency 4 failed: the second night's line stops at 1.
	c = readChart(t, filepath.Join(dir, "ttft-code.svg"), 4)
	require.Len(t, c.lines, 3, "a single point draws a marker, no line")
	assert.Equal(t, c.legend[0].stroke, c.legend[1].stroke)
	c.lines[0].points(t, 3) // ollama, first night: 1, 2, 4
	c.lines[1].points(t, 3) // vllm-metal, both nights
	c.lines[2].points(t, 3)
	assert.Equal(t, c.legend[2].stroke, c.lines[1].stroke)
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
	md := string(readFile(t, filepath.Join(dir, "report.md")))
	assert.NotContains(t, md, "![")
	with := string(readFile(t, "testdata/versions.md"))
	assert.Equal(t, regexp.MustCompile(`\n(!\[[^\n]*\n)+`).ReplaceAllString(with, ""), md,
		"the same report without the image lines")
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
	for _, name := range []string{"ttft-short.svg", "throughput-code.svg"} {
		assert.Equal(t, readFile(t, filepath.Join(a, name)), readFile(t, filepath.Join(b, name)))
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

func TestTidyVersion(t *testing.T) {
	assert.Equal(t, "0.32.14", tidyVersion("ollama version is 0.32.14"))
	assert.Equal(t, "0.28.0+cpu", tidyVersion("INFO 08-31 [__init__.py:52] plugins\nINFO more\n0.28.0+cpu\n"))
	assert.Equal(t, "b5123", tidyVersion("b5123"))
}

func TestSlugs(t *testing.T) {
	taken := map[string]bool{}
	assert.Equal(t, "none", uniqueSlug(slugify(noPrompt), taken))
	assert.Equal(t, "none-2", uniqueSlug(slugify("none"), taken))
	assert.Equal(t, "my_prompt_v2.1", uniqueSlug(slugify("my prompt/v2.1"), taken))
	assert.Equal(t, "prompt", uniqueSlug(slugify(".."), taken))
}

// chart is what a test reads of an SVG chart.
type chart struct {
	texts  []string
	bottom float64 // y of the y axis' lowest point, the value 0
	lines  []line  // the data lines, in the order drawn; a line of one point has none
	legend []line  // the legend's samples of the lines, in order
}

// line is one stroked path of width 1.5: the width of data lines and of
// their legend samples, nothing else.
type line struct {
	stroke, dash string
	xy           [][2]float64
}

var (
	styleStroke = regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	styleDash   = regexp.MustCompile(`stroke-dasharray:([0-9.,]+)`)
	pathPoint   = regexp.MustCompile(`[ML](-?[0-9.e+-]+),(-?[0-9.e+-]+)`)
)

// readChart parses the SVG at path, which must be well-formed XML, with a
// legend of n entries.
func readChart(t *testing.T, path string, n int) chart {
	t.Helper()
	data := readFile(t, path)
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		c       chart
		inText  bool
		paths   []line
		axisLen float64
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "%s is not well-formed", path)
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			var d, style string
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "d":
					d = a.Value
				case "style":
					style = a.Value
				}
			}
			if strings.Contains(style, "stroke-width:0.5;") || strings.HasSuffix(style, "stroke-width:0.5") {
				// The y axis is the longest vertical line of width 0.5.
				if m := pathPoint.FindAllStringSubmatch(d, -1); len(m) == 2 && m[0][1] == m[1][1] {
					y1, _ := strconv.ParseFloat(m[0][2], 64)
					y2, _ := strconv.ParseFloat(m[1][2], 64)
					if l := math.Abs(y2 - y1); l > axisLen {
						axisLen, c.bottom = l, min(y1, y2)
					}
				}
			}
			if !strings.Contains(style, "stroke-width:1.5") {
				continue
			}
			l := line{}
			if m := styleStroke.FindStringSubmatch(style); m != nil {
				l.stroke = m[1]
			}
			if m := styleDash.FindStringSubmatch(style); m != nil {
				l.dash = m[1]
			}
			for _, m := range pathPoint.FindAllStringSubmatch(d, -1) {
				x, err1 := strconv.ParseFloat(m[1], 64)
				y, err2 := strconv.ParseFloat(m[2], 64)
				require.NoError(t, err1)
				require.NoError(t, err2)
				l.xy = append(l.xy, [2]float64{x, y})
			}
			paths = append(paths, l)
		case xml.CharData:
			if inText {
				c.texts = append(c.texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	// The legend draws a sample of each line after all the lines.
	require.GreaterOrEqual(t, len(paths), n, "a legend sample per line")
	c.lines, c.legend = paths[:len(paths)-n], paths[len(paths)-n:]
	for _, s := range c.legend {
		require.Len(t, s.xy, 2, "legend sample")
		assert.Equal(t, s.xy[0][1], s.xy[1][1], "a legend sample is level")
	}
	if len(c.lines) == n {
		for i, l := range c.lines {
			assert.Equal(t, c.legend[i].stroke, l.stroke, "line %d is drawn as its legend says", i)
			assert.Equal(t, c.legend[i].dash, l.dash, "line %d is drawn as its legend says", i)
		}
	}
	return c
}

// has checks that the chart shows each text (title, axis labels, legend
// entries, tick labels).
func (c chart) has(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		assert.Contains(t, c.texts, s)
	}
}

// points checks that the line has n points, left to right.
func (l line) points(t *testing.T, n int) {
	t.Helper()
	require.Len(t, l.xy, n)
	for i := 1; i < n; i++ {
		assert.Greater(t, l.xy[i][0], l.xy[i-1][0], "left to right")
	}
}

// onScale checks that the lines' points, in order, are at the heights of
// values on an axis from zero: y = bottom + k·v, the same k > 0 for all.
func (c chart) onScale(t *testing.T, values []float64) {
	t.Helper()
	var ys []float64
	for _, l := range c.lines {
		for _, p := range l.xy {
			ys = append(ys, p[1])
		}
	}
	require.Len(t, ys, len(values))
	require.NotZero(t, c.bottom, "found the y axis")
	i := slices.Index(values, slices.Max(values))
	k := (ys[i] - c.bottom) / values[i]
	assert.Greater(t, k, 0.0)
	for i, v := range values {
		assert.InDelta(t, c.bottom+k*v, ys[i], 0.01, "point %d (%v)", i, v)
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (niceTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0", "500", "1000", "1500", "2000", "2500"}, labels(0, 2600))
	assert.Equal(t, []string{"0", "20", "40", "60"}, labels(0, 61.5))
	assert.Equal(t, []string{"0", "0.25", "0.5", "0.75", "1", "1.25"}, labels(0, 1.3))
	assert.Equal(t, []string{"0", "20", "40", "60", "80"}, labels(0, 95))
	assert.Equal(t, []string{"5"}, labels(5, 5))
}

// Failures are listed by class with their first message, and a run that
// did not complete says so.
func TestFailuresAndIncomplete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "interrupted.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261202T133437Z","complete":false,"summary":[
 {"runtime":"vllm","prompt":"short","concurrency":4,"successes":8,"failures":4,"ttft_s_mean":0.05,
  "errors":{"timeout":{"count":1,"first":"vllm (http://127.0.0.1:8000): timed out | after 600s"},
            "reset":{"count":3,"first":"vllm (http://127.0.0.1:8000): reading the stream: unexpected EOF"}}},
 {"runtime":"vllm","prompt":"short","concurrency":1,"successes":3,"failures":0,"errors":{}}]}`), 0o644))
	code, _, stderr := report("-charts=false", "-o", dir, path)
	require.Equal(t, 0, code, stderr)
	md := string(readFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, md, "| 20261202T133437Z (incomplete) |")
	assert.Contains(t, md, "## Failures\n")
	assert.Contains(t, md, "| 20261202T133437Z | vllm | short | 4 | reset | 3 | vllm (http://127.0.0.1:8000): reading the stream: unexpected EOF |\n"+
		"| 20261202T133437Z | vllm | short | 4 | timeout | 1 | vllm (http://127.0.0.1:8000): timed out \\| after 600s |\n",
		"classes in order, a | in a message escaped")
	assert.Equal(t, 2, strings.Count(md, "| vllm | short | 4 |"), "only rows with failures are listed")

	code, _, stderr = report("-charts=false", "-o", dir, seed)
	require.Equal(t, 0, code, stderr)
	md = string(readFile(t, filepath.Join(dir, "report.md")))
	assert.NotContains(t, md, "## Failures", "no section without failures")
	assert.NotContains(t, md, "(incomplete)", "a file without the key is not called incomplete")
}
