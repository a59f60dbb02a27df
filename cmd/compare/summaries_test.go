package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/canary"
	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyRun copies the fixture run id into dir, its summary edited by edit
// (nil: the summary left out), and returns the .txt's path.
func copyRun(t *testing.T, dir, id string, edit func(f map[string]any)) string {
	t.Helper()
	src := filepath.Join(absRoot(t), "cmd", "compare", "testdata", id)
	txt, err := os.ReadFile(src + ".txt")
	require.NoError(t, err)
	path := filepath.Join(dir, id+".txt")
	require.NoError(t, os.WriteFile(path, txt, 0o644))
	if edit == nil {
		return path
	}
	var f map[string]any
	require.NoError(t, json.Unmarshal(testkit.Must(os.ReadFile(src+".json")), &f))
	edit(f)
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), data, 0o644))
	return path
}

// setCanary gives the runtime's rows of prompt short the canary reply text,
// and the runtime the version.
func setCanary(runtime, version, text string) func(f map[string]any) {
	return func(f map[string]any) {
		f["versions"].(map[string]any)[runtime] = version
		for _, r := range f["summary"].([]any) {
			row := r.(map[string]any)
			if row["runtime"] == runtime && row["prompt"] == "short" {
				row["canary"] = map[string]any{"text_sha256": "sha of " + text, "output_tokens": 3, "text": text}
			}
		}
	}
}

// Before benchstat's tables, compare says each runtime's versions, and
// which canary replies changed with them (once a reply, whatever the
// load), from the summaries beside the .txt files.
func TestVersionsAndCanaryChanges(t *testing.T) {
	dir := t.TempDir()
	old := copyRun(t, dir, baseID, setCanary("ollama", "0.6.5", "The answer is yes."))
	new := copyRun(t, dir, newID, setCanary("ollama", "0.7.0", "The answer is no."))
	r := runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	require.Len(t, lines, 2, r.stderr)
	assert.Regexp(t, `^versions: .*ollama 0\.6\.5 → 0\.7\.0`, lines[0])
	assert.Contains(t, lines[0], "vllm-metal ", "every runtime is named")
	assert.Equal(t, "canary: ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at character 15", lines[1])
	// The verdict line of the runtime says it; the other's does not.
	v := verdicts(r.stdout)
	require.Len(t, v, 2, r.stdout)
	assert.Equal(t, "verdict: ollama 0.6.5 → 0.7.0: no change (it would have seen decode p50 ±3.0%, TTFT mean ±3.0%, aggregate ±3.0%); its canary reply changed (see above)", v[0])
	assert.True(t, strings.HasPrefix(v[1], "verdict: vllm-metal 0.28.0+cpu → 0.29.1: better: "), v[1])
	assert.NotContains(t, v[1], "canary")

	// The same version, the same reply: versions once, no canary line.
	dir = t.TempDir()
	old = copyRun(t, dir, baseID, setCanary("ollama", "0.6.5", "Same."))
	new = copyRun(t, dir, newID, setCanary("ollama", "0.6.5", "Same."))
	r = runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "ollama 0.6.5,")
	assert.NotContains(t, r.stderr, "canary")

	// A .txt without its summary: nothing to say, and no error.
	dir = t.TempDir()
	old = copyRun(t, dir, baseID, nil)
	new = copyRun(t, dir, newID, nil)
	r = runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)

	// A summary beside that cannot be read is named, and benchstat still
	// compares the .txt files.
	dir = t.TempDir()
	old = copyRun(t, dir, baseID, nil)
	new = copyRun(t, dir, newID, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, newID+".json"), []byte("{"), 0o644))
	r = runCompare(t, opts{fake: "args"}, old, new)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, newID+".txt): the summary beside it:")
	assert.Contains(t, r.stderr, "no versions or canary replies from it")
	assert.Contains(t, r.stdout, "args: ", "benchstat ran")
}

// A reply that changed after the 2,000 characters a row keeps: placed
// exactly from the canary's request record beside each summary; with a
// records file that cannot be read, named, by the rows' texts.
func TestCanaryChangeAfterTheKeptText(t *testing.T) {
	long := strings.Repeat("abcdefghij", 250)
	changed := long[:2299] + "X" + long[2300:]
	withRecords := func(dir, id, version, text string) string {
		path := copyRun(t, dir, id, func(f map[string]any) {
			c := canary.New(text, 500)
			setCanary("ollama", version, c.Text)(f)
			for _, r := range f["summary"].([]any) {
				if row := r.(map[string]any); row["runtime"] == "ollama" && row["prompt"] == "short" {
					row["canary"].(map[string]any)["text_sha256"] = c.TextSHA256
				}
			}
		})
		recs, err := records.Append(nil, []records.Record{{Runtime: "ollama", Prompt: "short", Concurrency: 1, Count: 1, Canary: true, OutputTokens: 500, Text: &text}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+summary.ExtRecords), recs, 0o644))
		return path
	}
	dir := t.TempDir()
	old := withRecords(dir, baseID, "0.6.5", long)
	new := withRecords(dir, newID, "0.6.5", changed)
	r := runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "\ncanary: ollama: canary reply of prompt short changed at character 2300 (same version 0.6.5)\n")

	require.NoError(t, os.WriteFile(filepath.Join(dir, newID+summary.ExtRecords), []byte(`{"canary": true, "text": 5}`+"\n{}\n"), 0o644))
	r = runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, newID+".txt): the request records beside it: ")
	assert.Contains(t, r.stderr, "its canary replies compared by the first 2,000 characters its rows keep")
	assert.Contains(t, r.stderr, "\nversions: ")
	assert.Contains(t, r.stderr, "\ncanary: ollama: canary reply of prompt short changed after character 2000 (the first 2000 are the same) (same version 0.6.5)\n")
}

// NAME@VERSION compares NAME alone: the versions and canary lines of the
// runs' other runtimes are not said.
func TestVersionLookupNotesOneRuntime(t *testing.T) {
	dir := t.TempDir()
	both := func(ollama, metal string) func(f map[string]any) {
		return func(f map[string]any) {
			setCanary("ollama", ollama, "Same.")(f)
			setCanary("vllm-metal", "0.29.1", metal)(f)
		}
	}
	copyRun(t, dir, baseID, both("0.6.5", "The answer is yes."))
	copyRun(t, dir, newID, both("0.7.0", "The answer is no."))
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}, fake: "args"}, "ollama@0.6.5", "ollama@0.7.0")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "\nversions: ollama 0.6.5 → 0.7.0\n")
	assert.NotContains(t, r.stderr, "vllm-metal")
	assert.Equal(t, []string{"verdict: ollama 0.6.5 → 0.7.0: no change (it would have seen decode p50 ±3.0%, TTFT mean ±3.0%, aggregate ±3.0%)"}, verdicts(r.stdout))
}
