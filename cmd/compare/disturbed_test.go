package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/internal/testkit"
)

// editLeafRuns rewrites the summary at path with each row's leaf runs
// as set gives them (its runtime, concurrency and the leaf runs it has).
func editLeafRuns(t *testing.T, path string, set func(r *summary.Row)) {
	t.Helper()
	f, err := summary.Read(path)
	require.NoError(t, err)
	for i := range f.Summary {
		set(&f.Summary[i])
	}
	data, err := f.Encode()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// undisturbed marks no leaf run of the summary at path disturbed, as on
// an idle machine.
func undisturbed(t *testing.T, path string) {
	editLeafRuns(t, path, func(r *summary.Row) {
		for i := range r.LeafRuns {
			r.LeafRuns[i].Disturbed, r.LeafRuns[i].Why = false, ""
		}
	})
}

// copyBusy copies the busy/ runs ids into a new folder, .txt and .json.
func copyBusy(t *testing.T, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, id := range ids {
		for _, ext := range []string{summary.ExtBench, summary.ExtJSON} {
			data := testkit.ReadFile(t, filepath.Join(root, busyDir, id+ext))
			require.NoError(t, os.WriteFile(filepath.Join(dir, id+ext), data, 0o644))
		}
	}
	return dir
}

// leafRuns are n leaf runs of a 2-core machine, the first disturbed of
// them with other processes at cores.
func leafRuns(n, disturbed int, cores float64) []summary.LeafRun {
	out := make([]summary.LeafRun, n)
	for i := range out {
		quiet := 0.05
		out[i] = summary.LeafRun{OtherCPUCores: &quiet, Cores: 2}
		if i < disturbed {
			busy := cores
			out[i] = summary.LeafRun{OtherCPUCores: &busy, Cores: 2, Disturbed: true, Why: "other processes used 0.93 of 2 cores"}
		}
	}
	return out
}

// A side that ran while another process loaded the machine is no
// verdict at that leaf, said with which runs and how much; the leaves
// where both sides ran quiet are judged. Before, the real Ollama run
// twice, a neighbour busy during the first, was called "better: … decode
// +19.5% (p=0.009) at conc 1".
func TestVerdictDisturbed(t *testing.T) {
	dir := copyBusy(t, busyFirst, busySlow)
	editLeafRuns(t, filepath.Join(dir, busyFirst+summary.ExtJSON), func(r *summary.Row) { r.LeafRuns = leafRuns(6, 0, 0) })
	editLeafRuns(t, filepath.Join(dir, busySlow+summary.ExtJSON), func(r *summary.Row) {
		r.LeafRuns = leafRuns(6, 0, 0)
		if r.Concurrency == 1 {
			r.LeafRuns = leafRuns(6, 5, 0.93)
		}
	})
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}}, busyFirst, busySlow)
	assert.Equal(t, exitRegression, r.code, "4 users, quiet on both sides, is judged: slower")
	assert.Equal(t, []string{"verdict: sim sim-1, NEW vs OLD: worse: decode p50 -9.9% at 4 users; " +
		"no verdict at 1 user: during 5 of 6 NEW leaf runs other processes used up to 0.93 of 2 cores: the machine, not only the runtime, is in its figures"},
		verdicts(r.stdout))
	assert.Contains(t, r.stdout, "\njudged: 3 tests ", "the disturbed leaf is not in the family")

	// Every leaf disturbed on one side: no verdict at all.
	editLeafRuns(t, filepath.Join(dir, busyFirst+summary.ExtJSON), func(r *summary.Row) { r.LeafRuns = leafRuns(6, 1, 0.8) })
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}}, busyFirst, busySlow)
	assert.Equal(t, exitNoVerdict, r.code)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Contains(t, v[0], "verdict: sim sim-1, NEW vs OLD: no verdict: at 1 user: during 1 of 6 OLD leaf runs other processes used up to 0.80 of 2 cores; during 5 of 6 NEW leaf runs")
	assert.Contains(t, v[0], "; at 4 users: during 1 of 6 OLD leaf runs other processes used up to 0.80 of 2 cores: the machine")
}

// testdata/marked: the busy/ pair (the second decode 10% slower) with the
// leaf runs of a Mac: at 1 user two of NEW's six ran on a throttled GPU
// (leaf_runs' mark). That leaf is no verdict, said with how; the leaf at
// 4 users, clean on both sides, is judged. A swapping OLD leaf run at 4
// users then leaves no verdict at all.
func TestVerdictMarked(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{busyFirst, busySlow} {
		for _, ext := range []string{summary.ExtBench, summary.ExtJSON} {
			data := testkit.ReadFile(t, filepath.Join(root, "cmd/compare/testdata/marked", id+ext))
			require.NoError(t, os.WriteFile(filepath.Join(dir, id+ext), data, 0o644))
		}
	}
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}}, busyFirst, busySlow)
	assert.Equal(t, exitRegression, r.code, "4 users, clean on both sides, is judged: slower")
	assert.Equal(t, []string{"verdict: sim sim-1, NEW vs OLD: worse: decode p50 -9.9% at 4 users; " +
		"no verdict at 1 user: 2 of 6 NEW leaf runs marked throttled (the GPU ran at 820 MHz while active, 59% of the run's 1398 MHz): " +
		"the machine, not only the runtime, is in its figures"},
		verdicts(r.stdout))
	assert.Contains(t, r.stdout, "\njudged: 3 tests ", "the marked leaf is not in the family")

	editLeafRuns(t, filepath.Join(dir, busyFirst+summary.ExtJSON), func(r *summary.Row) {
		if r.Concurrency == 4 {
			r.LeafRuns[2].Mark, r.LeafRuns[2].MarkWhy = summary.MarkSwapping, "swap grew by 576 MiB"
		}
	})
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": dir}}, busyFirst, busySlow)
	assert.Equal(t, exitNoVerdict, r.code)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Contains(t, v[0], "; at 4 users: 1 of 6 OLD leaf runs marked swapping (swap grew by 576 MiB): the machine")
}
