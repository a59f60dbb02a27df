package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// A run with fresh leaves and controls gets a table of each runtime's
// fresh way and control, with its test (requests on each side, p-values,
// verdict), a drift in bold; a run without either gets none.
func TestServerStateTable(t *testing.T) {
	dir := t.TempDir()
	ttft := func(x float64) *float64 { return &x }
	unload, none, refused := "unload", "none", "POST /slots/0?action=erase: HTTP 501"
	f, err := summary.Read(seed)
	require.NoError(t, err)
	f.Arguments.Fresh = "leaf"
	first := stats.ControlFigures{TTFTP50: ttft(0.38), DecodeTPSMean: ttft(187.4)}
	f.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", Fresh: &unload, Control: &summary.Control{Control: stats.Control{
			Leaf: "runtime=ollama/prompt=short/conc=1", First: first,
			End: stats.ControlFigures{TTFTP50: ttft(0.7136), DecodeTPSMean: ttft(109.9)}, TTFTChange: 0.878, DecodeChange: -0.4136,
			Drifted: true, Verdict: stats.ControlDrifted, RequestsFirst: 3, RequestsEnd: 12, TTFTP: ttft(2 / 455.0), DecodeP: ttft(3e-7),
		}}},
		{Name: "llamacpp", Kind: "openai", Fresh: &none, FreshError: &refused},
		{Name: "mlx", Kind: "openai", Fresh: &none, Control: &summary.Control{Control: stats.Control{
			Leaf: "runtime=mlx/prompt=short/conc=1", First: first, End: stats.ControlFigures{TTFTP50: ttft(0.38), DecodeTPSMean: ttft(93.7)},
			DecodeChange: -0.5, Verdict: stats.ControlTooFew, RequestsFirst: 1, RequestsEnd: 2, TTFTP: ttft(1), DecodeP: ttft(2 / 3.0),
		}}},
		{Name: "lmstudio", Kind: "openai", Fresh: &none, Control: &summary.Control{Control: stats.Control{
			Leaf: "runtime=lmstudio/prompt=short/conc=1", First: first, End: first, Verdict: stats.ControlSteady, RequestsFirst: 12, RequestsEnd: 12,
			TTFTP: ttft(1), DecodeP: ttft(0.31),
		}}},
		{Name: "sglang", Kind: "openai", Control: &summary.Control{Control: stats.Control{Leaf: "runtime=sglang/prompt=short/conc=1", First: first, End: first}}},
	}
	data, err := f.Encode()
	require.NoError(t, err)
	path := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	code, _, stderr := report("-o", filepath.Join(dir, "out"), path)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "out", "report.md")))
	assert.Contains(t, md, "## Server state between leaves")
	assert.Contains(t, md, "| run | runtime | fresh | control leaf | TTFT p50 ms, first → end | decode tok/s, first → end | requests, first / end | p, TTFT / decode | verdict |\n|---|---|---|---|---:|---:|---:|---:|---|\n")
	assert.Contains(t, md, "| 20260831T114727Z | ollama | leaf: unload | runtime=ollama/prompt=short/conc=1 | 380.0 → 713.6 (+88%) | 187.4 → 109.9 (-41%) | 3 / 12 | 0.0044 / <0.0001 | **drifted** |")
	assert.Contains(t, md, "| 20260831T114727Z | llamacpp | leaf: none (refused) | — | — | — | — | — | — |")
	assert.Contains(t, md, "| 20260831T114727Z | mlx | leaf: none | runtime=mlx/prompt=short/conc=1 | 380.0 → 380.0 (+0%) | 187.4 → 93.7 (-50%) | 1 / 2 | 1 / 0.67 | too few requests |",
		"halved, but on too few requests to judge")
	assert.Contains(t, md, "| 20260831T114727Z | lmstudio | leaf: none | runtime=lmstudio/prompt=short/conc=1 | 380.0 → 380.0 (+0%) | 187.4 → 187.4 (+0%) | 12 / 12 | 1 / 0.31 | steady |")
	assert.Contains(t, md, "| 20260831T114727Z | sglang | leaf | runtime=sglang/prompt=short/conc=1 | 380.0 → 380.0 (+0%) | 187.4 → 187.4 (+0%) | — | — | steady |",
		"a file written before the test: no requests, no p-values")

	code, _, stderr = report("-o", filepath.Join(dir, "seed"), seed)
	require.Equal(t, 0, code, stderr)
	assert.False(t, strings.Contains(string(testkit.ReadFile(t, filepath.Join(dir, "seed", "report.md"))), "Server state"), "the earlier harness's file has neither")
}
