package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// testdata/embeddings.json is a run the suite wrote on its simulator
// (BENCH_RUNTIMES=sim BENCH_API=embeddings BENCH_EMBED_BATCH=4
// BENCH_PROMPTS=short,medium BENCH_CONCURRENCY=1,2 BENCH_WARMUPS=0
// -benchtime=3x -count=1): four inputs a request, each reply about 50 ms,
// so about 20 requests/s at concurrency 1 and 40 at 2; 160 prompt tokens
// a request on short, 324 on medium; no output tokens, and no .txt or
// request records beside it.
const embedRun = "testdata/embeddings.json"

// embedID is embedRun's run id.
const embedID = "20261206T171240Z"

// section returns the part of report.md s from the heading to the next
// "## " heading.
func section(t *testing.T, s, heading string) string {
	t.Helper()
	i := strings.Index(s, heading+"\n")
	require.GreaterOrEqual(t, i, 0, "no %q in:\n%s", heading, s)
	rest := s[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// An embeddings run has the Embeddings section: a line per runtime,
// prompt and load with its requests/s, input tokens/s, reply time, prompt
// tokens and batch, and a chart of requests/s against concurrency for
// each prompt. None of its rows is in a prompt's section or chart, which
// are the chat's; a chat run has no Embeddings section.
func TestEmbeddingsSection(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := report("-o", dir, embedRun)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "report.md\nembeddings-short.svg\nembeddings-medium.svg\n",
		strings.ReplaceAll(stdout, dir+string(filepath.Separator), ""), "the embeddings charts, and no chart of the chat's")
	s := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, section(t, s, "## Embeddings"),
		"| runtime | prompt | load | requests/s | input tok/s | reply p50 ms | reply p95 ms | prompt tok | batch | ok | failed |\n"+
			"|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"+
			"| sim | short | conc 1 | 19.81 | 3170.1 | 50.4 | 50.5 | 160.0 | 4 | 3 | 0 |\n"+
			"| sim | short | conc 2 | 39.55 | 6328.3 | 50.4 | 50.6 | 160.0 | 4 | 6 | 0 |\n"+
			"| sim | medium | conc 1 | 19.80 | 6415.1 | 50.5 | 50.5 | 324.0 | 4 | 3 | 0 |\n"+
			"| sim | medium | conc 2 | 39.53 | 12808.3 | 50.5 | 50.5 | 324.0 | 4 | 6 | 0 |\n\n"+
			"![Embeddings requests/s against concurrency, prompt short](embeddings-short.svg)\n"+
			"![Embeddings requests/s against concurrency, prompt medium](embeddings-medium.svg)\n")
	for _, chat := range []string{"## Prompt ", "### Token timing", "### Requests", "### Server counters", "aggregate tok/s", "TPOT"} {
		assert.NotContains(t, s, chat, "an embeddings row is no chat row")
	}
	// The control leaf is the run's first, an embeddings leaf: its decode
	// is none, and the section says why.
	controls := section(t, s, "## Server state between leaves")
	assert.Contains(t, controls, "An embeddings run's TTFT is its whole reply, and it has no decode (—).")
	assert.Contains(t, controls, "| runtime=sim/prompt=short/conc=1/api=embeddings | 50.4 → 50.4 (+0%) | — → — (—) |")

	r, err := readRun(embedRun)
	require.NoError(t, err)
	for _, p := range []string{"short", "medium"} {
		c := readChart(t, filepath.Join(dir, "embeddings-"+p+".svg"), 1)
		c.Has(t, "Embeddings requests/s — prompt "+p, "embeddings (req/s)", xLabel, "sim", "1", "2")
		require.Len(t, c.Lines, 1, "one line per runtime")
		c.Lines[0].Points(t, 2)
		var want []float64
		for _, conc := range []int{1, 2} {
			rw, ok := r.find(key{Runtime: "sim", Prompt: p, Concurrency: conc})
			require.True(t, ok)
			want = append(want, *rw.EmbedRPS)
		}
		c.onScale(t, want)
	}

	chatDir := t.TempDir()
	code, stdout, stderr = report("-o", chatDir, "testdata/old.json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(chatDir, "report.md"))), "## Embeddings")
	assert.NotContains(t, stdout, "embeddings-")
}

// A later embeddings run's lines follow the base's with their change,
// tested on the leaf runs of the .txt beside each (whose leaves' names
// end in api=embeddings); a row the later run lacks says so. The chart
// has a line per run. Neither run's canary is compared: an embeddings
// reply keeps no text.
func TestEmbeddingsRuns(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, embedID+".json")
	require.NoError(t, os.WriteFile(base, testkit.ReadFile(t, embedRun), 0o644))
	const laterID = "20261207T171240Z"
	later := laterRun(t, dir, embedRun, laterID, func(rw map[string]any) bool {
		for _, k := range []string{"embed_rps", "embed_input_tps"} {
			rw[k] = rw[k].(float64) * 1.25
		}
		rw["ttft_s_p50"] = rw["ttft_s_p50"].(float64) * 0.8
		return rw["prompt"] != "medium" || rw["concurrency"].(float64) != 2
	})
	// Six leaf runs a side of short at concurrency 1, the later 25% more
	// requests/s in every one.
	writeEmbedTxt := func(id string, rps float64) {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: github.com/inferencebench/inferencebench\n")
		for i := range 6 {
			x := rps + 0.01*float64(i)
			fmt.Fprintf(&b, "BenchmarkInference/runtime=sim/prompt=short/conc=1/api=embeddings-2 \t3\t50000000 ns/op\t%.2f embed-req/s\t%.0f input-tok/s\t50400000 ttft-ns\n", x, 160*x)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".txt"), []byte(b.String()), 0o644))
	}
	writeEmbedTxt(embedID, 19.8)
	writeEmbedTxt(laterID, 24.75)

	out := filepath.Join(dir, "out")
	code, _, stderr := report("-o", out, base, later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	embed := section(t, s, "## Embeddings")
	assert.Contains(t, embed, "| runtime | prompt | load | run | requests/s | input tok/s | reply p50 ms | reply p95 ms | prompt tok | batch | ok | failed |\n")
	assert.Contains(t, embed,
		"| sim | short | conc 1 | "+embedID+" | 19.81 | 3170.1 | 50.4 | 50.5 | 160.0 | 4 | 3 | 0 |\n"+
			"|  | | | "+laterID+" | 24.77 (+25.0%, p=0.002 n=6) | 3962.6 (+25.0%, p=0.002 n=6) | 40.3 (-20.0%, untested: a percentile) | 50.5 (±0.0%, untested: a percentile) | 160.0 | 4 | 3 | 0 |\n")
	assert.Contains(t, embed,
		"| sim | medium | conc 2 | "+embedID+" | 39.53 | 12808.3 | 50.5 | 50.5 | 324.0 | 4 | 6 | 0 |\n"+
			"|  | | | "+laterID+" | not in this run | — | — | — | — | — | — | — |\n")
	assert.NotContains(t, s, "## Canary replies", "an embeddings reply keeps nothing to compare")

	c := readChart(t, filepath.Join(out, "embeddings-short.svg"), 2)
	c.Has(t, "sim ("+embedID+")", "sim ("+laterID+")")
	require.Len(t, c.Lines, 2, "a line per run")
	assert.Equal(t, c.Lines[0].Stroke, c.Lines[1].Stroke, "one runtime's colour")
	assert.NotEqual(t, c.Lines[0].Dash, c.Lines[1].Dash, "each run its dashes")
	c = readChart(t, filepath.Join(out, "embeddings-medium.svg"), 2)
	require.Len(t, c.Lines, 1, "the later run has one point of medium, which draws no line")
}

// Two runtimes: the table has each one's lines, runtime by runtime, and
// the chart a line of its own colour for each.
func TestEmbeddingsRuntimes(t *testing.T) {
	dir := t.TempDir()
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.ReadFile(t, embedRun), &f))
	rows := f["summary"].([]any)
	for _, x := range rows {
		var rw map[string]any
		data, err := json.Marshal(x)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &rw))
		rw["runtime"] = "sim2"
		rw["embed_rps"] = rw["embed_rps"].(float64) * 2
		rows = append(rows, rw)
	}
	f["summary"] = rows
	data, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(dir, "two.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	out := filepath.Join(dir, "out")
	code, _, stderr := report("-o", out, path)
	require.Equal(t, 0, code, stderr)
	embed := section(t, string(testkit.ReadFile(t, filepath.Join(out, "report.md"))), "## Embeddings")
	assert.Contains(t, embed, "| sim | medium | conc 2 | 39.53 |")
	assert.Contains(t, embed, "| sim2 | short | conc 1 | 39.63 |")
	assert.Less(t, strings.Index(embed, "| sim | medium | conc 2 |"), strings.Index(embed, "| sim2 | short | conc 1 |"), "by runtime, then prompt")

	c := readChart(t, filepath.Join(out, "embeddings-short.svg"), 2)
	c.Has(t, "sim", "sim2")
	require.Len(t, c.Lines, 2, "one line per runtime")
	assert.NotEqual(t, c.Lines[0].Stroke, c.Lines[1].Stroke, "a colour per runtime")
	c.onScale(t, []float64{19.81288120602593, 39.551771637562986, 2 * 19.81288120602593, 2 * 39.551771637562986})
}

// A chat run and an embeddings run of the same runtime, prompt and load:
// the prompt's section compares the chat rows only, and the embeddings
// row is in the Embeddings section, against a base that has none.
func TestEmbeddingsBesideChat(t *testing.T) {
	dir := t.TempDir()
	later := laterRun(t, dir, embedRun, "20261207T171240Z", func(rw map[string]any) bool {
		rw["runtime"] = "ollama"
		return rw["prompt"] == "short"
	})
	out := filepath.Join(dir, "out")
	code, stdout, stderr := report("-o", out, "testdata/old.json", later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	assert.Contains(t, s, "**Warning: these runs differ in API, images or embeddings batch** (chat: 20261201T021700Z; embeddings, 4 inputs a request: vm)")
	// The runs are of two hosts: the later is named by its own, vm.
	assert.NotContains(t, section(t, s, "## Prompt short"), "| vm |", "no embeddings row among the chat's")
	assert.Contains(t, section(t, s, "## Embeddings"),
		"| ollama | short | conc 1 | 20261201T021700Z | not in this run | — | — | — | — | — | — | — |\n"+
			"|  | | | vm | 19.81 | 3170.1 | 50.4 | 50.5 | 160.0 | 4 | 3 | 0 |\n")
	assert.Contains(t, stdout, "embeddings-short.svg")
	assert.NotContains(t, s, "## Canary replies", "the embeddings run has no canary to compare")
}
