package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, from this package's folder.
const root = "../.."

// result is one run of compare.sh.
type result struct {
	stdout, stderr string
	code           int
}

// compare runs scripts/compare.sh with args in dir (the repository root if
// empty) and env added to the environment.
func compare(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	script, err := filepath.Abs(filepath.Join(root, "scripts", "compare.sh"))
	require.NoError(t, err)
	if dir == "" {
		dir = root
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(withoutEnv("BENCH_OUTPUT_DIR"), env...)
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
	return result{stdout.String(), stderr.String(), code}
}

// benchstat skips tests that need go tool benchstat where it cannot run.
func benchstat(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs go tool benchstat")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH for go tool benchstat")
	}
}

func withoutEnv(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

func fixture(id string) string { return "cmd/compare/testdata/" + id + ".txt" }

// benchstat's tables: one per unit, each with a header naming the files.
var units = []string{"sec/op", "ttft-sec", "agg-tok/s", "decode-tok/s", "request-tok/s", "prompt-tok/s"}

// A version change compares: one table per unit, not split by config,
// with a "vs base" column holding deltas and p-values.
func TestCompareOldNew(t *testing.T) {
	benchstat(t)
	r := compare(t, "", nil, fixture(baseID), fixture(newID))
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	out := r.stdout
	t.Logf("compare.sh %s %s:\n%s", baseID, newID, out)

	assert.Equal(t, 1, strings.Count(out, "pkg: github.com/inferencebench/inferencebench"), "one config block: nothing run-specific split the tables")
	assert.Equal(t, 1, strings.Count(out, "cpu: Apple M4 Max"))
	for _, unit := range units {
		assert.Contains(t, out, unit)
	}
	headers := regexp.MustCompile(`(?m)^\s+│\s+cmd/compare/testdata/` + baseID + `\.txt\s+│\s+cmd/compare/testdata/` + newID + `\.txt\s+│$`)
	assert.Len(t, headers.FindAllString(out, -1), len(units), "a table per unit with both runs side by side")
	assert.Equal(t, len(units), strings.Count(out, "vs base"), "every table compares")

	// vllm-metal got faster: significant deltas with a p-value. ollama did
	// not change: benchstat says so with "~".
	line := func(unit, leaf string) string {
		t.Helper()
		table := out[strings.Index(out, unit):]
		if i := strings.Index(table[1:], "\n\n"); i > 0 {
			table = table[:i+1]
		}
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, leaf+"-12 ") {
				return l
			}
		}
		t.Fatalf("no %s line for %s in:\n%s", unit, leaf, table)
		return ""
	}
	delta := regexp.MustCompile(`[+-][0-9.]+% \(p=0\.00[0-9] n=6\)`)
	for _, leaf := range []string{"Inference/runtime=vllm-metal/prompt=short/conc=1", "Inference/runtime=vllm-metal/prompt=short/conc=4"} {
		l := line("decode-tok/s", leaf)
		require.Regexp(t, delta, l)
		pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(delta.FindString(l))[0], "%"), 64)
		require.NoError(t, err)
		assert.InDelta(t, 10, pct, 2, "decode is about ten percent faster: %s", l)
		assert.Regexp(t, `-[0-9.]+% \(p=`, line("ttft-sec", leaf), "TTFT went down")
	}
	for _, unit := range units {
		for _, leaf := range []string{"Inference/runtime=ollama/prompt=short/conc=1", "Inference/runtime=ollama/prompt=short/conc=4"} {
			assert.Regexp(t, `~ \(p=[01]\.[0-9]+ n=6\)`, line(unit, leaf), "no change for ollama")
		}
	}
	assert.Regexp(t, `geomean\s.*[+-][0-9.]+%`, out)
}

// A bare run ID is read from $BENCH_OUTPUT_DIR/<id>.txt, a relative folder
// being taken from the repository root, from wherever the script is run.
func TestCompareRunIDs(t *testing.T) {
	benchstat(t)
	byPath := compare(t, "", nil, fixture(baseID), fixture(newID))
	require.Equal(t, 0, byPath.code, byPath.stderr)

	for _, dir := range []string{"", t.TempDir()} {
		r := compare(t, dir, []string{"BENCH_OUTPUT_DIR=cmd/compare/testdata"}, baseID, newID)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, byPath.stdout, r.stdout, "run in %q", dir)
	}
	abs, err := filepath.Abs(filepath.Join(root, "cmd", "compare", "testdata"))
	require.NoError(t, err)
	r := compare(t, t.TempDir(), []string{"BENCH_OUTPUT_DIR=" + abs}, baseID, newID)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, byPath.stdout, r.stdout, "absolute BENCH_OUTPUT_DIR")
}

// A relative path is taken from the caller's folder.
func TestComparePathFromElsewhere(t *testing.T) {
	benchstat(t)
	r := compare(t, filepath.Join(root, "cmd", "compare"), nil, "testdata/"+baseID+".txt", "testdata/"+newID+".txt")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "cmd/compare/testdata/"+newID+".txt", "labelled from the repository root")
	assert.Equal(t, len(units), strings.Count(r.stdout, "vs base"))

	outside := t.TempDir()
	for _, id := range []string{baseID, newID} {
		data, err := os.ReadFile(filepath.Join(root, fixture(id)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(outside, id+".txt"), data, 0o644))
	}
	r = compare(t, outside, nil, baseID+".txt", newID+".txt")
	require.Equal(t, 0, r.code, r.stderr)
	real, err := filepath.EvalSymlinks(outside)
	require.NoError(t, err)
	assert.Contains(t, r.stdout, real+"/"+newID+".txt", "a file outside the repository keeps its absolute path")
	assert.Equal(t, len(units), strings.Count(r.stdout, "vs base"))
}

// One run alone: the runtimes side by side, ollama the base.
func TestCompareSideBySide(t *testing.T) {
	benchstat(t)
	r := compare(t, "", nil, fixture(baseID))
	require.Equal(t, 0, r.code, r.stderr)
	out := r.stdout
	t.Logf("compare.sh %s:\n%s", baseID, out)

	headers := regexp.MustCompile(`(?m)^\s+│\s+ollama\s+│\s+vllm-metal\s+│$`)
	// prompt-tok/s has ollama only: vllm-metal reports no prompt timing.
	assert.Len(t, headers.FindAllString(out, -1), len(units)-1, "runtimes as columns")
	assert.Equal(t, len(units)-1, strings.Count(out, "vs base"))
	assert.Contains(t, out, "Inference/prompt=short/conc=1-12 ")
	assert.Contains(t, out, "Inference/prompt=short/conc=4-12 ")
	assert.NotContains(t, out, "runtime=", "the runtime is a column, not in the row names")
	assert.Regexp(t, `[+-][0-9.]+% \(p=0\.00[0-9] n=6\)`, out)
}

func TestCompareUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a", "b", "c"},
		{"-col", "/runtime"},
		{""},
	} {
		r := compare(t, "", nil, args...)
		assert.Equal(t, 2, r.code, "args %q", args)
		assert.Contains(t, r.stderr, "usage: scripts/compare.sh OLD NEW", "args %q", args)
		assert.Empty(t, r.stdout)
	}
	r := compare(t, "", nil, "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, "usage:")
}

func TestCompareMissing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"results/nope.txt"}, nil, "compare.sh: no such file: results/nope.txt"},
		{[]string{fixture(baseID), "nope.txt"}, nil, "compare.sh: no such file: nope.txt"},
		{[]string{"20990101T000000Z"}, nil, "compare.sh: no run 20990101T000000Z: there is no "},
		{[]string{"20990101T000000Z"}, []string{"BENCH_OUTPUT_DIR=cmd/compare/testdata"}, "/cmd/compare/testdata/20990101T000000Z.txt (BENCH_OUTPUT_DIR=cmd/compare/testdata)"},
		{[]string{"scripts"}, nil, "compare.sh: scripts is not a file"},
	} {
		r := compare(t, "", tc.env, tc.args...)
		assert.Equal(t, 1, r.code, "args %q", tc.args)
		assert.Contains(t, r.stderr, tc.want, "args %q", tc.args)
		assert.Empty(t, r.stdout)
	}
}
