package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// A run with fresh leaves and controls gets a table of each runtime's
// fresh way and control, the drift in bold; a run without either gets
// none.
func TestServerStateTable(t *testing.T) {
	dir := t.TempDir()
	ttft := func(x float64) *float64 { return &x }
	unload, none, refused := "unload", "none", "POST /slots/0?action=erase: HTTP 501"
	f, err := summary.Read(seed)
	require.NoError(t, err)
	f.Arguments.Fresh = "leaf"
	f.Runtimes = []summary.RuntimeInfo{
		{Name: "ollama", Kind: "ollama", Fresh: &unload, Control: &summary.Control{
			Leaf: "runtime=ollama/prompt=short/conc=1", First: summary.ControlFigures{TTFTP50: ttft(0.38), DecodeTPSMean: ttft(187.4)},
			End: summary.ControlFigures{TTFTP50: ttft(0.7136), DecodeTPSMean: ttft(109.9)}, TTFTChange: 0.878, DecodeChange: -0.4136, Drifted: true,
		}},
		{Name: "llamacpp", Kind: "openai", Fresh: &none, FreshError: &refused},
	}
	data, err := f.Encode()
	require.NoError(t, err)
	path := filepath.Join(dir, "run.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	code, _, stderr := report("-o", filepath.Join(dir, "out"), path)
	require.Equal(t, 0, code, stderr)
	md := string(readFile(t, filepath.Join(dir, "out", "report.md")))
	assert.Contains(t, md, "## Server state between leaves")
	assert.Contains(t, md, "| 20260831T114727Z | ollama | leaf: unload | runtime=ollama/prompt=short/conc=1 | 380.0 → 713.6 (+88%) | 187.4 → 109.9 (-41%) | **yes** |")
	assert.Contains(t, md, "| 20260831T114727Z | llamacpp | leaf: none (refused) | — | — | — | — |")

	code, _, stderr = report("-o", filepath.Join(dir, "seed"), seed)
	require.Equal(t, 0, code, stderr)
	assert.False(t, strings.Contains(string(readFile(t, filepath.Join(dir, "seed", "report.md"))), "Server state"), "the earlier harness's file has neither")
}
