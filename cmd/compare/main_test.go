package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, from this package's folder.
const root = "../.."

// fakeEnv, set in the environment, makes the test binary a stand-in for
// benchstat (see fakeBenchstat), so that the tests of everything but
// benchstat's own output need no go command and run fast.
const fakeEnv = "COMPARE_TEST_FAKE_BENCHSTAT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeBenchstat(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeBenchstat plays benchstat: "args" prints where it runs and its
// arguments, in a table with a "vs base" column; "no-vs-base" prints a
// table without one; "exit-3" fails with status 3.
func fakeBenchstat(mode string, args []string) int {
	wd, _ := os.Getwd()
	switch mode {
	case "args":
		fmt.Printf("dir: %s\nargs: %q\n│ a │ b vs base │\n", wd, args)
		return 0
	case "no-vs-base":
		fmt.Print("cpu: AMD EPYC\n                     │ a.txt  │\n                     │ sec/op │\nInference/conc=1-2    1.000 ± 0%\n")
		return 0
	case "exit-3":
		fmt.Println("half a table")
		fmt.Fprintln(os.Stderr, "benchstat: something failed")
		return 3
	}
	fmt.Fprintf(os.Stderr, "unknown %s=%s\n", fakeEnv, mode)
	return 99
}

// outcome is one run of compare.
type outcome struct {
	stdout, stderr string
	code           int
}

// opts is how to run compare in-process.
type opts struct {
	dir  string            // -dir; empty: the repository root
	env  map[string]string // the environment compare reads (BENCH_OUTPUT_DIR)
	fake string            // fakeBenchstat's mode; empty: the real go tool benchstat
}

// runCompare runs compare in-process with args. The real benchstat needs
// the go command: without it, or with -short, the test is skipped.
func runCompare(t *testing.T, o opts, args ...string) outcome {
	t.Helper()
	p := program{lookupEnv: func(k string) (string, bool) { v, ok := o.env[k]; return v, ok }}
	if o.fake != "" {
		exe, err := os.Executable()
		require.NoError(t, err)
		t.Setenv(fakeEnv, o.fake)
		p.benchstat = []string{exe}
	} else {
		requireGo(t)
	}
	dir := o.dir
	if dir == "" {
		dir = absRoot(t)
	}
	var stdout, stderr bytes.Buffer
	p.stdout, p.stderr = &stdout, &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code := p.run(ctx, append([]string{"-dir", dir}, args...))
	return outcome{stdout.String(), stderr.String(), code}
}

// requireGo skips tests that run go tool benchstat (and go build) where
// they cannot run, or should not: go builds benchstat the first time.
func requireGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs go tool benchstat, which go builds the first time")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH, which go tool benchstat and go build need")
	}
}

// absRoot is the repository root as compare finds it: links resolved.
func absRoot(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(root)
	require.NoError(t, err)
	r, err = filepath.EvalSymlinks(r)
	require.NoError(t, err)
	return r
}

// fixture is a fixture's path from the repository root, as compare labels it.
func fixture(name string) string { return "cmd/compare/testdata/" + name }

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"a", "b", "c"},
		{"-col", "/runtime"},
		{""},
		{fixture("warm-old.txt"), "-x"},
	} {
		r := runCompare(t, opts{fake: "args"}, args...)
		assert.Equal(t, exitUsage, r.code, "args %q", args)
		assert.Contains(t, r.stderr, "usage: scripts/compare.sh OLD NEW", "args %q", args)
		assert.Empty(t, r.stdout)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		r := runCompare(t, opts{fake: "args"}, args...)
		assert.Equal(t, 0, r.code, "args %q", args)
		assert.Equal(t, usageText, r.stderr, "args %q", args)
		assert.Empty(t, r.stdout)
	}
}

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"results/nope.txt"}, nil, "compare: no such file: results/nope.txt\n"},
		{[]string{fixture("warm-old.txt"), "nope.txt"}, nil, "compare: no such file: nope.txt\n"},
		{[]string{"20990101T000000Z"}, nil,
			"compare: no run 20990101T000000Z: there is no " + absRoot(t) + "/results/20990101T000000Z.txt (BENCH_OUTPUT_DIR=results)\n"},
		{[]string{"20990101T000000Z"}, map[string]string{"BENCH_OUTPUT_DIR": "cmd/compare/testdata"},
			"compare: no run 20990101T000000Z: there is no " + absRoot(t) + "/cmd/compare/testdata/20990101T000000Z.txt (BENCH_OUTPUT_DIR=cmd/compare/testdata)\n"},
		{[]string{"20990101T000000Z"}, map[string]string{"BENCH_OUTPUT_DIR": "/nonexistent/runs"},
			"compare: no run 20990101T000000Z: there is no /nonexistent/runs/20990101T000000Z.txt (BENCH_OUTPUT_DIR=/nonexistent/runs)\n"},
		{[]string{"scripts"}, nil, "compare: scripts is not a file\n"},
		// Empty is unset, as for the run; blank is refused, as the run
		// refuses it: not the default folder.
		{[]string{"20990101T000000Z"}, map[string]string{"BENCH_OUTPUT_DIR": ""},
			"compare: no run 20990101T000000Z: there is no " + absRoot(t) + "/results/20990101T000000Z.txt (BENCH_OUTPUT_DIR=results)\n"},
		{[]string{"20990101T000000Z"}, map[string]string{"BENCH_OUTPUT_DIR": " "},
			"compare: run 20990101T000000Z: BENCH_OUTPUT_DIR is set but names no folder: unset it for results, or name one\n"},
		{[]string{"nope.txt"}, map[string]string{"BENCH_OUTPUT_DIR": ""}, "compare: no such file: nope.txt\n"},
	} {
		r := runCompare(t, opts{env: tc.env, fake: "args"}, tc.args...)
		assert.Equal(t, exitFail, r.code, "args %q", tc.args)
		assert.Equal(t, tc.want, r.stderr, "args %q", tc.args)
		assert.Empty(t, r.stdout)
	}
}

func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	p := filepath.Join(t.TempDir(), "locked.txt")
	require.NoError(t, os.WriteFile(p, nil, 0o000))
	r := runCompare(t, opts{fake: "args"}, p)
	assert.Equal(t, exitFail, r.code)
	assert.Equal(t, "compare: RUN ("+p+"): permission denied\n", r.stderr)
}

// benchstatCall is what the fake benchstat saw.
func benchstatCall(t *testing.T, r outcome) (dir, args string) {
	t.Helper()
	require.Contains(t, []int{0, exitRegression}, r.code, "a verdict; stderr:\n%s", r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.GreaterOrEqual(t, len(lines), 2, r.stdout)
	return strings.TrimPrefix(lines[0], "dir: "), strings.TrimPrefix(lines[1], "args: ")
}

// A bare run ID is read from $BENCH_OUTPUT_DIR/<id>.txt, a relative folder
// being taken from the repository root; benchstat runs from the root and
// gets the paths from there.
func TestRunIDs(t *testing.T) {
	want := fmt.Sprintf("%q", []string{"--", fixture(baseID + ".txt"), fixture(newID + ".txt")})
	for _, env := range []string{"cmd/compare/testdata", filepath.Join(absRoot(t), "cmd", "compare", "testdata")} {
		for _, dir := range []string{"", t.TempDir()} {
			r := runCompare(t, opts{dir: dir, env: map[string]string{"BENCH_OUTPUT_DIR": env}, fake: "args"}, baseID, newID)
			gotDir, args := benchstatCall(t, r)
			assert.Equal(t, absRoot(t), gotDir, "benchstat runs from the root")
			assert.Equal(t, want, args, "BENCH_OUTPUT_DIR=%s, from %q", env, dir)
		}
	}
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": "cmd/compare/testdata"}, fake: "args"}, newID)
	_, args := benchstatCall(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"-col", "/runtime", "--", fixture(newID + ".txt")}), args)
}

// A relative path is taken from -dir (scripts/compare.sh passes the folder
// it was run from); a file outside the repository keeps its absolute path.
func TestPaths(t *testing.T) {
	r := runCompare(t, opts{dir: filepath.Join(absRoot(t), "cmd", "compare"), fake: "args"},
		"testdata/"+baseID+".txt", "./testdata/../testdata/"+newID+".txt")
	_, args := benchstatCall(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"--", fixture(baseID + ".txt"), fixture(newID + ".txt")}), args, "labelled from the repository root")

	outside := t.TempDir()
	for _, name := range []string{"warm-old.txt", "nocache-old.txt"} {
		data, err := os.ReadFile(filepath.Join(root, fixture(name)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(outside, name), data, 0o644))
	}
	real, err := filepath.EvalSymlinks(outside)
	require.NoError(t, err)
	r = runCompare(t, opts{dir: outside, fake: "args"}, "nocache-old.txt", filepath.Join(outside, "warm-old.txt"))
	_, args = benchstatCall(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"-ignore", "cache", "--", real + "/nocache-old.txt", real + "/warm-old.txt"}), args,
		"absolute paths outside the repository; an old file without a cache line against a warm one ignores the key")

	// benchstat reads "label=path": a path with a "=" gets a label without.
	data, err := os.ReadFile(filepath.Join(root, fixture("warm-old.txt")))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "runtime=sim.txt"), data, 0o644))
	r = runCompare(t, opts{dir: outside, fake: "args"}, "runtime=sim.txt")
	_, args = benchstatCall(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"-col", "/runtime", "--", real + "/runtime_sim.txt=" + real + "/runtime=sim.txt"}), args)
}

// benchstat's output is printed as it is; without a "vs base" column it
// compared nothing, which fails; its own failure is passed on.
func TestBenchstatOutcome(t *testing.T) {
	r := runCompare(t, opts{fake: "no-vs-base"}, fixture("warm-old.txt"), fixture("warm-new.txt"))
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stdout, "│ sec/op │", "the output is still shown")
	assert.Equal(t, "compare: benchstat's output has no \"vs base\" column: it compared nothing\n", r.stderr)

	r = runCompare(t, opts{fake: "exit-3"}, fixture("warm-old.txt"), fixture("warm-new.txt"))
	assert.Equal(t, 3, r.code, "benchstat's status")
	assert.Equal(t, "half a table\n", r.stdout)
	assert.Equal(t, "benchstat: something failed\n", r.stderr)

	p := program{
		lookupEnv: func(string) (string, bool) { return "", false },
		stdout:    new(bytes.Buffer),
		stderr:    new(bytes.Buffer),
		benchstat: []string{filepath.Join(t.TempDir(), "no-such-benchstat")},
	}
	code := p.run(context.Background(), []string{"-dir", absRoot(t), fixture("warm-old.txt")})
	assert.Equal(t, exitFail, code)
	assert.Contains(t, p.stderr.(*bytes.Buffer).String(), "compare: go tool benchstat: fork/exec ")
}

// Outside the repository compare cannot run benchstat through go.mod.
func TestOutsideRepository(t *testing.T) {
	_, err := findRoot(t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not inside the inferencebench repository")

	got, err := findRoot(filepath.Join(absRoot(t), "cmd", "compare", "testdata"))
	require.NoError(t, err)
	assert.Equal(t, absRoot(t), got)
}
