package summary

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A benchmark name reads back into the key that named it, with or
// without go test's prefix and GOMAXPROCS suffix.
func TestParseName(t *testing.T) {
	for _, k := range []Key{
		{Runtime: "vllm-metal", Prompt: "short", Concurrency: 4},
		{Runtime: "ollama", Prompt: "in32768", Rate: 0.5},
		{Runtime: "a_b", Prompt: "medium-long", Rate: 12.25},
	} {
		for _, form := range []struct{ name, procs string }{
			{k.Name(), ""}, {"Benchmark" + k.Name() + "-2", "-2"}, {k.Name() + "-16", "-16"},
		} {
			got, procs, err := ParseName(form.name)
			require.NoError(t, err, form.name)
			assert.Equal(t, k, got, form.name)
			assert.Equal(t, form.procs, procs, form.name)
		}
	}
	for _, bad := range []struct{ name, want string }{
		{"BenchmarkOther/x=1", `want Inference/runtime=…/prompt=…/conc=… or …/rate=…`},
		{"Inference/runtime=sim/prompt=short", "want 3 levels (runtime, prompt, load), got 2"},
		{"Inference/prompt=short/runtime=sim/conc=1", `level 1 is "prompt=short", want runtime=…`},
		{"Inference/rt=sim/prompt=short/conc=1", `level 1 is "rt=sim", want runtime=…`},
		{"Inference/runtime=sim/prompt=short/load=1", `level 3 is "load=1", want conc=… or rate=…`},
		{"Inference/runtime=sim/prompt=short/conc=x", `"x" is not a number`},
	} {
		_, _, err := ParseName(bad.name)
		require.Error(t, err, bad.name)
		assert.Contains(t, err.Error(), bad.want, bad.name)
	}
}

// A run's three files are named by its ID; the records lie beside the
// summary JSON.
func TestPaths(t *testing.T) {
	p := PathsOf("results", "20261203T120000Z")
	assert.Equal(t, Paths{
		JSON:    filepath.Join("results", "20261203T120000Z.json"),
		Bench:   filepath.Join("results", "20261203T120000Z.txt"),
		Records: filepath.Join("results", "20261203T120000Z.requests.jsonl"),
	}, p)
	assert.Equal(t, p.Records, RecordsBeside(p.JSON))
}

// A file without a workload line ran what the line's absence means.
func TestAbsent(t *testing.T) {
	for key, want := range map[string]string{KeyCache: "warm", KeyTurns: "1", KeySharedPrefix: "0"} {
		v, why, ok := Absent(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, v, key)
		assert.Contains(t, why, "no "+key+" line", key)
	}
	_, _, ok := Absent("cpu")
	assert.False(t, ok)
	assert.Equal(t, "0.5", FormatRate(0.5))
	assert.Equal(t, "12", FormatRate(12))
}
