package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// What lets a reader trust the changes a report states: their test
// against noise, the canary replies that changed, lines named by version,
// no chart of an earlier report left behind, and the file to pass.

// writeTxt writes, beside dir/id.json, the .txt of a run whose leaf
// vllm-metal/short/conc=1 ran n times, each leaf run's decode rate and
// TTFT mean from at, and ollama/short/conc=1 the same in every run.
func writeTxt(t *testing.T, dir, id string, n int, decode, ttft func(i int) float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: darwin\ngoarch: arm64\npkg: github.com/inferencebench/inferencebench\n")
	for i := range n {
		fmt.Fprintf(&b, "BenchmarkInference/runtime=vllm-metal/prompt=short/conc=1-12 \t2\t5000000000 ns/op\t%.2f decode-tok/s\t%.0f ttft-ns\n",
			decode(i), ttft(i)*1e9)
		fmt.Fprintf(&b, "BenchmarkInference/runtime=ollama/prompt=short/conc=1-12 \t2\t4000000000 ns/op\t%.2f decode-tok/s\t%.0f ttft-ns\n",
			29.9+0.1*float64(i%3), 0.2512+0.001*float64(i%2))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".txt"), []byte(b.String()), 0o644))
}

// lineAfter returns the line of s after the one that starts with prefix.
func lineAfter(t *testing.T, s, prefix string) string {
	t.Helper()
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	t.Fatalf("no line %q in:\n%s", prefix, s)
	return ""
}

// A change is followed by its test on the two runs' leaf runs from the
// .txt beside each summary: beyond noise where the leaf runs are apart,
// not where they overlap; none for a percentile, which the .txt does not
// have, nor against a run without its .txt.
func TestChangesCarryPValues(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "20261201T021700Z.json")
	require.NoError(t, os.WriteFile(base, testkit.ReadFile(t, "testdata/old.json"), 0o644))
	later := filepath.Join(dir, "20261202T021700Z.json")
	require.NoError(t, os.WriteFile(later, testkit.ReadFile(t, "testdata/new.json"), 0o644))
	// Six leaf runs each: vllm-metal decodes 10% faster in every leaf run
	// of the later night; its TTFT's leaf runs overlap.
	writeTxt(t, dir, "20261201T021700Z", 6, func(i int) float64 { return 24.9 + 0.1*float64(i) }, func(i int) float64 { return 0.33 + 0.01*float64(i) })
	writeTxt(t, dir, "20261202T021700Z", 6, func(i int) float64 { return 27.4 + 0.1*float64(i) }, func(i int) float64 { return 0.325 + 0.01*float64(i) })

	out := filepath.Join(dir, "out")
	code, _, stderr := report("-charts=false", "-o", out, base, later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	assert.Contains(t, s, "p below 0.05 is a change beyond noise")
	next := lineAfter(t, s, "| vllm-metal | 1 | 20261201T021700Z | qwen3.8-27b-nvfp4 |")
	// The columns: model, TTFT mean, p50, p95, p99, decode, …
	cells := strings.Split(next, " | ")
	assert.Equal(t, "301.5 (-9.1%, p=0.699 n=6)", cells[3], "TTFT mean: leaf runs that overlap are no change beyond noise")
	assert.Equal(t, "301.5 (-9.1%, untested: a percentile)", cells[4], "TTFT p50: no leaf runs to test it on, said")
	assert.Equal(t, "27.4 (+10.0%, p=0.002 n=6)", cells[7], "decode: every leaf run apart")
	// A row the .txt does not have (code): its changes carry no test.
	next = lineAfter(t, s, "| vllm-metal | 1 | 20261201T021700Z | qwen3.8-27b-nvfp4 | 497.5 |")
	assert.Contains(t, next, "| 27.4 (+10.0%, untested: no leaf runs in the .txt) |")

	// Three leaf runs against six, all apart: n says the sides, and p is
	// the exact test's, 2 / C(9, 3) = 0.024.
	writeTxt(t, dir, "20261202T021700Z", 3, func(i int) float64 { return 27.4 + 0.1*float64(i) }, func(i int) float64 { return 0.3 })
	code, _, stderr = report("-charts=false", "-o", out, base, later)
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	assert.Contains(t, lineAfter(t, s, "| vllm-metal | 1 | 20261201T021700Z | qwen3.8-27b-nvfp4 |"), "| 27.4 (+10.0%, p=0.024 n=6+3) |")

	// Without the later run's .txt: said, and no p.
	require.NoError(t, os.Remove(filepath.Join(dir, "20261202T021700Z.txt")))
	code, _, stderr = report("-charts=false", "-o", out, base, later)
	require.Equal(t, 0, code, stderr)
	s = string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	assert.Contains(t, s, "No .txt (or none readable) beside the summary of 20261202T021700Z: no change against it carries a p-value.")
	assert.NotContains(t, s, "p=0.")
}

// The canary replies that changed between the base and a later run are
// said, with the runtime's versions; a reply the same in both is not.
func TestCanaryChanges(t *testing.T) {
	dir := t.TempDir()
	withCanary := func(sub, id string, text func(runtime string) string) string {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
		fixture := "testdata/old.json"
		if sub == "later" {
			fixture = "testdata/new.json"
		}
		return laterRun(t, filepath.Join(dir, sub), fixture, id, func(row map[string]any) bool {
			txt := text(row["runtime"].(string))
			row["canary"] = map[string]any{"text_sha256": fmt.Sprintf("%x", txt), "output_tokens": 16, "text": txt}
			return true
		})
	}
	base := withCanary("base", "20261201T021700Z", func(string) string { return "The capital of France is Paris." })
	later := withCanary("later", "20261202T021700Z", func(rt string) string {
		if rt == "vllm-metal" {
			return "The capital of France is Paris, of course."
		}
		return "The capital of France is Paris."
	})
	out := filepath.Join(dir, "out")
	code, _, stderr := report("-charts=false", "-o", out, base, later)
	require.Equal(t, 0, code, stderr)
	s := string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	assert.Contains(t, s, "## Canary replies\n")
	assert.Contains(t, s, "- vllm-metal 0.28.0+cpu → 0.29.1: canary reply of prompt short changed at character 31\n")
	assert.Contains(t, s, "- vllm-metal 0.28.0+cpu → 0.29.1: canary reply of prompt code changed at character 31\n")
	assert.Equal(t, 2, strings.Count(s, "canary reply of prompt"), "once per prompt, not per load; ollama's did not change")

	// The same replies: said so.
	same := withCanary("later", "20261202T021700Z", func(string) string { return "The capital of France is Paris." })
	code, _, stderr = report("-charts=false", "-o", out, base, same)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, string(testkit.ReadFile(t, filepath.Join(out, "report.md"))), "No canary reply changed from the base's.")
}

// A line is named by its runtime's version where that alone tells its run
// from the others, by the version and the run where another run has the
// same version, and by the run where every run has the same one.
func TestLegendByVersion(t *testing.T) {
	rows := []row{{}}
	rows[0].Runtime = "ollama"
	mk := func(label, v string) *run {
		return &run{Label: label, Versions: map[string]string{"ollama": v}, Rows: rows}
	}
	a, b, c := mk("20261201T021700Z", "0.6.5"), mk("20261202T021700Z", "0.7.0"), mk("20261203T021700Z", "0.7.0")
	assert.Equal(t, "ollama", legendLabel("ollama", "ollama", a, []*run{a}), "one run: the runtime alone")
	assert.Equal(t, "ollama 0.6.5", legendLabel("ollama", "ollama", a, []*run{a, b}))
	assert.Equal(t, "ollama 0.7.0, conc 4", legendLabel("ollama, conc 4", "ollama", b, []*run{a, b}))
	assert.Equal(t, "ollama 0.6.5", legendLabel("ollama", "ollama", a, []*run{a, b, c}))
	assert.Equal(t, "ollama 0.7.0 (20261202T021700Z)", legendLabel("ollama", "ollama", b, []*run{a, b, c}))
	assert.Equal(t, "ollama (20261203T021700Z)", legendLabel("ollama", "ollama", c, []*run{b, c}), "the same version: by run")
	assert.Equal(t, "ollama (20261201T021700Z)", legendLabel("ollama", "ollama", mk("20261201T021700Z", ""), []*run{a, b}), "no version: by run")
}

// A report written into a folder removes the charts its earlier report
// there linked and it does not draw, and nothing else.
func TestEarlierChartsRemoved(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := report("-o", out, "testdata/old.json", "testdata/new.json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "itl-code.svg")
	require.Contains(t, stdout, "goodput-short.svg")
	mine := filepath.Join(out, "notes.svg")
	require.NoError(t, os.WriteFile(mine, []byte("<svg/>"), 0o644))
	other := filepath.Join(out, "notes.txt")
	require.NoError(t, os.WriteFile(other, []byte("mine"), 0o644))

	// The seed has one prompt and no open loop: two charts.
	code, stdout, stderr = report("-o", out, seed)
	require.Equal(t, 0, code, stderr)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"report.md", "ttft-none.svg", "throughput-none.svg", "notes.svg", "notes.txt"}, names,
		"the earlier report's charts are gone; files it did not write are kept")
	assert.Contains(t, stderr, "report: removed the earlier report's charts that this one does not draw: ttft-short.svg, throughput-short.svg,")
	assert.Equal(t, 3, strings.Count(stdout, "\n"))
}

// A run's .txt or request records given in place of its summary: exit 2,
// naming the summary to pass.
func TestNotSummary(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"20261201T021700Z.txt", "20261201T021700Z.requests.jsonl"} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("BenchmarkX 1 1 ns/op\n"), 0o644))
		out := filepath.Join(dir, "out")
		code, stdout, stderr := report("-o", out, path)
		assert.Equal(t, 2, code, name)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "report: "+path+" is a run's ", name)
		assert.Contains(t, stderr, "pass the summary JSON the run wrote beside it ("+filepath.Join(dir, "20261201T021700Z.json")+", which is not there)", name)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "nothing written")

		json := filepath.Join(dir, "20261201T021700Z.json")
		require.NoError(t, os.WriteFile(json, testkit.ReadFile(t, "testdata/old.json"), 0o644))
		code, _, stderr = report("-o", out, path)
		assert.Equal(t, 2, code, name)
		assert.Contains(t, stderr, "not its summary: pass "+json+" (the report reads the .txt and records beside it)\n", name)
		require.NoError(t, os.Remove(json))
	}
}
