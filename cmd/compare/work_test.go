package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// apiRuns writes, into a folder of its own, eight runs of ollama made of
// runSteady1's: four APIs at 0.17.3, the chat the newest, then the same
// four at 0.17.4, embeddings the newest; and returns the folder and the
// run IDs by "VERSION API".
func apiRuns(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(absRoot(t), runsDir, runSteady1)
	data, err := os.ReadFile(src + ".json")
	require.NoError(t, err)
	bench, err := os.ReadFile(src + ".txt")
	require.NoError(t, err)
	ids := map[string]string{}
	at := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	for _, run := range []struct{ version, api string }{
		{"0.17.3", "embeddings"}, {"0.17.3", "completions"}, {"0.17.3", "responses"}, {"0.17.3", ""},
		{"0.17.4", ""}, {"0.17.4", "completions"}, {"0.17.4", "responses"}, {"0.17.4", "embeddings"},
	} {
		at = at.Add(time.Minute)
		id := at.Format("20060102T150405Z")
		var f map[string]any
		require.NoError(t, json.Unmarshal(data, &f))
		f["run_id"], f["created_at"] = id, at.Format("2006-01-02T15:04:05.000000+00:00")
		f["versions"] = map[string]any{"ollama": run.version}
		if run.api != "" {
			f["arguments"].(map[string]any)["api"] = run.api
		}
		out, err := json.Marshal(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), out, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, id+".txt"), bench, 0o644))
		name := run.api
		if name == "" {
			name = "chat"
		}
		ids[run.version+" "+name] = id
	}
	return dir, ids
}

// -list tells runs of one runtime and version apart by their work, and a
// second NAME@VERSION takes the newest run of that version whose work is
// the first's, saying which it left out.
func TestListWork(t *testing.T) {
	dir, ids := apiRuns(t)
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}, fake: "args"}, "-list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 9, r.stdout)
	assert.Regexp(t, `^RUN\s+STARTED \(UTC\)\s+HOST\s+N\s+WORK\s+RUNTIMES$`, lines[0])
	assert.Regexp(t, `^`+ids["0.17.3 embeddings"]+`\s.*\sapi=embeddings prompts=short\s+ollama 0\.17\.3$`, lines[1])
	assert.Regexp(t, `^`+ids["0.17.3 chat"]+`\s.*\s6\s+prompts=short\s+ollama 0\.17\.3$`, lines[4], "the chat is the default: no api")
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		assert.False(t, seen[l[len(ids["0.17.3 chat"]):]], "a row like another but for its ID: %s", l)
		seen[l[len(ids["0.17.3 chat"]):]] = true
	}
	golden(t, filepath.Join("testdata", "verdict", "list-work.txt"),
		fmt.Sprintf("$ BENCH_OUTPUT_DIR=$TMP compare -list\n%sexit status %d\n", r.stdout, r.code))

	// The chat at 0.17.3 against the chat at 0.17.4, not its newest run
	// (embeddings).
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}, fake: "args"}, "ollama@0.17.3", "ollama@0.17.4")
	_, args := bsCallOf(t, r)
	assert.Contains(t, args, ids["0.17.3 chat"]+".txt")
	assert.Contains(t, args, ids["0.17.4 chat"]+".txt", "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stderr, "run: ollama@0.17.4 is "+ids["0.17.4 chat"]+" (mac-mini, started 2026-12-07 09:05 UTC), the newest run of ollama at 0.17.4 "+
		"whose work is the other side's (prompts=short kind=ollama); left out, of other work: "+
		ids["0.17.4 embeddings"]+" (api=embeddings prompts=short kind=ollama), "+ids["0.17.4 responses"]+" (api=responses prompts=short kind=ollama), "+
		ids["0.17.4 completions"]+" (api=completions prompts=short kind=ollama)\n")

	// A run ID first: its work decides too.
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}, fake: "args"}, ids["0.17.3 responses"], "ollama@0.17.4")
	_, args = bsCallOf(t, r)
	assert.Contains(t, args, ids["0.17.4 responses"]+".txt", "stderr:\n%s", r.stderr)
	assert.Regexp(t, regexp.MustCompile(`run: ollama@0\.17\.4 is `+ids["0.17.4 responses"]+` .* whose work is the other side's \(api=responses `), r.stderr)
}

// Where no run of the version did the other side's work, the newest is
// taken and the message says so and lists the others.
func TestLikeRunNone(t *testing.T) {
	dir, ids := apiRuns(t)
	runs, err := readRuns(dir, os.Stderr)
	require.NoError(t, err)
	like := *runs[0].file // 0.17.3 embeddings
	like.Arguments.API = "messages"
	r, why := likeRun(runs[4:], "ollama", &like)
	assert.Equal(t, ids["0.17.4 embeddings"], r.id)
	assert.Equal(t, ": none of its runs did the other side's work (api=messages prompts=short kind=ollama), so the newest, "+
		"whose work is api=embeddings prompts=short kind=ollama; the others: "+ids["0.17.4 responses"]+" (api=responses prompts=short kind=ollama), "+
		ids["0.17.4 completions"]+" (api=completions prompts=short kind=ollama), "+ids["0.17.4 chat"]+" (prompts=short kind=ollama)", why)
	r, why = likeRun(runs[4:], "ollama", nil)
	assert.Equal(t, ids["0.17.4 embeddings"], r.id, "no other side: the newest")
	assert.Empty(t, why)
}
