package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/figures"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runs in testdata/runs (see testdata/README.md): real runs of the
// suite on two simulators, one playing mlx_lm.server at 480 tok/s and 35
// ms to the first token, one Ollama at 400 tok/s and 50 ms, then, as
// "0.7.0", at 340 tok/s and 60 ms.
const (
	runsDir     = "cmd/compare/testdata/runs"
	runDrifted  = "20261206T040305Z" // ollama 0.6.5, its control drifted (SIM_DEGRADE)
	runA        = "20261206T040350Z" // mlx, ollama 0.6.5
	runA2       = "20261206T040427Z" // the same again: the newest ollama 0.6.5
	runB        = "20261206T040505Z" // mlx, ollama 0.7.0: slower
	runThree    = "20261206T040546Z" // ollama 0.7.1, -count 3
	runSteady1  = "20261206T040622Z" // ollama 0.7.1
	runSteady2  = "20261206T040649Z" // ollama 0.7.1 again
	verdictLine = "verdict: "
)

// transcript runs compare with the real benchstat on the runs in
// testdata/runs and returns what a user sees: the command, stderr, stdout
// and the exit status, and the run's outcome.
func transcript(t *testing.T, args ...string) (string, outcome) {
	t.Helper()
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": runsDir}}, args...)
	return fmt.Sprintf("$ BENCH_OUTPUT_DIR=%s compare %s\n%s%sexit status %d\n",
		runsDir, strings.Join(args, " "), r.stderr, r.stdout, r.code), r
}

// verdicts returns the verdict lines of compare's output.
func verdicts(out string) []string {
	var v []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, verdictLine) {
			v = append(v, l)
		}
	}
	return v
}

// Each case is a transcript in testdata/verdict/<name>.txt, benchstat's
// tables and all (go test ./cmd/compare -update rewrites them).
func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // the verdict lines, each whole
	}{
		// The runtimes of one run side by side: ollama against mlx,
		// the first runtime, worse in every headline figure at both
		// loads: two runtimes compared, no regression of either.
		{"side-by-side", []string{runA}, 0, []string{
			"verdict: ollama vs mlx: worse: decode -16.7% at 1 user, -16.6% at 4 users; " +
				"TTFT mean +41.4% at 1 user, +42.5% at 4 users; aggregate -19.8% at 1 user, -19.7% at 4 users",
		}},
		// An upgrade, found by version: the newest run of each, ollama's
		// figures alone: 340 tok/s and 60 ms against 400 and 50.
		{"upgrade", []string{"ollama@0.6.5", "ollama@0.7.0"}, exitRegression, []string{
			"verdict: ollama 0.6.5 → 0.7.0: worse: decode -15.0% at 1 user, -15.0% at 4 users; " +
				"TTFT mean +25.4% at 1 user, +21.6% at 4 users; aggregate -17.0% at 1 user, -15.5% at 4 users",
		}},
		// Two runs of one setup.
		{"no-change", []string{runSteady1, runSteady2}, 0, nil},
		// -count 3: the table prints, the verdict is refused.
		{"too-few", []string{runB, runThree}, exitNoVerdict, []string{
			"verdict: no verdict: n=3, need 6 (go test -count=6 or more; with fewer, a change cannot be told from noise)",
		}},
		// A baseline whose control drifted is said, and not judged.
		{"drifted-baseline", []string{runDrifted, runB}, exitNoVerdict, nil},
		{"drifted-run", []string{runDrifted}, exitNoVerdict, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := transcript(t, tc.args...)
			assert.Equal(t, tc.code, r.code, "stderr:\n%s", r.stderr)
			if tc.want != nil {
				assert.Equal(t, tc.want, verdicts(r.stdout))
			}
			if r.code != exitNoVerdict {
				assertAgrees(t, r.stdout)
			}
			if tc.name == "no-change" {
				v := verdicts(r.stdout)
				require.Len(t, v, 1)
				assert.Regexp(t, `^verdict: ollama 0\.7\.1, NEW vs OLD: no change \(it would have seen decode ±\d+\.\d%, TTFT mean ±\d+\.\d%, aggregate ±\d+\.\d%\)$`, v[0])
			}
			golden(t, filepath.Join("testdata", "verdict", tc.name+".txt"), got)
		})
	}
}

// A drifted control is said before the tables and in the verdict line of
// each comparison it is part of; the comparisons it is no part of are
// judged.
func TestVerdictDrifted(t *testing.T) {
	_, r := transcript(t, runDrifted, runB)
	assert.Contains(t, r.stderr, "control: OLD ("+runsDir+"/"+runDrifted+".txt): ollama's control drifted: "+
		"its leaf runtime=ollama/prompt=short/conc=1, run again at the end of the run, moved from its first run (decode -50.0%)")
	v := verdicts(r.stdout)
	require.Len(t, v, 2, r.stdout)
	assert.True(t, strings.HasPrefix(v[0], "verdict: mlx 0.32.2 (mlx 0.32.4), NEW vs OLD: "), v[0])
	assert.NotContains(t, v[0], "drifted")
	assert.Equal(t, "verdict: ollama 0.6.5 → 0.7.0: no verdict: OLD, the baseline, drifted (decode -50.0%, see above)", v[1])

	_, r = transcript(t, runDrifted)
	v = verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Equal(t, "verdict: ollama vs mlx: no verdict: ollama's control drifted (decode -50.0%, see above)", v[0])
}

// assertAgrees checks the verdict's tests against benchstat's tables
// above it: each headline figure's p-values in the details are the
// tables' own for that unit, and a change called better or worse is one
// the table shows as a percentage, not "~", with p ≤ 0.05.
func assertAgrees(t *testing.T, out string) {
	t.Helper()
	unit := ""
	tables := map[string][]string{}
	row := regexp.MustCompile(`^Inference/\S+\s.*\s(~|[+-][0-9.]+%) \(p=([0-9.]+) n=`)
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[0] == "│" && strings.Contains(l, "vs base") {
			unit = f[1]
			continue
		}
		if m := row.FindStringSubmatch(l); m != nil {
			tables[unit] = append(tables[unit], m[2])
		}
	}
	require.NotEmpty(t, tables, "no table rows in:\n%s", out)
	detail := regexp.MustCompile(`^  (.+?) (at .+)?: .* \(p=([0-9.]+), Holm [0-9.]+\): (better|worse|no change)`)
	details := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		m := detail.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := strings.TrimSpace(m[1])
		details[name] = append(details[name], m[3])
		if m[4] != "no change" {
			p, err := strconv.ParseFloat(m[3], 64)
			require.NoError(t, err)
			assert.LessOrEqual(t, p, 0.05, "%s: called %s", l, m[4])
		}
	}
	for _, f := range headlineOrder {
		got := details[f.Name]
		if len(got) == 0 && f == figures.Decode {
			continue // the median's stand-in where there is none
		}
		want := tables[shownUnit(f.Unit)]
		slices.Sort(got)
		slices.Sort(want)
		assert.Equal(t, want, got, "%s: the details' p-values are the table's", f.Name)
	}
}

// -list shows the runs in BENCH_OUTPUT_DIR, oldest first, with their
// host, -count, work, runtimes and versions, a drifted control marked.
func TestList(t *testing.T) {
	got, r := transcript(t, "-list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 8, r.stdout)
	assert.Regexp(t, `^RUN\s+STARTED \(UTC\)\s+HOST\s+N\s+WORK\s+RUNTIMES$`, lines[0])
	assert.Regexp(t, `^`+runDrifted+`\s+2026-12-06 04:03\s+mac-mini\s+6\s+prompts=short\s+mlx 0\.32\.2 \(mlx 0\.32\.4\), ollama 0\.6\.5 \(control drifted\)$`, lines[1])
	assert.Regexp(t, `^`+runThree+`\s+2026-12-06 04:05\s+mac-mini\s+3\s+prompts=short\s+ollama 0\.7\.1$`, lines[5])
	golden(t, filepath.Join("testdata", "verdict", "list.txt"), got)

	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": "cmd/compare/testdata/messages"}}, "-list")
	assert.Equal(t, exitFail, r.code)
	assert.Equal(t, "compare: no runs in "+absRoot(t)+"/cmd/compare/testdata/messages (BENCH_OUTPUT_DIR=cmd/compare/testdata/messages): "+
		"a run writes <id>.json and <id>.txt there\n", r.stderr)

	r = runCompare(t, opts{fake: "args"}, "-list", runA)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "compare: -list takes no argument, got 1\n")
}

// NAME@VERSION is the newest run of NAME at VERSION, and compares NAME's
// rows alone; a version none ran, one that names several, or two
// runtimes are refused with the versions there are.
func TestVersionLookup(t *testing.T) {
	_, r := transcript(t, "ollama@0.6.5", "ollama@0.7.0")
	require.Equal(t, exitRegression, r.code, r.stderr)
	assert.Contains(t, r.stderr, "run: ollama@0.6.5 is "+runA2+" (mac-mini, started 2026-12-06 04:04 UTC), the newest run of ollama at 0.6.5\n")
	assert.Contains(t, r.stderr, "run: ollama@0.7.0 is "+runB+" (mac-mini, started 2026-12-06 04:05 UTC), the newest run of ollama at 0.7.0\n")
	assert.Contains(t, r.stderr, "versions: ollama 0.6.5 → 0.7.0\n", "ollama's version alone")
	assert.NotContains(t, r.stdout, "runtime=mlx", "ollama's rows alone")
	assert.Contains(t, r.stdout, "runtime=ollama/prompt=short/conc=4")

	// A run ID and a version mix; a prefix that names one version is it.
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": runsDir}, fake: "args"}, runA, "ollama@0.7.0")
	_, args := bsCallOf(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"-filter", `/runtime:"ollama"`, "--", runsDir + "/" + runA + ".txt", runsDir + "/" + runB + ".txt"}), args)
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": runsDir}, fake: "args"}, "mlx@0.32")
	_, args = bsCallOf(t, r)
	assert.Equal(t, fmt.Sprintf("%q", []string{"-col", "/runtime", "--", runsDir + "/" + runB + ".txt"}), args, "one NAME@VERSION: that run's runtimes side by side")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ollama@0.6.5", "ollama@0.9.0"},
			"compare: ollama@0.9.0: no run in " + runsDir + " has ollama at version 0.9.0; it ran at 0.6.5 (3 runs), 0.7.0 (1 run), 0.7.1 (3 runs) (see scripts/compare.sh -list)\n"},
		{[]string{"ollama@0.6.5", "ollama@0.7"},
			"compare: ollama@0.7 is ambiguous: ollama ran at 0.7.0 (1 run), 0.7.1 (3 runs); name one of them\n"},
		{[]string{"vllm@0.9.1", "ollama@0.7.0"},
			"compare: vllm@0.9.1: no run in " + runsDir + " has a runtime named vllm; their runtimes: mlx, ollama (see scripts/compare.sh -list)\n"},
		{[]string{"mlx@0.32.2", "ollama@0.7.0"},
			"compare: mlx@0.32.2 and ollama@0.7.0 name different runtimes: NAME@VERSION compares one runtime's versions; " +
				"to put two runtimes side by side, compare one run that ran both: scripts/compare.sh RUN\n"},
		{[]string{"ollama@0.7.1", runSteady2},
			"compare: ollama@0.7.1 and " + runSteady2 + " are the same run (" + runsDir + "/" + runSteady2 + ".txt): nothing to compare\n"},
	} {
		r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": runsDir}, fake: "args"}, tc.args...)
		assert.Equal(t, exitFail, r.code, "%q", tc.args)
		assert.Empty(t, r.stdout)
		assert.True(t, strings.HasSuffix(r.stderr, "\n"+tc.want) || r.stderr == tc.want, "%q: got\n%s", tc.args, r.stderr)
		assert.NotContains(t, strings.TrimSuffix(r.stderr, tc.want), "compare: ", "%q: one message", tc.args)
	}
}

// bsCallOf is what the fake benchstat saw (benchstatCall), whatever the
// exit status.
func bsCallOf(t *testing.T, r outcome) (dir, args string) {
	t.Helper()
	lines := strings.Split(r.stdout, "\n")
	require.GreaterOrEqual(t, len(lines), 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	return strings.TrimPrefix(lines[0], "dir: "), strings.TrimPrefix(lines[1], "args: ")
}
