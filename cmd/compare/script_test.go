package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// script runs bash scripts/compare.sh with args from dir, with env added
// to the environment and BENCH_OUTPUT_DIR unset unless env sets it.
func script(t *testing.T, dir string, env []string, args ...string) outcome {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH to run scripts/compare.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, append([]string{filepath.Join(absRoot(t), "scripts", "compare.sh")}, args...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BENCH_OUTPUT_DIR=") && !strings.HasPrefix(kv, fakeEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return outcome{stdout.String(), stderr.String(), code}
}

// The wrapper end to end: it builds compare, runs it from the repository
// root with relative paths taken from where it was called, and keeps its
// exit status (go run would make every failure 1).
func TestScript(t *testing.T) {
	requireGo(t) // go build, and go tool benchstat

	// 0: run IDs from a relative BENCH_OUTPUT_DIR, called from elsewhere.
	elsewhere := t.TempDir()
	r := script(t, elsewhere, []string{"BENCH_OUTPUT_DIR=cmd/compare/testdata"}, baseID, newID)
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	assert.Equal(t, len(units), strings.Count(r.stdout, "vs base"))
	assert.Contains(t, r.stdout, "cmd/compare/testdata/"+newID+".txt", "labelled from the repository root")

	// 0: a relative path from the caller's folder; one run side by side (sim2 slower than sim: a comparison, no regression).
	r = script(t, filepath.Join(absRoot(t), "cmd", "compare"), nil, "testdata/warm-old.txt")
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	assert.Regexp(t, `(?m)^\s+│\s+sim\s+│\s+sim2\s+│$`, r.stdout)

	// 4: NAME@VERSION, from elsewhere; the verdict at the end, a
	// regression, which fails a CI step.
	runs := []string{"BENCH_OUTPUT_DIR=" + runsDir}
	r = script(t, elsewhere, runs, "ollama@0.6.5", "ollama@0.7.0")
	require.Equal(t, exitRegression, r.code, "stderr:\n%s", r.stderr)
	assert.Regexp(t, `\nverdict: ollama 0\.6\.5 → 0\.7\.0: worse: [^\n]+\n(.+\n)+judged: [^\n]+\n$`, r.stdout)
	// 0: -list.
	r = script(t, elsewhere, runs, "-list")
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, runThree+"  2026-12-06 04:05  mac-mini  3  prompts=short  ollama 0.7.1\n")

	// 3: benchstat compared, but 3 samples are no verdict: a CI step
	// does not go green on them.
	r = script(t, elsewhere, runs, runB, runThree)
	assert.Equal(t, exitNoVerdict, r.code, "stderr:\n%s", r.stderr)
	assert.Contains(t, r.stdout, "vs base")
	assert.True(t, strings.HasSuffix(r.stdout, "\nverdict: no verdict: n=3, need 6 (go test -count=6 or more; with fewer, a change cannot be told from noise)\n"), r.stdout)

	// 1: a missing run names the file it looked for.
	r = script(t, elsewhere, []string{"BENCH_OUTPUT_DIR=cmd/compare/testdata"}, "20990101T000000Z")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "compare: no run 20990101T000000Z: there is no "+absRoot(t)+
		"/cmd/compare/testdata/20990101T000000Z.txt (BENCH_OUTPUT_DIR=cmd/compare/testdata)\n", r.stderr)
	assert.Empty(t, r.stdout)

	// 1: one runtime, nothing side by side.
	r = script(t, absRoot(t), nil, fixture("one-runtime.txt"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "compare: RUN (cmd/compare/testdata/one-runtime.txt) has only one runtime, sim: ")
	assert.Empty(t, r.stdout)

	// 2: usage.
	for _, args := range [][]string{{}, {"-col", "/runtime", fixture("warm-old.txt")}} {
		r = script(t, elsewhere, nil, args...)
		assert.Equal(t, 2, r.code, "args %q", args)
		assert.Contains(t, r.stderr, "usage: scripts/compare.sh OLD NEW", "args %q", args)
		assert.NotContains(t, r.stderr, "exit status", "args %q", args)
		assert.Empty(t, r.stdout)
	}

	// 0: help.
	r = script(t, elsewhere, nil, "-h")
	assert.Equal(t, 0, r.code)
	assert.Equal(t, usageText, r.stderr)
}
