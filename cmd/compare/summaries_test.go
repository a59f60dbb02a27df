package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	require.NoError(t, json.Unmarshal(must(os.ReadFile(src+".json")), &f))
	edit(f)
	data, err := json.Marshal(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), data, 0o644))
	return path
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
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
