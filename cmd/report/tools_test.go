package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// Rows whose requests carried tools get a tool calls table: the replies
// that made a call of the successes, the calls, the valid arguments of the
// calls, and the time to the first call with its change against the
// base. A row without tools is "—" there, and a report without tool rows
// has no such table.
func TestToolCallsTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	base := write("base.json", `{"run_id":"20261205T000000Z","summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"ttft_s_p50":0.05,
  "tool_call_replies":3,"tool_call_reply_ratio":0.75,"tool_calls":4,"tool_args_valid":2,"tool_args_valid_ratio":0.5,
  "ttf_tool_call_s_mean":0.2333,"ttf_tool_call_s_p50":0.2,"ttf_tool_call_s_p95":0.38,"ttf_tool_call_s_p99":0.396},
 {"runtime":"sim","prompt":"p","concurrency":2,"successes":8,"ttft_s_p50":0.07,
  "tool_call_replies":0,"tool_call_reply_ratio":0,"tool_calls":0,"tool_args_valid":0}]}`)
	later := write("later.json", `{"run_id":"20261206T000000Z","summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"ttft_s_p50":0.05,
  "tool_call_replies":4,"tool_call_reply_ratio":1,"tool_calls":5,"tool_args_valid":5,"tool_args_valid_ratio":1,
  "ttf_tool_call_s_mean":0.1,"ttf_tool_call_s_p50":0.1,"ttf_tool_call_s_p95":0.1,"ttf_tool_call_s_p99":0.198}]}`)
	plain := write("plain.json", `{"run_id":"20261207T000000Z","summary":[
 {"runtime":"sim","prompt":"p","concurrency":1,"successes":4,"ttft_s_p50":0.05}]}`)

	md := func(files ...string) string {
		out := filepath.Join(dir, "out")
		code, _, stderr := report(append([]string{"-charts=false", "-o", out}, files...)...)
		require.Equal(t, 0, code, stderr)
		return string(testkit.ReadFile(t, filepath.Join(out, "report.md")))
	}

	s := md(base)
	assert.Contains(t, s, "### Tool calls\n\n")
	assert.Contains(t, s, "| runtime | load | tool-call replies | calls | valid tool args | TTF tool call p50 ms | TTF tool call p99 ms |\n"+
		"|---|---|---:|---:|---:|---:|---:|\n"+
		"| sim | conc 1 | 3 of 4 (75.0%) | 4 | 2 (50.0%) | 200.0 | 396.0 |\n"+
		"| sim | conc 2 | 0 of 8 (0.0%) | 0 | 0 | — | — |\n")

	s = md(base, later)
	assert.Contains(t, s, "| sim | conc 1 | 20261205T000000Z | 3 of 4 (75.0%) | 4 | 2 (50.0%) | 200.0 | 396.0 |\n"+
		"|  | | 20261206T000000Z | 4 of 4 (100.0%) | 5 | 5 (100.0%) | 100.0 (-50.0%) | 198.0 (-50.0%) |\n")

	s = md(plain, base)
	assert.Contains(t, s, "| sim | conc 1 | 20261207T000000Z | — | — | — | — | — |\n"+
		"|  | | 20261205T000000Z | 3 of 4 (75.0%) | 4 | 2 (50.0%) | 200.0 | 396.0 |\n", "a run without tools beside one with")

	s = md(plain)
	assert.NotContains(t, s, "Tool calls")
	assert.NotContains(t, s, "tool")
}
