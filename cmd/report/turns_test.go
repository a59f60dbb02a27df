package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The turns fixture's runtimes and loads, in the order of the turns
// section's table and chart.
var turnsLines = [][2]string{{"ollama", "conc 1"}, {"ollama", "conc 4"}, {"vllm", "conc 1"}, {"vllm", "conc 4"}}

// turnsHead is the head of the turns table of one run and one prompt.
const turnsHead = "| runtime | load | turn | requests | TTFT p50 ms | TTFT p95 ms | prompt tok | cached tok | cached share | decode tok/s |\n" +
	"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"

// turnsRow returns r's row of the runtime at the load ("conc 4").
func turnsRow(t *testing.T, r *run, runtime, load string) row {
	t.Helper()
	for _, rw := range r.Rows {
		if rw.Runtime == runtime && keyOf(rw).load() == load {
			return rw
		}
	}
	require.Failf(t, "no row", "%s %s", runtime, load)
	return row{}
}

// A run of conversations: the turns section after the runs, with its
// chart of TTFT p50 by turn and its table of every turn, the turns not
// sent, and the cache-hit ratio in the prompt's table.
func TestTurns(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/turns.json")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	assert.Equal(t, "report.md\nturns.svg\nttft-short.svg\nthroughput-short.svg\nlatency-short.svg\n",
		strings.ReplaceAll(stdout, dir+string(filepath.Separator), ""), "the turns chart first, then the prompt's as before")

	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "turns.md", md)
	s := string(md)
	section := strings.Index(s, "## Turns\n")
	require.GreaterOrEqual(t, section, 0)
	assert.Less(t, strings.Index(s, "| run | file |"), section)
	assert.Less(t, section, strings.Index(s, "## Prompt short\n"))
	assert.Contains(t, s, "| cold | 4 | 4 |\n", "the runs table's turns")
	assert.NotContains(t, s, "shared prefix |", "no shared prefix column")
	assert.Contains(t, s, "A runtime whose TTFT grows every turn prefills the whole history again: it has no prefix cache, or it is off. "+
		"One whose prefix cache holds the history stays near its turn 1")
	assert.Contains(t, s, "\n![TTFT p50 by turn of the conversation](turns.svg)\n\n"+turnsHead)

	// By runtime, then load; the turns of each; vllm's cached share, none
	// of ollama's; fewer requests after ollama's failed turn 2.
	assert.Contains(t, s, turnsHead+
		"| ollama | conc 1 | 1 | 2 | 48.9 | 49.0 | 28.0 | — | — | 39.6 |\n"+
		"|  | | 2 | 2 | 151.2 | 152.3 | 180.0 | — | — | 38.4 |\n"+
		"|  | | 3 | 2 | 253.5 | 255.5 | 332.0 | — | — | 37.2 |\n"+
		"|  | | 4 | 2 | 355.9 | 358.8 | 484.0 | — | — | 36.0 |\n"+
		"| ollama | conc 4 | 1 | 8 | 83.6 | 84.7 | 28.0 | — | — | 24.4 |\n"+
		"|  | | 2 | 8 | 372.7 | 380.8 | 180.0 | — | — | 23.7 |\n"+
		"|  | | 3 | 7 | 662.1 | 677.0 | 332.0 | — | — | 23.0 |\n"+
		"|  | | 4 | 7 | 951.5 | 973.2 | 484.0 | — | — | 22.2 |\n"+
		"| vllm | conc 1 | 1 | 2 | 35.2 | 35.3 | 31.0 | 0.0 | 0.0% | 54.5 |\n"+
		"|  | | 2 | 2 | 36.6 | 36.6 | 183.0 | 144.0 | 78.7% | 52.8 |\n")
	// Every turn of the fixture, its figures as the file has them.
	r, err := readRun("testdata/turns.json")
	require.NoError(t, err)
	for _, l := range turnsLines {
		rw := turnsRow(t, r, l[0], l[1])
		require.Len(t, rw.Turns, 4, "%v", l)
		for _, tf := range rw.Turns {
			share := "—"
			if tf.CachedPromptTokensMean != nil {
				share = fmt.Sprintf("%.1f%%", 100**tf.CachedPromptTokensMean / *tf.PromptTokensMean)
			}
			assert.Contains(t, s, fmt.Sprintf("| %d | %d | %.1f | %.1f | %.1f | %s | %s | %.1f |\n", tf.Turn, tf.Requests,
				*tf.TTFTP50*1e3, *tf.TTFTP95*1e3, *tf.PromptTokensMean, number(tf.CachedPromptTokensMean, 1, 1), share,
				*tf.DecodeTPSMean), "%v turn %d", l, tf.Turn)
		}
	}
	assert.Contains(t, s, "\n- ollama, conc 4: 2 turns not sent: an earlier turn of the conversation failed\n")
	assert.Equal(t, 1, strings.Count(s, "not sent:"), "only the row with turns not sent")

	// The prompt's table has the cache-hit ratio beside TTFT: vllm's,
	// none for ollama.
	assert.Contains(t, s, "| runtime | conc | model | TTFT mean ms | TTFT p50 ms | TTFT p95 ms | TTFT p99 ms | cache hit | decode tok/s |")
	assert.Contains(t, s, "| ollama | 1 | qwen3:8b | 202.4 | 201.9 | 356.9 | 358.7 | — | 37.8 |")
	ratio := *turnsRow(t, r, "vllm", "conc 4").CacheHitRatio
	assert.InDelta(t, 0.865, ratio, 0.001)
	assert.Contains(t, s, "| vllm | 4 | Qwen/Qwen3-8B | 46.7 | 46.7 | 49.0 | 49.1 | "+strconv.FormatFloat(100*ratio, 'f', 1, 64)+"% | 32.0 |")

	// The chart: a line per runtime and load, a point per turn at the
	// turn, at the height of its TTFT p50, on an axis from zero.
	c := readChart(t, filepath.Join(dir, "turns.svg"), len(turnsLines))
	c.Has(t, "Time to first token by turn, p50 — prompt short", xLabelTurn, "TTFT p50 (ms)",
		"ollama, conc 1", "ollama, conc 4", "vllm, conc 1", "vllm, conc 4", "1", "2", "3", "4", "0", "200", "1000")
	require.Len(t, c.Lines, len(turnsLines))
	var want []float64
	for i, l := range turnsLines {
		c.Lines[i].Points(t, 4)
		assert.Empty(t, c.Lines[i].Dash, "one run: solid")
		for _, tf := range turnsRow(t, r, l[0], l[1]).Turns {
			want = append(want, *tf.TTFTP50*1e3)
		}
	}
	c.onScale(t, want)
	c.turnsX(t)
	strokes := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		strokes[i] = l.Stroke
	}
	slices.Sort(strokes)
	assert.Len(t, slices.Compact(strokes), len(turnsLines), "a colour each")
	// ollama's grows every turn; vllm's stays within 15% of its turn 1.
	for i, l := range c.Lines {
		for j := 1; j < len(l.XY); j++ {
			if i < 2 {
				assert.Greater(t, l.XY[j][1], l.XY[j-1][1], "ollama line %d rises (y grows up: vgsvg flips the page)", i)
			} else {
				h0 := l.XY[0][1] - c.Bottom
				assert.InDelta(t, h0, l.XY[j][1]-c.Bottom, 0.15*h0, "vllm line %d is flat", i)
			}
		}
	}

	// Drawing twice gives the same bytes.
	code, _, stderr = report("-o", filepath.Join(dir, "again"), "testdata/turns.json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, testkit.ReadFile(t, filepath.Join(dir, "turns.svg")), testkit.ReadFile(t, filepath.Join(dir, "again", "turns.svg")))

	// Without charts: the section's table, no link.
	code, stdout, stderr = report("-charts=false", "-o", filepath.Join(dir, "nocharts"), "testdata/turns.json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "turns.svg")
	s = string(testkit.ReadFile(t, filepath.Join(dir, "nocharts", "report.md")))
	assert.Contains(t, s, "## Turns\n")
	assert.Contains(t, s, "Times are in ms.\n\n"+turnsHead+"| ollama | conc 1 | 1 | 2 | 48.9 |")
	assert.NotContains(t, s, "turns.svg")
}

// turnsX checks that the chart's points are at their turns: the i-th
// point of every line at the same x, the turns evenly spaced, left to
// right.
func (c chart) turnsX(t *testing.T) {
	t.Helper()
	first := c.Lines[0].XY
	require.GreaterOrEqual(t, len(first), 2)
	step := first[1][0] - first[0][0]
	assert.Greater(t, step, 0.0)
	for i, l := range c.Lines {
		for j, p := range l.XY {
			turn := (p[0]-first[0][0])/step + 1
			assert.InDelta(t, math.Round(turn), turn, 0.001, "line %d point %d is at a turn", i, j)
			if j < len(first) {
				assert.InDelta(t, first[j][0], p[0], 0.001, "line %d point %d is at turn %d", i, j, j+1)
			}
		}
	}
}

// Runs without rows with turns have no turns section and no chart; the
// cache-hit column is only where a run has a shared prefix or turns.
func TestTurnsNone(t *testing.T) {
	for _, files := range [][]string{{seed}, {"testdata/old.json"}, {"testdata/old.json", "testdata/new.json"},
		{"testdata/lengths.json"}, {"testdata/prefix.json"}} {
		dir := t.TempDir()
		code, stdout, stderr := report(append([]string{"-o", dir}, files...)...)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout, "turns.svg", files)
		_, err := os.Stat(filepath.Join(dir, "turns.svg"))
		assert.True(t, os.IsNotExist(err), "%v", files)
		s := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
		assert.NotContains(t, s, "## Turns", files)
		assert.NotContains(t, s, "not sent", files)
		assert.NotContains(t, s, "| turns |", files)
		assert.NotContains(t, s, "differ in conversation turns", files)
		if files[0] == "testdata/prefix.json" {
			assert.Contains(t, s, "| cache hit |", files)
		} else {
			assert.NotContains(t, s, "cache hit", files)
			assert.NotContains(t, s, "shared prefix", files)
		}
	}
}

// A run whose requests began with a shared prefix: the runs table says
// how long, and the prompt's table has the cache-hit ratio beside TTFT,
// "—" where the server reports no cached tokens.
func TestSharedPrefix(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, "testdata/prefix.json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "report.md\nttft-short.svg\nthroughput-short.svg\nlatency-short.svg\n",
		strings.ReplaceAll(stdout, dir+string(filepath.Separator), ""))
	md := testkit.ReadFile(t, filepath.Join(dir, "report.md"))
	golden(t, "prefix.md", md)
	s := string(md)
	assert.Contains(t, s, "| run | file | created | host | versions | cache | shared prefix | rows |\n|---|---|---|---|---|---|---:|---:|\n")
	assert.Contains(t, s, "| cold | 1024 tok | 4 |\n")
	r, err := readRun("testdata/prefix.json")
	require.NoError(t, err)
	ratio := *turnsRow(t, r, "vllm", "conc 1").CacheHitRatio
	assert.InDelta(t, 1024.0/1055, ratio, 1e-9)
	assert.Contains(t, s, "| TTFT p99 ms | cache hit | decode tok/s |")
	assert.Contains(t, s, "| vllm | 1 | Qwen/Qwen3-8B | 35.2 | 35.2 | 35.3 | 35.3 | 97.1% | 54.5 |")
	assert.Contains(t, s, "| ollama | 4 | qwen3:8b | 2042.8 | 2042.8 | 2085.0 | 2090.5 | — | 24.4 |")
	assert.NotContains(t, s, "## Turns")
}

// The cache-hit column follows the runs' arguments, not the rows' ratio
// alone (a single-turn run's is a cold or warm prompt's, which the
// requests table shows); in the open-loop table too. A shared prefix in
// one run gives every run's rows the column.
func TestCacheHitColumn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, args string) string {
		path := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"`+name+`","arguments":{`+args+`},"summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"ttft_s_p50":0.05,"cache_hit_ratio":0.25},
 {"runtime":"sim","prompt":"p","concurrency":0,"rate_rps":5,"successes":9,"ttft_s_p50":0.05,"ttft_s_p99":0.08,"achieved_rps":4.9,"cache_hit_ratio":0.5}]}`), 0o644))
		return path
	}
	plain := write("plain", `"turns":1,"shared_prefix":0`)
	prefix := write("prefix", `"turns":1,"shared_prefix":512`)

	code, _, stderr := report("-charts=false", "-o", filepath.Join(dir, "plain"), plain)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "plain", "report.md"))), "cache hit")

	code, _, stderr = report("-charts=false", "-o", filepath.Join(dir, "prefix"), prefix)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "prefix", "report.md")))
	assert.Contains(t, s, "| sim | 1 | — | — | 50.0 | — | — | 25.0% | — |")
	assert.Contains(t, s, "| sim | 5 | — | 4.90 | — | — | 50.0 | 80.0 | 50.0% | 9 | — |\n", "open loop")

	code, _, stderr = report("-charts=false", "-o", filepath.Join(dir, "both"), plain, prefix)
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(dir, "both", "report.md")))
	assert.Contains(t, s, "| sim | 1 | plain | — | — | 50.0 | — | — | 25.0% | — |")
	assert.Contains(t, s, "|  | | prefix | — | — | 50.0 (±0.0%) | — | — | 25.0% | — |", "a share has no change")
	assert.Contains(t, s, "> **Warning: these runs differ in conversation turns or shared prefix** "+
		"(1 turn, no shared prefix: plain; 1 turn, shared prefix 512 tok: prefix).")
	assert.Contains(t, s, "| plain (base) | `"+plain+"` | — | — | — | warm | none | 2 |")
}

// Two runs: the table's turns by runtime, load and run, a line per
// runtime, load and run, a runtime and load's colour shared by its runs
// and each run's dash; the turns not sent of each run.
func TestTurnsRuns(t *testing.T) {
	dir := t.TempDir()
	later := laterRun(t, dir, "testdata/turns.json", "20261206T021700Z", func(rw map[string]any) bool {
		switch {
		case rw["runtime"] == "vllm" && rw["concurrency"] == 4.0:
			return false // not run
		case rw["runtime"] == "ollama" && rw["concurrency"] == 1.0:
			rw["turns"].([]any)[3].(map[string]any)["ttft_s_p50"] = nil // every turn 4 failed
		case rw["runtime"] == "vllm" && rw["concurrency"] == 1.0:
			rw["not_sent"] = 1
		}
		return true
	})

	code, _, stderr := report("-o", filepath.Join(dir, "out"), "testdata/turns.json", later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	assert.NotContains(t, s, "differ in conversation turns", "the same workload")
	assert.Contains(t, s, "| runtime | load | run | turn | requests |")
	assert.Contains(t, s, "| ollama | conc 1 | 20261204T021700Z | 1 | 2 | 48.9 |")
	assert.Contains(t, s, "|  | | | 4 | 2 | 355.9 | 358.8 | 484.0 | — | — | 36.0 |\n"+
		"|  | | 20261206T021700Z | 1 | 2 | 48.9 |", "the later run's turns after the base's")
	assert.Contains(t, s, "|  | | | 4 | 2 | — | 358.8 |", "its turn 4 without a p50")
	assert.Contains(t, s, "|  | | | 4 | 8 | 48.7 | 49.0 | 487.0 | 448.0 | 92.0% | 30.5 |\n\n", "vllm at 4: the base run's only")
	assert.Contains(t, s, "- ollama, conc 4 (20261204T021700Z): 2 turns not sent: an earlier turn of the conversation failed\n"+
		"- ollama, conc 4 (20261206T021700Z): 2 turns not sent: an earlier turn of the conversation failed\n"+
		"- vllm, conc 1 (20261206T021700Z): 1 turn not sent: an earlier turn of the conversation failed\n")

	c := parseChart(t, filepath.Join(dir, "out", "turns.svg"), 7)
	c.Has(t, "ollama, conc 1 (20261204T021700Z)", "ollama, conc 1 (20261206T021700Z)", "vllm, conc 4 (20261204T021700Z)")
	assert.NotContains(t, c.Texts, "vllm, conc 4 (20261206T021700Z)")
	require.Len(t, c.Lines, 7)
	for i, l := range c.Lines {
		assert.Equal(t, c.Legend[i].Stroke, l.Stroke, "line %d", i)
		assert.Equal(t, c.Legend[i].Dash, l.Dash, "line %d", i)
		if i == 1 {
			l.Points(t, 3) // ollama at 1, the later run: no turn 4 p50
		} else {
			l.Points(t, 4)
		}
	}
	c.turnsX(t)
	assert.Equal(t, c.Lines[0].Stroke, c.Lines[1].Stroke, "a runtime and load keep their colour across runs")
	assert.NotEqual(t, c.Lines[0].Dash, c.Lines[1].Dash, "a dash for each run")
	assert.NotEqual(t, c.Lines[1].Stroke, c.Lines[2].Stroke)

	// Against the shared prefix run: a warning; its rows have no turns.
	code, _, stderr = report("-charts=false", "-o", filepath.Join(dir, "mixed"), "testdata/turns.json", "testdata/prefix.json")
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(dir, "mixed", "report.md")))
	assert.Contains(t, s, "> **Warning: these runs differ in conversation turns or shared prefix** "+
		"(4 turns, no shared prefix: 20261204T021700Z; 1 turn, shared prefix 1024 tok: 20261205T021700Z).")
	assert.Contains(t, s, "| cold | 4 | none | 4 |\n")
	assert.Contains(t, s, "| cold | 1 | 1024 tok | 4 |\n")
	assert.NotContains(t, s, "20261205T021700Z | 1 | 2 |", "no turns of the prefix run")
}

// Turns of several prompts: the prompt in the table and the legend, and
// not in the chart's title.
func TestTurnsPrompts(t *testing.T) {
	dir := t.TempDir()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, "testdata/turns.json"), &f))
	rows := f["summary"].([]any)
	for _, x := range slices.Clone(rows) {
		if rw := x.(map[string]any); rw["runtime"] == "vllm" {
			data, err := json.Marshal(rw)
			require.NoError(t, err)
			var code map[string]any
			require.NoError(t, json.Unmarshal(data, &code))
			code["prompt"] = "code"
			rows = append(rows, code)
		}
	}
	f["summary"] = rows
	data, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(dir, "prompts.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	code, _, stderr := report("-o", filepath.Join(dir, "out"), path)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	assert.Contains(t, s, "| runtime | prompt | load | turn | requests |")
	assert.Contains(t, s, "| vllm | short | conc 4 | 1 | 8 | 44.8 |")
	assert.Contains(t, s, "|  | | | 4 | 8 | 48.7 | 49.0 | 487.0 | 448.0 | 92.0% | 30.5 |\n| vllm | code | conc 1 | 1 | 2 | 35.2 |")
	assert.Contains(t, s, "- ollama, short, conc 4: 2 turns not sent")
	c := readChart(t, filepath.Join(dir, "out", "turns.svg"), 6)
	c.Has(t, "Time to first token by turn, p50", "ollama, short, conc 1", "vllm, short, conc 4", "vllm, code, conc 1", "vllm, code, conc 4")
	require.Len(t, c.Lines, 6)
}

func TestTurnTicks(t *testing.T) {
	labels := func(last int) (labelled []string, minor int) {
		for _, tk := range (turnTicks{}).Ticks(0.5, float64(last)+0.5) {
			if tk.Label != "" {
				labelled = append(labelled, tk.Label)
			} else {
				minor++
			}
		}
		return labelled, minor
	}
	l, minor := labels(4)
	assert.Equal(t, []string{"1", "2", "3", "4"}, l)
	assert.Zero(t, minor)
	l, minor = labels(12)
	assert.Len(t, l, 12)
	assert.Zero(t, minor)
	l, minor = labels(30)
	assert.Equal(t, []string{"1", "5", "10", "15", "20", "25", "30"}, l)
	assert.Equal(t, 23, minor)
	l, minor = labels(100)
	assert.Equal(t, []string{"1", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"}, l)
	assert.Zero(t, minor, "too many to tell apart")
	var _ plot.Ticker = turnTicks{}
}

// Runs of another API, with images or of another embeddings batch share
// runtime, prompt and load with the chat's: a warning says their changes
// are no changes.
func TestRequestWarning(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, args map[string]any) string {
		var f map[string]any
		require.NoError(t, json.Unmarshal(testkit.ReadFile(t, "testdata/new.json"), &f))
		f["run_id"] = name
		for k, v := range args {
			f["arguments"].(map[string]any)[k] = v
		}
		data, err := json.Marshal(f)
		require.NoError(t, err)
		path := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return path
	}
	chat := write("chat", nil)
	again := write("again", nil)
	completions := write("completions", map[string]any{"api": "completions"})
	images := write("images", map[string]any{"images": "2@512x512"})
	embed := write("embed", map[string]any{"api": "embeddings", "embed_batch": 4})

	md := func(out string, files ...string) string {
		code, _, stderr := report(append([]string{"-charts=false", "-o", filepath.Join(dir, out)}, files...)...)
		require.Equal(t, 0, code, stderr)
		return string(testkit.ReadFile(t, filepath.Join(dir, out, "report.md")))
	}
	assert.NotContains(t, md("same", chat, again), "differ in API")
	assert.Contains(t, md("mixed", chat, completions, images, embed),
		"> **Warning: these runs differ in API, images or embeddings batch** "+
			"(chat: chat; completions: completions; chat, images 2@512x512: images; embeddings, 4 inputs a request: embed).")
}
