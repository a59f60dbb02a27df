package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/bench"
	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// setArgument sets a key of the summary's "arguments".
func setArgument(key string, v any) func(f map[string]any) {
	return func(f map[string]any) { f["arguments"].(map[string]any)[key] = v }
}

// asItIs leaves a summary as it is (copyRun leaves it out for nil).
func asItIs(map[string]any) {}

// Two runs whose summaries differ in max_tokens did different work:
// compare names the setting with both values and exits 1 without running
// benchstat. A difference in the number of samples only compares; so does
// a run whose summary lacks the key, or has none beside it.
func TestSettingsNotComparable(t *testing.T) {
	dir := t.TempDir()
	old := copyRun(t, dir, baseID, asItIs)
	new := copyRun(t, dir, newID, setArgument("max_tokens", 256))
	r := runCompare(t, opts{fake: "args"}, old, new)
	assert.Equal(t, exitFail, r.code)
	assert.Empty(t, r.stdout, "benchstat did not run")
	assert.Equal(t, fmt.Sprintf("compare: OLD (%s) and NEW (%s) ran with different settings: their figures measure different work and do not compare\n", old, new)+
		"compare: not comparable: max_tokens 128 in OLD, 256 in NEW\n"+
		"compare: runs of different settings do not compare: they asked each request for other work (the reply's length or sampling, "+
		"the prompt, the context, the arrivals), so every figure and the canary replies change with the settings, whatever the runtime did (BENCH_MAX_TOKENS)\n",
		r.stderr)

	for _, tc := range []struct {
		name string
		edit func(map[string]any)
	}{
		{"count", setArgument("count", 10)},
		{"count, rounds, benchtime and warmups", func(f map[string]any) {
			for k, v := range map[string]any{"count": 3, "rounds": 5, "benchtime": "5x", "warmups": 0} {
				setArgument(k, v)(f)
			}
		}},
		{"no max_tokens key: written before it", func(f map[string]any) { delete(f["arguments"].(map[string]any), "max_tokens") }},
	} {
		dir := t.TempDir()
		old := copyRun(t, dir, baseID, asItIs)
		new := copyRun(t, dir, newID, tc.edit)
		r := runCompare(t, opts{fake: "args"}, old, new)
		assert.Equal(t, 0, r.code, "%s: %s", tc.name, r.stderr)
		assert.Contains(t, r.stdout, "args: ", "%s: benchstat ran", tc.name)
		assert.NotContains(t, r.stderr, "not comparable", tc.name)
	}

	// No summary beside one .txt: nothing to compare the settings with.
	dir = t.TempDir()
	old = copyRun(t, dir, baseID, nil)
	new = copyRun(t, dir, newID, setArgument("max_tokens", 256))
	r = runCompare(t, opts{fake: "args"}, old, new)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "args: ")
}

// A run with BENCH_TOOLS against one without ran other requests under
// the same benchmark names: refused as max_tokens is, the variable named.
// (A workload's sample, BENCH_WORKLOAD_N, is in its prompt's text, which
// compare checks as any prompt's.)
func TestToolsNotComparable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		edit      func(map[string]any)
		want, env string
	}{
		{"tools against none", func(f map[string]any) {
			setArgument("tools", "testdata/tools.json")(f)
			setArgument("tools_sha256", "0123456789abcdef")(f)
		}, "compare: not comparable: tools_sha256 none in OLD, 0123456789abcdef in NEW\n", "(BENCH_TOOLS)\n"},
	} {
		dir := t.TempDir()
		old := copyRun(t, dir, baseID, asItIs)
		new := copyRun(t, dir, newID, tc.edit)
		r := runCompare(t, opts{fake: "args"}, old, new)
		assert.Equal(t, exitFail, r.code, tc.name)
		assert.Empty(t, r.stdout, "%s: benchstat did not run", tc.name)
		assert.Contains(t, r.stderr, tc.want, tc.name)
		assert.True(t, strings.HasSuffix(r.stderr, tc.env), "%s: %s", tc.name, r.stderr)
	}
}

// Two goodput targets: said, and compared.
func TestSLODiffers(t *testing.T) {
	dir := t.TempDir()
	old := copyRun(t, dir, baseID, setArgument("slo", "ttft=2s"))
	new := copyRun(t, dir, newID, setArgument("slo", "ttft=1s"))
	r := runCompare(t, opts{fake: "args"}, old, new)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "\nslo: \"ttft=2s\" in OLD, \"ttft=1s\" in NEW: good-req/s counts the requests that met each run's own targets, so it does not compare; the other figures do\n")
}

// Each settings message as a transcript (TestMessages' form), the runs'
// folder shown as $TMP: files of the recorded fixtures, each with a
// summary beside it, one of them run with BENCH_MAX_TOKENS=64.
func TestSettingsMessages(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testdata, baseID+".json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, old, new string
	}{
		{"settings-max-tokens", baseID + ".txt", newID + ".txt"},
		{"settings-and-cache", "warm-old.txt", "cold.txt"},
		{"settings-and-cpu", "gotest-old.txt", "warm-new.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			for i, name := range []string{tc.old, tc.new} {
				txt, err := os.ReadFile(filepath.Join(testdata, name))
				require.NoError(t, err)
				path := filepath.Join(dir, name)
				require.NoError(t, os.WriteFile(path, txt, 0o644))
				js := src
				if i == 1 {
					js = bytes.Replace(src, []byte(`"max_tokens": 128,`), []byte(`"max_tokens": 64,`), 1)
					require.NotEqual(t, string(src), string(js))
				}
				require.NoError(t, os.WriteFile(strings.TrimSuffix(path, ".txt")+".json", js, 0o644))
				args = append(args, path)
			}
			r := runCompare(t, opts{fake: "args"}, args...)
			require.Equal(t, exitFail, r.code, "stdout:\n%s", r.stdout)
			assert.Empty(t, r.stdout, "no benchstat output")
			real, err := filepath.EvalSymlinks(dir)
			require.NoError(t, err)
			got := fmt.Sprintf("%s\n%sexit status %d\n", strings.Join(append([]string{"$ compare"}, args...), " "), r.stderr, r.code)
			got = strings.NewReplacer(real, "$TMP", dir, "$TMP").Replace(got)
			golden(t, filepath.Join("testdata", "messages", tc.name+".txt"), got)
		})
	}
}

// suiteRun runs the suite's setup against a simulator playing LM Studio
// (as nameVersionRun does), with env on top of its settings and the go
// test flags o, records one leaf and returns the path of the run's .txt.
func suiteRun(t *testing.T, srv *sim.Server, env map[string]string, o driver.Options) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_RUNTIMES": "lmstudio", "BENCH_CONTROL": "off", "LMSTUDIO_URL": srv.URL,
	}
	for k, v := range env {
		all[k] = v
	}
	st, err := suiteconfig.LoadFrom(all)
	require.NoError(t, err)
	simCfg, err := suiteconfig.LoadSimFrom(all)
	require.NoError(t, err)
	d, err := driver.Setup(context.Background(), &bytes.Buffer{}, st, simCfg, o)
	require.NoError(t, err)
	d.Run.Add(bench.Key{Runtime: "lmstudio", Model: sim.Model, Prompt: "short", Concurrency: 1},
		[]stats.Round{{Wall: time.Second, Results: []runtimes.Result{{TTFT: time.Millisecond, Total: time.Second, OutputTokens: 10, Chunks: 10}}}},
		summary.Telemetry{})
	require.NoError(t, d.Finish())
	return summary.PathsOf(dir, d.Run.ID).Bench
}

// The summaries the suite writes: BENCH_MAX_TOKENS=64 against the default
// is refused, -count 10 against 6 compares.
func TestSettingsOfSuiteRuns(t *testing.T) {
	cfg, err := suiteconfig.LoadSimFrom(map[string]string{"SIM_FLAVOR": "lmstudio", "SIM_TTFT": "1ms"})
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)

	base := suiteRun(t, srv, nil, driver.Options{Count: 6})
	r := runCompare(t, opts{fake: "args"}, base, suiteRun(t, srv, map[string]string{"BENCH_MAX_TOKENS": "64"}, driver.Options{Count: 6}))
	assert.Equal(t, exitFail, r.code)
	assert.Contains(t, r.stderr, "\ncompare: not comparable: max_tokens 128 in OLD, 64 in NEW\n")
	assert.Empty(t, r.stdout)

	// benchstat runs; the one leaf run each recorded is no verdict.
	r = runCompare(t, opts{fake: "args"}, base, suiteRun(t, srv, nil, driver.Options{Count: 10}))
	assert.Equal(t, exitNoVerdict, r.code, r.stderr)
	assert.Contains(t, r.stdout, "args: ")
	assert.Contains(t, r.stdout, "\nverdict: no verdict: n=1, need 6 ")
}
