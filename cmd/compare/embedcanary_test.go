package main

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	suiteconfig "github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/driver"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

// embedRun runs one embeddings leaf (two -count repetitions, each with
// its canary) against a simulator of SIM_TEXT_SEED seed, through the
// suite's driver, and returns the path of the run's .txt.
func embedRun(t *testing.T, seed string) string {
	t.Helper()
	cfg, err := suiteconfig.LoadSimFrom(map[string]string{"SIM_TTFT": "1ms", "SIM_TEXT_SEED": seed})
	require.NoError(t, err)
	srv, err := sim.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	env := map[string]string{
		"BENCH_OUTPUT_DIR": dir, "BENCH_RUNTIMES": "vllm", "VLLM_URL": srv.URL, "BENCH_API": "embeddings",
		"BENCH_CONTROL": "off", "BENCH_PROMPTS": "short", "BENCH_CONCURRENCY": "1", "BENCH_WARMUPS": "1", "BENCH_PROGRESS": "off",
	}
	st, err := suiteconfig.LoadFrom(env)
	require.NoError(t, err)
	simCfg, err := suiteconfig.LoadSimFrom(env)
	require.NoError(t, err)
	var log bytes.Buffer
	d, err := driver.Setup(context.Background(), &log, st, simCfg, driver.Options{Count: 2})
	require.NoError(t, err)
	keys := slices.Collect(d.Leaves())
	require.Len(t, keys, 1)
	for range 2 {
		l, _, err := d.Begin(context.Background(), keys[0])
		require.NoError(t, err)
		l.WarmUp()
		l.Next()
		out := l.End()
		assert.Empty(t, out.Notes, "one server, one embedding: nothing said")
	}
	require.NoError(t, d.Finish())
	return summary.PathsOf(dir, d.Run.ID).Bench
}

// An embeddings run's canary is its vector: a simulator whose model
// changed (another SIM_TEXT_SEED: every vector changes) is said by
// compare, as a changed chat reply is; the same model again is not.
// (The canary used to be the SHA-256 of the reply's empty text, the same
// whatever the vectors.)
func TestEmbeddingsCanaryChange(t *testing.T) {
	before, same, changed := embedRun(t, "0"), embedRun(t, "0"), embedRun(t, "7")

	r := runCompare(t, opts{fake: "args"}, before, changed)
	out := r.stdout + r.stderr
	assert.Regexp(t, `vllm: canary reply of prompt short changed in its embedding: cosine -?0\.\d{4} to the earlier one's \(its first 8 numbers; the same model gives 0\.9999 or more\)`, out)

	r = runCompare(t, opts{fake: "args"}, before, same)
	assert.NotContains(t, r.stdout+r.stderr, "canary reply", "the same model: the same vector")

	f, err := summary.Read(before[:len(before)-len(summary.ExtBench)] + summary.ExtJSON)
	require.NoError(t, err)
	require.Len(t, f.Summary, 1)
	c := f.Summary[0].Canary
	require.NotNil(t, c)
	require.NotNil(t, c.Embedding, "the row keeps the vector")
	assert.Equal(t, sim.EmbedDims, c.Embedding.Dims)
	assert.Len(t, c.Embedding.First, sim.EmbedDims)
	assert.Empty(t, c.TextSHA256, "no hash of an empty text")
}
