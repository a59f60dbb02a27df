package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// writeManyRuns writes a year of nightly runs into dir, a folder a night:
// 365 runs of 30 series each (3 runtimes × 5 prompts × concurrency 1 and
// 4), every figure with 2% run-to-run noise, power figures, and a canary
// reply of 2,000 characters in every row, each night's request records
// beside it (manyRecords); ollama's version changes every 30 nights. It
// is the input of the performance measurement in docs/history.md.
func writeManyRuns(t testing.TB, dir string, nights int) {
	rng := rand.New(rand.NewPCG(365, 30))
	canary := strings.Repeat("All work and no play makes a benchmark a dull tool. ", 40)[:2000]
	var records []byte // the same every night: the rows' leaves do not change
	for n := range nights {
		f := newFile(nightly(n-nights), "mac-studio", "ollama", "0.6."+strconv.Itoa(n/30), "vllm", "0.9.0", "llamacpp", "b5000")
		for _, rt := range []string{"ollama", "vllm", "llamacpp"} {
			for p, prompt := range []string{"short", "medium", "code", "in512", "in4096"} {
				for _, conc := range []int{1, 4} {
					k := func() float64 { return math.Exp(0.02 * rng.NormFloat64()) }
					base := float64(1+p) * float64(conc)
					f.Summary = append(f.Summary, row(rt, "qwen3:8b", prompt, conc, 0,
						figs{0.05 * base * k(), 0.08 * base * k(), 40 / math.Sqrt(float64(conc)) * k(), 38 * float64(conc) * k(), 0.1 * k()}, canary))
				}
			}
		}
		path := writeFile(t, filepath.Join(dir, "nightly-"+f.RunID), f)
		if records == nil {
			records = manyRecords(t, f.Summary, canary)
		}
		require.NoError(t, os.WriteFile(summary.RecordsBeside(path), records, 0o644))
	}
}

// manyRecords is a night's request records: per row, the canary request
// with its text and 42 timed ones (6 counts × 7 rounds, one stream's
// worth: a nightly's -count=6 -benchtime=5x with two warm-ups), 1,290
// records in all.
func manyRecords(t testing.TB, rows []summary.Row, canary string) []byte {
	var recs []records.Record
	for _, r := range rows {
		recs = append(recs, records.Record{Runtime: r.Runtime, Model: r.Model, Prompt: r.Prompt, Concurrency: r.Concurrency,
			Count: 1, Canary: true, OutputTokens: 128, Text: &canary})
		for i := range 42 {
			ttft := 0.05 + 0.001*float64(i)
			recs = append(recs, records.Record{Runtime: r.Runtime, Model: r.Model, Prompt: r.Prompt, Concurrency: r.Concurrency,
				Count: 1 + i/7, Round: 1 + i%7, Warmup: i%7 < 2, StartS: float64(i) * 3.3, TTFTS: &ttft, TTFCS: &ttft, TotalS: 3.2,
				OutputTokens: 128, PromptTokens: testkit.Ptr(40), Chunks: 128, FinishReason: "length"})
		}
	}
	data, err := records.Append(nil, recs)
	require.NoError(t, err)
	return data
}

// A year of nights, 30 series: read, judged and drawn. The time it took
// is logged; docs/history.md has the measurement of `go run` on the same
// files (HISTORY_MANY_RUNS=DIR writes them to DIR and stops).
func TestManyRuns(t *testing.T) {
	if dir := os.Getenv("HISTORY_MANY_RUNS"); dir != "" {
		writeManyRuns(t, dir, 365)
		t.Skipf("wrote 365 runs to %s", dir)
	}
	if testing.Short() {
		t.Skip("writes 365 runs")
	}
	in := t.TempDir()
	writeManyRuns(t, in, 365)
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	code, stdout, stderr := runCmd("-o", out, in)
	elapsed := time.Since(start)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "365 runs, 30 series")
	t.Logf("365 runs × 30 series: read, judged and drawn in %v", elapsed.Round(time.Millisecond))
	v := readVerdicts(t, filepath.Join(out, verdictsJSON))
	require.Len(t, v.Series, 30)
	c := readChart(t, filepath.Join(out, "ollama-decode.svg"), 10)
	require.Len(t, c.Lines, 10)
	for i, l := range c.Lines {
		l.Points(t, 365)
		assert.Equal(t, i >= len(palette), l.Dash != "", "past the palette, dashed")
	}
	c.Has(t, "0.6.0", "0.6.12")
}
