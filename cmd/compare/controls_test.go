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

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

func TestControlUnjudged(t *testing.T) {
	f := &summary.File{Runtimes: []summary.RuntimeInfo{
		{Name: "judged", Control: &summary.Control{Control: stats.Control{Verdict: stats.ControlSteady, RequestsFirst: 18, RequestsEnd: 3}}},
		{Name: "drifted", Control: &summary.Control{Control: stats.Control{Verdict: stats.ControlDrifted, Drifted: true, RequestsFirst: 18, RequestsEnd: 3}}},
		{Name: "said", Control: &summary.Control{Control: stats.Control{Verdict: stats.ControlTooFew, RequestsFirst: 3, RequestsEnd: 3,
			Unjudged: "ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)"}}},
		{Name: "older", Control: &summary.Control{Control: stats.Control{Verdict: stats.ControlTooFew, RequestsFirst: 2, RequestsEnd: 2}}},
		{Name: "untested", Control: &summary.Control{Control: stats.Control{RequestsFirst: 3, RequestsEnd: 12}}},
		{Name: "off"},
	}}
	for _, tc := range []struct {
		runtime, want string
		ok            bool
	}{
		{"judged", "", false},
		{"drifted", "", false},
		{"said", "ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)", true},
		{"older", "ran 2 requests at the end against 2 at the start, the test needs 27", true},
		{"untested", "", false},
		{"off", "", false},
		{"absent", "", false},
	} {
		why, ok := controlUnjudged(f, tc.runtime)
		assert.Equal(t, tc.ok, ok, tc.runtime)
		assert.Equal(t, tc.want, why, tc.runtime)
	}
	_, ok := controlUnjudged(nil, "said")
	assert.False(t, ok, "no summary")
}

// unjudgedRuns copies the runs of testdata/runs into a folder of its own
// and makes two controls unjudged: runSteady2's ollama as a run now says
// it (unjudged_reason), runSteady1's as a file written before it did.
func unjudgedRuns(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(absRoot(t), runsDir)
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		id := strings.TrimSuffix(e.Name(), ".json")
		if reason, ok := map[string]string{
			runSteady1: "",
			runSteady2: "ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s)",
		}[id]; ok && strings.HasSuffix(e.Name(), ".json") {
			b = unjudgedControl(t, b, "ollama", reason)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	return dir
}

// unjudgedControl is the summary b with runtime's control unjudged: 3
// requests a side, and reason, if not empty.
func unjudgedControl(t *testing.T, b []byte, runtime, reason string) []byte {
	t.Helper()
	var f map[string]any
	require.NoError(t, json.Unmarshal(b, &f))
	found := false
	for _, rt := range f["runtimes"].([]any) {
		rt := rt.(map[string]any)
		if rt["name"] != runtime {
			continue
		}
		c := rt["control"].(map[string]any)
		c["verdict"], c["drifted"], c["requests_first"], c["requests_end"] = stats.ControlTooFew, false, 3, 3
		if reason != "" {
			c["unjudged_reason"] = reason
		}
		found = true
	}
	require.True(t, found, "no %s in the summary", runtime)
	out, err := json.Marshal(f)
	require.NoError(t, err)
	return out
}

// A run whose control went unjudged is said before the tables, with why,
// as a drifted one is; and -list marks it.
func TestUnjudgedControl(t *testing.T) {
	dir := unjudgedRuns(t)
	args := []string{filepath.Join(dir, runSteady1+".txt"), filepath.Join(dir, runSteady2+".txt")}
	r := runCompare(t, opts{fake: "args"}, args...)
	require.Equal(t, 0, r.code, r.stderr)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	got := fmt.Sprintf("%s\n%sexit status %d\n", strings.Join(append([]string{"$ compare"}, args...), " "), r.stderr, r.code)
	got = strings.NewReplacer(real, "$TMP", dir, "$TMP").Replace(got)
	assert.Contains(t, got, "control: NEW ($TMP/"+runSteady2+".txt): ollama's control was not judged: "+
		"ran 3 requests at the end against 3 at the start, the test needs 12 (BENCH_CONTROL_MAX=10% allowed 6s): a drift during this run would not show\n")
	assert.Contains(t, got, "control: OLD ($TMP/"+runSteady1+".txt): ollama's control was not judged: "+
		"ran 3 requests at the end against 3 at the start, the test needs 12: a drift during this run would not show\n", "a file without the reason: from its requests")
	golden(t, filepath.Join("testdata", "messages", "control-unjudged.txt"), got)

	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}, fake: "args"}, "-list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 8, r.stdout)
	assert.Regexp(t, `^`+runDrifted+`\s.*, ollama 0\.6\.5 \(control drifted\)$`, lines[1])
	assert.Regexp(t, `^`+runThree+`\s.*\s3\s+prompts=short\s+ollama 0\.7\.1$`, lines[5], "judged: no mark")
	assert.Regexp(t, `^`+runSteady1+`\s.*\s6\s+prompts=short\s+ollama 0\.7\.1 \(control unjudged\)$`, lines[6])
	assert.Regexp(t, `^`+runSteady2+`\s.*\s6\s+prompts=short\s+ollama 0\.7\.1 \(control unjudged\)$`, lines[7])
	golden(t, filepath.Join("testdata", "verdict", "list-unjudged.txt"),
		fmt.Sprintf("$ BENCH_OUTPUT_DIR=$TMP compare -list\n%sexit status %d\n", r.stdout, r.code))
}
