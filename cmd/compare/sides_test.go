package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// A run of two sides of one product, sim@a and sim@b (b half as fast
// and stating another version), its leaf runs alternating, reads as one
// run's runtimes side by side: compare RUN puts the sides in columns,
// names each side's version, and has six samples a side for a verdict.
func TestSideBySideRun(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_RUNTIMES": "sim@a,sim@b", "BENCH_CONTROL": "off", "BENCH_CANARY": "off",
		"BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_MAX_TOKENS": "16",
		"SIM_TTFT": "20ms", "SIM_TOKENS_PER_SEC": "400", "SIM_B_TOKENS_PER_SEC": "200", "SIM_B_VERSION": "sim-2",
	}
	st, err := suiteconfig.LoadFrom(env)
	require.NoError(t, err)
	simCfg, err := suiteconfig.LoadSimFrom(env)
	require.NoError(t, err)
	d, err := driver.Setup(context.Background(), &bytes.Buffer{}, st, simCfg, driver.Options{Count: 6})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	for _, k := range d.LeafRuns() {
		l, _, err := d.Begin(context.Background(), k)
		require.NoError(t, err)
		l.WarmUp()
		for range 2 {
			l.Next()
		}
		require.NoError(t, l.End().SaveErr)
	}
	require.NoError(t, d.Finish())
	// The machine here is shared: as on an idle one, no leaf run counts
	// as disturbed (TestVerdictDisturbed has those).
	undisturbed(t, summary.PathsOf(dir, d.Run.ID).JSON)

	r := runCompare(t, opts{}, summary.PathsOf(dir, d.Run.ID).Bench)
	require.Equal(t, exitRegression, r.code, "two versions of one product, the new one slower: a regression; stderr:\n%s", r.stderr)
	v := verdicts(r.stdout)
	require.Len(t, v, 1, r.stdout)
	assert.Regexp(t, `^verdict: sim sim-1 → sim-2 \(sim@a → sim@b, side by side\): worse: decode p50 -\d+\.\d%`, v[0])
	assert.Contains(t, r.stderr+r.stdout, "versions: sim@a sim-1, sim@b sim-2")
	assert.Regexp(t, `│ +sim@a +│ +sim@b +│`, r.stdout, "the sides are the columns")
	assert.Regexp(t, `Inference/prompt=short/conc=1-\d+ .*n=6\)`, r.stdout, "six runs a side, one row")
	assert.NotContains(t, r.stdout, "rep=", "the .txt names each leaf run without its repetition")
	assert.Regexp(t, `decode-tok/s +vs base[^\n]*\n[^\n]* -[1-9]\d*\.\d+% \(p=`, r.stdout, "sim@b decodes slower, as the client measured it")
}

// NAME@VERSION finds a side's runs by the last '@': ollama@new@0.17.4 is
// runtime ollama@new at 0.17.4.
func TestVersionSpecOfASide(t *testing.T) {
	for arg, want := range map[string]versionSpec{
		"ollama@0.6.5":      {"ollama", "0.6.5"},
		"ollama@new@0.17.4": {"ollama@new", "0.17.4"},
	} {
		got, ok := parseVersionSpec(arg)
		assert.True(t, ok, arg)
		assert.Equal(t, want, got, arg)
	}
	for _, bad := range []string{"ollama", "@0.6.5", "ollama@", "a/b@1"} {
		_, ok := parseVersionSpec(bad)
		assert.False(t, ok, bad)
	}
}
