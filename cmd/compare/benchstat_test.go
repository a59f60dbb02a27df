package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the real go tool benchstat through compare.

// benchstat's tables of the nightly fixtures: one per unit.
var units = []string{"sec/op", "ttft-sec", "ttfc-sec", "tpot-sec", "tpot-p50-sec", "agg-tok/s", "decode-tok/s", "decode-p50-tok/s", "request-tok/s", "prompt-tok/s", "server-decode-tok/s"}

// row returns the line of leaf (a benchmark name without its GOMAXPROCS
// suffix) in the table of unit in benchstat's output out.
func row(t *testing.T, out, unit, leaf string) string {
	t.Helper()
	i := strings.Index(out, " "+unit+" ")
	require.GreaterOrEqual(t, i, 0, "no %s table in:\n%s", unit, out)
	table := out[i:]
	if j := strings.Index(table, "\n\n"); j > 0 {
		table = table[:j]
	}
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 0 && stripProcs(f[0]) == leaf {
			return l
		}
	}
	t.Fatalf("no %s line for %s in:\n%s", unit, leaf, table)
	return ""
}

// delta returns the change in percent in a benchstat line, failing unless
// it is significant at p < 0.01 with n samples on both sides.
func delta(t *testing.T, line string, n int) float64 {
	t.Helper()
	m := regexp.MustCompile(`([+-][0-9.]+)% \(p=0\.00[0-9] n=` + strconv.Itoa(n) + `\)`).FindStringSubmatch(line)
	require.NotNil(t, m, "no significant change in %q", line)
	pct, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return pct
}

// A version change compares: one table per unit, not split by config,
// with a "vs base" column holding deltas and p-values.
func TestOldNew(t *testing.T) {
	r := runCompare(t, opts{}, fixture(baseID+".txt"), fixture(newID+".txt"))
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	out := r.stdout
	t.Logf("compare %s %s:\n%s", baseID, newID, out)

	assert.Equal(t, 1, strings.Count(out, "pkg: github.com/inferencebench/inferencebench"), "one config block: nothing run-specific split the tables")
	assert.Equal(t, 1, strings.Count(out, "cpu: Apple M4 Max"))
	for _, unit := range units {
		assert.Contains(t, out, unit)
	}
	headers := regexp.MustCompile(`(?m)^\s+│\s+cmd/compare/testdata/` + baseID + `\.txt\s+│\s+cmd/compare/testdata/` + newID + `\.txt\s+│$`)
	assert.Len(t, headers.FindAllString(out, -1), len(units), "a table per unit with both runs side by side")
	assert.Equal(t, len(units), strings.Count(out, "vs base"), "every table compares")

	// vllm-metal got faster: significant deltas with a p-value. ollama did
	// not change: benchstat says so with "~".
	for _, leaf := range []string{"Inference/runtime=vllm-metal/prompt=short/conc=1", "Inference/runtime=vllm-metal/prompt=short/conc=4"} {
		l := row(t, out, "decode-tok/s", leaf)
		assert.InDelta(t, 10, delta(t, l, 6), 2, "decode is about ten percent faster: %s", l)
		assert.Less(t, delta(t, row(t, out, "ttft-sec", leaf), 6), 0.0, "TTFT went down")
	}
	for _, unit := range units {
		for _, leaf := range []string{"Inference/runtime=ollama/prompt=short/conc=1", "Inference/runtime=ollama/prompt=short/conc=4"} {
			assert.Regexp(t, `~ \(p=[01]\.[0-9]+ n=6\)`, row(t, out, unit, leaf), "no change for ollama")
		}
	}
	assert.Regexp(t, `geomean\s.*[+-][0-9.]+%`, out)
}

// One run alone: the runtimes side by side, ollama the base.
func TestSideBySide(t *testing.T) {
	r := runCompare(t, opts{}, fixture(baseID+".txt"))
	require.Equal(t, 0, r.code, r.stderr)
	out := r.stdout
	t.Logf("compare %s:\n%s", baseID, out)

	headers := regexp.MustCompile(`(?m)^\s+│\s+ollama\s+│\s+vllm-metal\s+│$`)
	// prompt-tok/s and server-decode-tok/s have ollama only: vllm-metal
	// reports no prompt timing and no decode time of its own.
	assert.Len(t, headers.FindAllString(out, -1), len(units)-2, "runtimes as columns")
	assert.Equal(t, len(units)-2, strings.Count(out, "vs base"))
	assert.Contains(t, out, "Inference/prompt=short/conc=1-12 ")
	assert.Contains(t, out, "Inference/prompt=short/conc=4-12 ")
	assert.NotContains(t, out, "runtime=", "the runtime is a column, not in the row names")
	assert.Regexp(t, `[+-][0-9.]+% \(p=0\.00[0-9] n=6\)`, out)
}

// The small runs on the simulator: sim unchanged, sim2 from 80 ms and 300
// tok/s to 70 ms and 350 tok/s.
func assertSim2Faster(t *testing.T, out string) {
	t.Helper()
	// sec/op, agg-tok/s, decode-tok/s, request-tok/s and ttft-sec: the
	// simulator reports no prompt timing.
	assert.Equal(t, 5, strings.Count(out, "vs base"), "every table compares:\n%s", out)
	sim2 := "Inference/runtime=sim2/prompt=short/conc=1"
	assert.InDelta(t, 16.7, delta(t, row(t, out, "decode-tok/s", sim2), 6), 1, "350 against 300 tok/s")
	assert.InDelta(t, -12.5, delta(t, row(t, out, "ttft-sec", sim2), 6), 2, "70 against 80 ms")
	assert.Contains(t, row(t, out, "decode-tok/s", "Inference/runtime=sim/prompt=short/conc=1"), "400.")
}

// Two warm runs compare as they are.
func TestWarmRuns(t *testing.T) {
	r := runCompare(t, opts{}, fixture("warm-old.txt"), fixture("warm-new.txt"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cache: warm\n", "benchstat shows the key")
	assertSim2Faster(t, r.stdout)
}

// A file written before the cache key existed is warm: compare has
// benchstat ignore the key, which it would otherwise split the tables by.
func TestOldFileAgainstWarm(t *testing.T) {
	r := runCompare(t, opts{}, fixture("nocache-old.txt"), fixture("warm-new.txt"))
	require.Equal(t, 0, r.code, r.stderr)
	t.Logf("compare nocache-old.txt warm-new.txt:\n%s", r.stdout)
	assert.NotContains(t, r.stdout, "cache:")
	assert.Equal(t, 1, strings.Count(r.stdout, "cpu: AMD EPYC"), "one config block")
	assertSim2Faster(t, r.stdout)
}

// go test's own output, as saved with go test -bench > file, reads too.
func TestGoTestOutput(t *testing.T) {
	r := runCompare(t, opts{}, fixture("gotest-old.txt"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^\s+│\s+sim\s+│\s+sim2\s+│$`, r.stdout)
	assert.InDelta(t, -25, delta(t, row(t, r.stdout, "decode-tok/s", "Inference/prompt=short/conc=1"), 6), 1, "sim2 decodes at 300 tok/s, sim at 400")
}
