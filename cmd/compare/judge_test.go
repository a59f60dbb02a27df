package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// The runs in testdata/busy (see testdata/README.md): the simulator run
// twice with nothing changed on a busy machine, and once decoding 10%
// slower.
const (
	busyDir   = "cmd/compare/testdata/busy"
	busyFirst = "20261207T141130Z"
	busyAgain = "20261207T141144Z"
	busySlow  = "20261207T141159Z"
)

func busy(t *testing.T, args ...string) outcome {
	t.Helper()
	return runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": busyDir}}, args...)
}

// Two runs of one setup on a busy machine: before the rule, "better:
// sec/op -0.6% (p=0.002) at conc 4; agg-tok/s +0.6% (p=0.002) at conc 4".
// A shift that small is no change, whatever its p-value.
func TestVerdictNothingChanged(t *testing.T) {
	r := busy(t, busyFirst, busyAgain)
	require.Equal(t, 0, r.code, r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Regexp(t, `^verdict: sim sim-1, NEW vs OLD: no change \(it would have seen decode p50 ±\d+\.\d%, TTFT mean ±\d+\.\d%, aggregate ±\d+\.\d%\)$`, v[0])
	assert.Contains(t, r.stdout, "  aggregate at 4 users: 972.1 → 978.3 tok/s, +0.6% (p=0.002, Holm 0.013): no change (beyond noise, but less than 3%)\n")
	assert.NotContains(t, r.stdout, "better")
	assertAgrees(t, r.stdout)

	// -min-effect 0: any change beyond noise is called, this one too.
	r = busy(t, "-min-effect", "0", busyFirst, busyAgain)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{"verdict: sim sim-1, NEW vs OLD: better: aggregate +0.6% at 4 users, no change at 1 user"}, verdicts(r.stdout))
}

// The simulator 10% slower: before the rule, compare exited 0 on it.
func TestVerdictRegressionFails(t *testing.T) {
	r := busy(t, busyFirst, busySlow)
	assert.Equal(t, exitRegression, r.code, r.stderr)
	assert.Equal(t, []string{"verdict: sim sim-1, NEW vs OLD: worse: decode p50 -9.9% at 1 user, -9.9% at 4 users; aggregate -6.4% at 1 user, no change at 4 users"},
		verdicts(r.stdout))
	assert.Contains(t, r.stdout, "  decode p50 at 4 users: 399.5 → 360.1 tok/s, -9.9% (p=0.002, Holm 0.013): worse\n")
	assert.Contains(t, r.stdout, "\njudged: 6 tests (decode-p50-tok/s, ttft-sec, agg-tok/s at each leaf): ")
	assertAgrees(t, r.stdout)

	// With a smallest change of 12%, a 9.9% one is not called.
	r = busy(t, "-min-effect", "12%", busyFirst, busySlow)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(beyond noise, but less than 12%)")
}

// A run compared with itself, by one path or as a copy.
func TestVerdictSameRun(t *testing.T) {
	r := busy(t, busyFirst, busyFirst)
	assert.Equal(t, exitFail, r.code)
	assert.Empty(t, r.stdout)
	want := "compare: this is the same run: OLD (" + busyDir + "/" + busyFirst + ".txt) and NEW (" + busyDir + "/" + busyFirst +
		".txt) hold the same results: nothing to compare; compare it with another run (scripts/compare.sh -list)\n"
	assert.Equal(t, want, r.stderr)

	copied := t.TempDir()
	for _, ext := range []string{".txt", ".json"} {
		data, err := os.ReadFile(filepath.Join(root, busyDir, busyFirst+ext))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(copied, busyFirst+ext), data, 0o644))
	}
	r = runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": busyDir}}, busyFirst, filepath.Join(copied, busyFirst+".txt"))
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "compare: this is the same run: ")
}

func TestMinEffectFlag(t *testing.T) {
	for _, bad := range []string{"x", "100%", "-1%", "1.5"} {
		r := runCompare(t, opts{fake: "args"}, "-min-effect", bad, "a.txt", "b.txt")
		assert.Equal(t, exitUsage, r.code, bad)
		assert.Contains(t, r.stderr, "-min-effect", bad)
		assert.Contains(t, r.stderr, "want a share below 100%: 3% or 0.03", bad)
	}
}

// Too many tests for the samples: six against six reach p = 0.0022 at
// best, and 8 leaves × 3 figures need 0.05/24 = 0.0021. Nothing can be
// called, and compare says so, with the -count that could.
func TestVerdictCannotSee(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, decode float64) string {
		var b strings.Builder
		b.WriteString("Unit decode-p50-tok/s better=higher\nUnit agg-tok/s better=higher\nUnit ttft-ns better=lower\n\n")
		for leaf := range 8 {
			for i := range 6 {
				fmt.Fprintf(&b, "BenchmarkInference/runtime=sim/prompt=p%d/conc=1-2 3 1e8 ns/op %g agg-tok/s %g decode-p50-tok/s %d ttft-ns\n",
					leaf, decode*0.8+float64(i), decode+float64(i), 50000000+i*1000)
			}
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	r := runCompare(t, opts{}, write("old.txt", 400), write("new.txt", 300))
	assert.Equal(t, exitNoVerdict, r.code, r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Equal(t, "verdict: sim, NEW vs OLD: no verdict: with 24 tests a change needs p ≤ 0.0021, which 6 against 6 samples cannot reach (0.0022 at best): run -count=7, or fewer leaves", v[0])
}

// A real Ollama 0.17.4 run twice with nothing changed, a neighbour
// burning a core through the first run's first 40 s and four other
// engineers' builds on the machine throughout (testdata/ollama-busy):
// before, compare called it "better: … agg-tok/s +204.6% (p=0.002) at
// conc 1; decode-tok/s +33.7% …" and exited 0. Every leaf run of both
// recorded the machine loaded, so there is no verdict, and it says why.
func TestVerdictRealOllamaBusy(t *testing.T) {
	r := runCompare(t, opts{env: map[string]string{"BENCH_OUTPUT_DIR": "cmd/compare/testdata/ollama-busy"}}, "20261207T150415Z", "20261207T150633Z")
	assert.Equal(t, exitNoVerdict, r.code, r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.True(t, strings.HasPrefix(v[0], "verdict: ollama 0.17.4, NEW vs OLD: no verdict: at 1 user: during 6 of 6 OLD leaf runs other processes used up to 1.76 of 2 cores;"), v[0])
	assert.NotContains(t, v[0], "better")
	assert.NotContains(t, r.stdout, "\njudged: ", "no leaf left to judge")
}

// A side of a product compared across two runs is titled by the
// product, its name after the version.
func TestVersionTitleOfASide(t *testing.T) {
	v := "0.17.4"
	f := &summary.File{Versions: map[string]*string{"ollama@0.17.4": &v}}
	files := []beside{{file: f}, {file: f}}
	assert.Equal(t, "ollama 0.17.4 (ollama@0.17.4), NEW vs OLD", versionTitle("ollama@0.17.4", files))
	assert.Equal(t, "ollama 0.17.4, NEW vs OLD", versionTitle("ollama", []beside{{file: &summary.File{Versions: map[string]*string{"ollama": &v}}}, {file: &summary.File{Versions: map[string]*string{"ollama": &v}}}}))
}
