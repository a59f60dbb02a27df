package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The main table has the server's memory where a row has it: MiB at the
// timed part's end with its peak, this process's for the simulator, and
// none for a server on another machine, said; a run without it has no
// such column.
func TestMemoryColumn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mem.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"run_id":"20261207T151030Z","complete":true,"summary":[
 {"runtime":"ollama","prompt":"short","concurrency":1,"successes":10,"failures":0,"errors":{},"ttft_s_mean":0.57,
  "server_rss_bytes":107438080,"server_rss_peak_bytes":107708416,"server_memory":"server processes"},
 {"runtime":"sim","prompt":"short","concurrency":1,"successes":10,"failures":0,"errors":{},"ttft_s_mean":0.05,
  "server_rss_bytes":31457280,"server_rss_peak_bytes":32505856,"server_memory":"this process (the client with the server)"},
 {"runtime":"far","prompt":"short","concurrency":1,"successes":10,"failures":0,"errors":{},"ttft_s_mean":0.2,
  "server_memory":"not this machine's"}]}`), 0o644))
	code, _, stderr := report("-charts=false", "-o", dir, path)
	require.Equal(t, 0, code, stderr)
	md := string(testkit.ReadFile(t, filepath.Join(dir, "report.md")))
	assert.Contains(t, md, " server MiB |")
	line := func(runtime string) string {
		for l := range strings.SplitSeq(md, "\n") {
			if strings.HasPrefix(l, "| "+runtime+" | 1 |") {
				return l
			}
		}
		return ""
	}
	assert.Contains(t, line("ollama"), "| 102.5 (peak 102.7) |", "107438080 B and 107708416 B in MiB")
	assert.Contains(t, line("sim"), "| 30.0 (this process) |")
	assert.Contains(t, line("far"), "| not this machine's |")

	code, _, stderr = report("-charts=false", "-o", dir, seed)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, string(testkit.ReadFile(t, filepath.Join(dir, "report.md"))), "server MiB", "no row has it")
}
