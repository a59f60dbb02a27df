package main

import (
	"encoding/json"
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

// testdata/draws.json and its request records,
// testdata/20261206T021700Z.requests.jsonl, are written by hand: a run of
// ollama and vllm at concurrency 1 and 2 on three prompts, short (its
// requests asked max_tokens of their own, BENCH_MAX_TOKENS=uniform:16-256,
// and no input length) and two length distributions, in-uniform-128-2048
// and in-normal-1024-256, whose requests each asked an input length. The
// records hold besides the timed requests a warm-up (4.9 s: the model
// loading), a calibration request and a request that timed out, none of
// which the chart draws.
const draws = "testdata/draws.json"

// drawsPoints are the timed, successful requests of each prompt with
// lengths of its own in the records, by series in the legend's order:
// the server's count of prompt tokens and the TTFT in ms.
var drawsPoints = map[string][]scatterSeries{
	"in-uniform-128-2048": {
		{"ollama, conc 1", [][2]float64{{153, 114}, {618, 372}, {1903, 1088}}},
		{"ollama, conc 2", [][2]float64{{302, 221}, {1197, 930}, {2004, 1460}}},
		{"vllm, conc 1", [][2]float64{{183, 41}, {903, 121}, {1702, 209}}},
		{"vllm, conc 2", [][2]float64{{403, 66}, {1004, 152}, {2043, 262}, {131, 38}}},
	},
	"in-normal-1024-256": {
		{"ollama, conc 1", [][2]float64{{872, 512}, {1026, 598}, {1309, 757}}},
		{"ollama, conc 2", [][2]float64{{763, 610}, {1188, 860}, {979, 730}, {1412, 1020}}},
		{"vllm, conc 1", [][2]float64{{793, 108}, {1153, 148}, {1243, 157}}},
		{"vllm, conc 2", [][2]float64{{1093, 171}, {653, 117}, {1305, 190}, {893, 149}}},
	},
}

// scatterSeries is a series of a scatter chart: its legend entry, and its
// points in the order drawn.
type scatterSeries struct {
	label string
	pts   [][2]float64
}

// A run whose requests asked lengths of their own: a chart of TTFT
// against each request's prompt tokens for each such prompt, after its
// requests table under a heading of its own, and none for the prompt
// without.
func TestLengthTTFT(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, draws)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Contains(t, stdout, filepath.Join(dir, "tpot-in-uniform-128-2048.svg")+"\n"+
		filepath.Join(dir, "length-ttft-in-uniform-128-2048.svg")+"\n", "after the prompt's distribution chart, as report.md shows it")
	assert.Contains(t, stdout, filepath.Join(dir, "length-ttft-in-normal-1024-256.svg"))
	assert.NotContains(t, stdout, "length-ttft-short", "short's requests asked no input length")

	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "draws.md", md)
	s := string(md)
	assert.Equal(t, 2, strings.Count(s, "### TTFT against input length\n"))
	short := s[strings.Index(s, "## Prompt short\n"):strings.Index(s, "## Prompt in-uniform-128-2048\n")]
	assert.NotContains(t, short, "input length")
	uniform := s[strings.Index(s, "## Prompt in-uniform-128-2048\n"):strings.Index(s, "## Prompt in-normal-1024-256\n")]
	assert.Contains(t, uniform, "| vllm | conc 2 | as asked | 895.2 | 0.0 | 0 | length 4 |\n\n### TTFT against input length\n\n",
		"after the requests table")
	assert.Contains(t, uniform, "\n\n![TTFT against each request's input length, prompt in-uniform-128-2048](length-ttft-in-uniform-128-2048.svg)\n")

	c := readScatter(t, filepath.Join(dir, "length-ttft-in-uniform-128-2048.svg"), 4)
	c.Has(t, "TTFT against each request's input length — prompt in-uniform-128-2048",
		"prompt tokens of the request (the server's count), log scale", "TTFT (ms), log scale",
		"ollama, conc 1", "ollama, conc 2", "vllm, conc 1", "vllm, conc 2")
	c.at(t, drawsPoints["in-uniform-128-2048"], true)
	assert.NotEqual(t, c.Legend[0].Stroke, c.Legend[1].Stroke, "a colour per runtime and load")
	assert.NotEqual(t, c.Legend[1].Stroke, c.Legend[2].Stroke)

	// Lengths within a factor of ten: a linear x axis.
	c = readScatter(t, filepath.Join(dir, "length-ttft-in-normal-1024-256.svg"), 4)
	c.Has(t, "prompt tokens of the request (the server's count)", "TTFT (ms), log scale", "800", "1000", "1200")
	c.at(t, drawsPoints["in-normal-1024-256"], false)
}

// Records without input lengths, or no records: no chart, no heading.
func TestLengthTTFTNone(t *testing.T) {
	for _, files := range [][]string{
		{"testdata/old.json"}, {"testdata/old.json", "testdata/new.json"}, {"testdata/lengths.json"}, {"testdata/turns.json"}, {seed},
	} {
		dir := t.TempDir()
		code, stdout, stderr := report(append([]string{"-o", dir}, files...)...)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout, "length-ttft-", files)
		assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))), "TTFT against input length", files)
	}
	// old.json's records are read, and have no input length.
	dir := t.TempDir()
	code, stdout, _ := report("-o", dir, "testdata/old.json")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "tpot-short.svg", "its records were read")

	// Every request of a prompt asked the same length (an in<N> prompt
	// whose max_tokens were drawn): no chart of it.
	path := writeDraws(t, dir, "20261206T021700Z", false, func(rec map[string]any) {
		if rec["prompt"] == "in-normal-1024-256" {
			rec["input_tokens"] = 1024
		}
	})
	code, stdout, stderr := report("-o", filepath.Join(dir, "same"), path)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "length-ttft-in-normal-1024-256.svg")
	assert.Contains(t, stdout, "length-ttft-in-uniform-128-2048.svg")
	s := string(testkit.ReadFile(t, filepath.Join(dir, "same", "report.md")))
	assert.Equal(t, 1, strings.Count(s, "### TTFT against input length\n"))
}

// writeDraws writes to dir a copy of the draws run named id, and its
// records (unless noRecords) passed through edit.
func writeDraws(t *testing.T, dir, id string, noRecords bool, edit func(rec map[string]any)) string {
	t.Helper()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, draws), &f))
	f["run_id"] = id
	data, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(dir, id+".json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	if noRecords {
		return path
	}
	var out []byte
	for _, line := range strings.Split(strings.TrimSpace(string(testkit.ReadFile(t, "testdata/20261206T021700Z.requests.jsonl"))), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		edit(rec)
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		out = append(append(out, b...), '\n')
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".requests.jsonl"), out, 0o644))
	return path
}

// Two runs: a series per runtime, load and run, the runs of a runtime and
// load in its colour, each run in its marker; a run without records is
// named under the chart.
func TestLengthTTFTRuns(t *testing.T) {
	dir := t.TempDir()
	base := writeDraws(t, dir, "20261206T021700Z", false, func(map[string]any) {})
	// The next night vllm's TTFT is half.
	later := writeDraws(t, dir, "20261207T021700Z", false, func(rec map[string]any) {
		if rec["runtime"] == "vllm" && rec["ttft_s"] != nil {
			rec["ttft_s"] = rec["ttft_s"].(float64) / 2
		}
	})
	code, _, stderr := report("-o", filepath.Join(dir, "out"), base, later)
	require.Equal(t, 0, code, stderr)
	c := readScatter(t, filepath.Join(dir, "out", "length-ttft-in-uniform-128-2048.svg"), 8)
	var want []scatterSeries
	for _, s := range drawsPoints["in-uniform-128-2048"] {
		for _, id := range []string{"20261206T021700Z", "20261207T021700Z"} {
			w := scatterSeries{label: s.label + " (" + id + ")"}
			for _, p := range s.pts {
				if id == "20261207T021700Z" && strings.HasPrefix(s.label, "vllm") {
					p[1] /= 2
				}
				w.pts = append(w.pts, p)
			}
			want = append(want, w)
		}
	}
	c.at(t, want, true)
	for i := 0; i < 8; i += 2 {
		assert.Equal(t, c.Legend[i].Stroke, c.Legend[i+1].Stroke, "a runtime and load keep their colour across runs")
		assert.Equal(t, "ring", c.Legend[i].shape)
		assert.Equal(t, "square", c.Legend[i+1].shape, "the second run's marker")
	}
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md"))), "No request records beside")

	// A later run without records: the base's points, and the note says
	// why the later run has none.
	none := writeDraws(t, filepath.Join(dir), "20261208T021700Z", true, nil)
	code, _, stderr = report("-o", filepath.Join(dir, "none"), base, none)
	require.Equal(t, 0, code, stderr)
	c = readScatter(t, filepath.Join(dir, "none", "length-ttft-in-normal-1024-256.svg"), 4)
	c.Has(t, "ollama, conc 1 (20261206T021700Z)")
	md := string(testkit.ReadFile(t, filepath.Join(dir, "none", "report.md")))
	assert.Contains(t, md, "(length-ttft-in-normal-1024-256.svg)\n\n*No request records beside the summary of 20261208T021700Z.*\n")
}

// Where the server counted no prompt tokens the point is at the length
// the request asked for, and the axis label (or the note, where others
// are counted) says so.
func TestLengthTTFTAsked(t *testing.T) {
	dir := t.TempDir()
	// vllm's servers counted nothing.
	path := writeDraws(t, dir, "20261206T021700Z", false, func(rec map[string]any) {
		if rec["runtime"] == "vllm" {
			rec["prompt_tokens"] = nil
		}
	})
	code, _, stderr := report("-o", filepath.Join(dir, "some"), path)
	require.Equal(t, 0, code, stderr)
	c := readScatter(t, filepath.Join(dir, "some", "length-ttft-in-uniform-128-2048.svg"), 4)
	c.Has(t, "prompt tokens of the request (the server's count, else as asked), log scale")
	want := slices.Clone(drawsPoints["in-uniform-128-2048"])
	want[2].pts = [][2]float64{{180, 41}, {900, 121}, {1700, 209}}
	want[3].pts = [][2]float64{{400, 66}, {1000, 152}, {2040, 262}, {128, 38}}
	c.at(t, want, true)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "some", "report.md")))
	assert.Contains(t, md, "*The server gave no prompt token count for some requests of vllm, conc 1; vllm, conc 2: they are at the length they asked for.*")

	// No server counted any.
	path = writeDraws(t, dir, "20261206T021700Z", false, func(rec map[string]any) { rec["prompt_tokens"] = nil })
	code, _, stderr = report("-o", filepath.Join(dir, "none"), path)
	require.Equal(t, 0, code, stderr)
	c = readScatter(t, filepath.Join(dir, "none", "length-ttft-in-uniform-128-2048.svg"), 4)
	c.Has(t, "input tokens the request asked for (no server count), log scale")
	want[0].pts = [][2]float64{{150, 114}, {620, 372}, {1900, 1088}}
	want[1].pts = [][2]float64{{300, 221}, {1200, 930}, {2000, 1460}}
	c.at(t, want, true)
	md = string(testkit.ReadFile(t, filepath.Join(dir, "none", "report.md")))
	assert.NotContains(t, md, "The server gave no prompt token count", "the axis says it")
}

// A series of more than scatterMax requests draws scatterMax of them,
// evenly spread, the first and last included; the note says so.
func TestLengthTTFTThinned(t *testing.T) {
	s := lengthSeries{label: "sim, conc 1"}
	for i := range 2*scatterMax + 1 {
		s.pts = append(s.pts, lengthPoint{tokens: float64(i + 1), counted: true, ttft: 0.001})
	}
	s.drawn = scatterMax
	xys := s.xys()
	require.Len(t, xys, scatterMax)
	assert.Equal(t, 1.0, xys[0].X)
	assert.Equal(t, float64(2*scatterMax+1), xys[len(xys)-1].X)
	for i := 1; i < len(xys); i++ {
		assert.InDelta(t, 2*scatterMax/float64(scatterMax-1), xys[i].X-xys[i-1].X, 1, "evenly spread")
	}
	assert.Equal(t, 1.0, xys[0].Y, "TTFT in ms")
	c := chartSet{prompt: "p"}
	assert.Equal(t, "Drawn, evenly spread over the requests in the records' order: sim, conc 1: 500 of 1001.",
		c.lengthNote(nil, []lengthSeries{s}, nil))

	s.pts, s.drawn = s.pts[:3], 3
	assert.Len(t, s.xys(), 3, "every point below the bound")
}

// scatter is what a test reads of a scatter chart: its texts, and its
// markers.
type scatter struct {
	Texts  []string
	points []marker // the data's markers, in the order drawn
	Legend []marker // the legend's, in order
}

// marker is a glyph of width 0.5: its stroke, its shape (ring or square)
// and its centre.
type marker struct {
	Stroke, shape string
	x, y          float64
}

// readScatter parses the SVG at path, with n legend entries, each a
// marker after the data's.
func readScatter(t *testing.T, path string, n int) scatter {
	t.Helper()
	svg := svgtest.Read(t, path)
	var ms []marker
	for _, p := range svg.Paths {
		if p.Width != 0.5 || !strings.HasSuffix(p.D, "Z") {
			continue
		}
		if x, y, ok := p.Ring(); ok {
			ms = append(ms, marker{Stroke: p.Stroke, shape: "ring", x: x, y: y})
			continue
		}
		if len(p.Points) == 4 {
			var x, y float64
			for _, pt := range p.Points {
				x, y = x+pt[0]/4, y+pt[1]/4
			}
			ms = append(ms, marker{Stroke: p.Stroke, shape: "square", x: x, y: y})
		}
	}
	require.GreaterOrEqual(t, len(ms), n, "a legend marker per series")
	return scatter{Texts: svg.Texts, points: ms[:len(ms)-n], Legend: ms[len(ms)-n:]}
}

func (c scatter) Has(t *testing.T, texts ...string) {
	t.Helper()
	svgtest.HasTexts(t, c.Texts, texts...)
}

// at checks that the chart draws want: a legend entry per series, in
// order, and the series' markers in order, each in its legend's colour and
// shape, at its point: x = a + k·f(tokens), f the log where logX else
// the identity, and y = b + m·log(TTFT), the same a, k > 0, b, m > 0 for
// every point.
func (c scatter) at(t *testing.T, want []scatterSeries, logX bool) {
	t.Helper()
	require.Len(t, c.Legend, len(want))
	var wantXY [][2]float64
	var got []marker
	i := 0
	for si, s := range want {
		c.Has(t, s.label)
		require.GreaterOrEqual(t, len(c.points), i+len(s.pts), "series %q", s.label)
		for _, m := range c.points[i : i+len(s.pts)] {
			assert.Equal(t, c.Legend[si].Stroke, m.Stroke, "%s: drawn as its legend says", s.label)
			assert.Equal(t, c.Legend[si].shape, m.shape, "%s: drawn as its legend says", s.label)
		}
		got = append(got, c.points[i:i+len(s.pts)]...)
		wantXY = append(wantXY, s.pts...)
		i += len(s.pts)
	}
	require.Len(t, c.points, i, "no other point")
	fx := func(v float64) float64 { return v }
	if logX {
		fx = math.Log
	}
	check := func(axis int, f func(float64) float64, pos func(marker) float64) {
		lo, hi := 0, 0
		for j, p := range wantXY {
			if p[axis] < wantXY[lo][axis] {
				lo = j
			}
			if p[axis] > wantXY[hi][axis] {
				hi = j
			}
		}
		k := (pos(got[hi]) - pos(got[lo])) / (f(wantXY[hi][axis]) - f(wantXY[lo][axis]))
		assert.Greater(t, k, 0.0)
		for j, p := range wantXY {
			assert.InDelta(t, pos(got[lo])+k*(f(p[axis])-f(wantXY[lo][axis])), pos(got[j]), 0.05, "point %d %v, axis %d", j, p, axis)
		}
	}
	check(0, fx, func(m marker) float64 { return m.x })
	check(1, math.Log, func(m marker) float64 { return m.y })
}
