package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
)

// The fixtures in testdata are described in testdata/README.md.

// read reads a fixture as compare does, in role.
func read(t *testing.T, role, name string) *runFile {
	t.Helper()
	in, err := resolve(name, filepath.Join(absRoot(t), "cmd", "compare", "testdata"), absRoot(t), "results", nil)
	require.NoError(t, err)
	in.role = role
	r, err := readRun(in, "")
	require.NoError(t, err)
	return r
}

func TestReadRun(t *testing.T) {
	for _, tc := range []struct {
		name             string
		results, configs int
		syntax           int
		cache            string // the cache line's value, "" if none
		cpu              string
	}{
		{"warm-old.txt", 12, 1, 0, "warm", "AMD EPYC"},
		{"nocache-old.txt", 12, 1, 0, "", "AMD EPYC"},
		{"cold.txt", 12, 1, 0, "cold", "AMD EPYC"},
		{"gotest-old.txt", 12, 1, 0, "", "Oxide Virtual Turin-like Processor             "},
		{"one-runtime.txt", 6, 1, 0, "warm", "AMD EPYC"},
		{"unreachable.txt", 0, 0, 0, "", ""},
		{"empty.txt", 0, 0, 0, "", ""},
		{"truncated.txt", 0, 0, 1, "", ""},
		{"20261201T021700Z.json", 0, 0, 0, "", ""},
		{baseID + ".txt", 24, 1, 0, "", "Apple M4 Max"},
	} {
		r := read(t, "RUN", tc.name)
		assert.Len(t, r.results, tc.results, tc.name)
		assert.Len(t, r.configs, tc.configs, tc.name)
		assert.Len(t, r.syntax, tc.syntax, tc.name)
		if tc.configs == 1 {
			v, ok := r.configs[0].lookup(cacheKey)
			assert.Equal(t, tc.cache != "", ok, tc.name)
			assert.Equal(t, tc.cache, v, tc.name)
			v, _ = r.configs[0].lookup("cpu")
			assert.Equal(t, tc.cpu, v, tc.name)
		}
	}
}

// Each check on a pair of fixtures: the benchstat arguments when it
// passes, else the start of the failure's first line and of its others.
func TestCheckPair(t *testing.T) {
	for _, tc := range []struct {
		old, new string
		args     []string // benchstat's, before the files
		fail     []string
	}{
		{"warm-old.txt", "warm-new.txt", []string{"--"}, nil},
		{baseID + ".txt", newID + ".txt", []string{"--"}, nil},
		{"nocache-old.txt", "warm-new.txt", []string{"-ignore", "cache", "--"}, nil},
		{"warm-new.txt", "nocache-old.txt", []string{"-ignore", "cache", "--"}, nil},
		{"nocache-old.txt", "nocache-old.txt", []string{"--"}, nil},

		// 1. no results
		{"unreachable.txt", "warm-new.txt", nil, []string{"OLD (cmd/compare/testdata/unreachable.txt) has no benchmark results (a run writes none"}},
		{"warm-old.txt", "empty.txt", nil, []string{"NEW (cmd/compare/testdata/empty.txt) has no benchmark results (the file is empty)"}},
		{"empty.txt", "truncated.txt", nil, []string{
			"OLD (cmd/compare/testdata/empty.txt) has no benchmark results (the file is empty)",
			"NEW (cmd/compare/testdata/truncated.txt) has no benchmark results (benchfmt could not read 1 result line of it; the first: cmd/compare/testdata/truncated.txt:6: missing units)",
		}},
		{"warm-old.txt", "20261202T021700Z.json", nil, []string{"NEW (cmd/compare/testdata/20261202T021700Z.json) has no benchmark results (it is not in the benchmark format"}},

		// 2. configuration
		{"gotest-old.txt", "warm-new.txt", nil, []string{
			"OLD (cmd/compare/testdata/gotest-old.txt) and NEW (cmd/compare/testdata/warm-new.txt) ran in different configurations",
			`cpu differs: "Oxide Virtual Turin-like Processor" in OLD (cmd/compare/testdata/gotest-old.txt) against "AMD EPYC" in NEW (cmd/compare/testdata/warm-new.txt)`,
			"to compare them anyway: go tool benchstat -ignore cache,cpu cmd/compare/testdata/gotest-old.txt cmd/compare/testdata/warm-new.txt",
		}},
		{"warm-old.txt", "cold.txt", nil, []string{
			"OLD (cmd/compare/testdata/warm-old.txt) and NEW (cmd/compare/testdata/cold.txt) ran in different configurations",
			`cache differs: "warm" in OLD (cmd/compare/testdata/warm-old.txt) against "cold" in NEW (cmd/compare/testdata/cold.txt)`,
			"cold and warm runs do not compare: a cold run's TTFT includes the whole prompt's prefill",
		}},
		{"cold.txt", "nocache-old.txt", nil, []string{
			"OLD (cmd/compare/testdata/cold.txt) and NEW (cmd/compare/testdata/nocache-old.txt) ran in different configurations",
			`cache differs: "cold" in OLD (cmd/compare/testdata/cold.txt) against "warm" (no cache line: written before the key existed) in NEW (cmd/compare/testdata/nocache-old.txt)`,
			"cold and warm runs do not compare",
		}},
		{"cold.txt", "turns4.txt", nil, []string{
			"OLD (cmd/compare/testdata/cold.txt) and NEW (cmd/compare/testdata/turns4.txt) ran in different configurations",
			`turns differs: "1" (no turns line: single requests) in OLD (cmd/compare/testdata/cold.txt) against "4" in NEW (cmd/compare/testdata/turns4.txt)`,
			"runs of different conversations do not compare: a later turn's TTFT includes its history",
		}},
		{"embed1.txt", "embed4.txt", nil, []string{
			"OLD (cmd/compare/testdata/embed1.txt) and NEW (cmd/compare/testdata/embed4.txt) ran in different configurations",
			`embed-batch differs: "1" (no embed-batch line: one input a request) in OLD (cmd/compare/testdata/embed1.txt) against "4" in NEW (cmd/compare/testdata/embed4.txt)`,
			"embeddings runs of different batch sizes do not compare: a request of more inputs is more work (BENCH_EMBED_BATCH); to set the sizes side by side: go tool benchstat -col embed-batch cmd/compare/testdata/embed1.txt cmd/compare/testdata/embed4.txt",
		}},
		{"gotest-old.txt", "cold.txt", nil, []string{
			"OLD (cmd/compare/testdata/gotest-old.txt) and NEW (cmd/compare/testdata/cold.txt) ran in different configurations",
			`cpu differs: "Oxide Virtual Turin-like Processor" in OLD`,
			`cache differs: "warm" (no cache line: written before the key existed) in OLD`,
			"cold and warm runs do not compare",
		}},
		{baseID + ".txt", "warm-new.txt", nil, []string{
			"OLD (cmd/compare/testdata/20261201T021700Z.txt) and NEW (cmd/compare/testdata/warm-new.txt) ran in different configurations",
			`goos differs: "darwin" in OLD`,
			`goarch differs: "arm64" in OLD`,
			`cpu differs: "Apple M4 Max" in OLD`,
			"to compare them anyway: go tool benchstat -ignore cache,goos,goarch,cpu ",
		}},

		// 3. names
		{"warm-old.txt", "code.txt", nil, []string{
			"OLD (cmd/compare/testdata/warm-old.txt) and NEW (cmd/compare/testdata/code.txt) have no benchmark in common: benchstat would compare nothing",
			"OLD has Inference/runtime=sim/prompt=short/conc=1 and Inference/runtime=sim2/prompt=short/conc=1",
			"NEW has Inference/runtime=sim/prompt=code/conc=1 and Inference/runtime=sim2/prompt=code/conc=1",
		}},
		{"warm-old.txt", "procs4.txt", nil, []string{
			"OLD (cmd/compare/testdata/warm-old.txt) and NEW (cmd/compare/testdata/procs4.txt) have no benchmark in common: their names differ in the GOMAXPROCS suffix (-2 in OLD, -4 in NEW)",
			"a different GOMAXPROCS means another machine or another CPU limit; to compare them anyway: go tool benchstat -ignore /gomaxprocs cmd/compare/testdata/warm-old.txt cmd/compare/testdata/procs4.txt",
		}},
	} {
		old, new := read(t, "OLD", tc.old), read(t, "NEW", tc.new)
		args, err := checkPair(old, new, nil)
		if tc.fail == nil {
			if assert.NoError(t, err, "%s %s", tc.old, tc.new) {
				assert.Equal(t, append(tc.args, old.label, new.label), args, "%s %s", tc.old, tc.new)
			}
			continue
		}
		var f failure
		if !assert.ErrorAs(t, err, &f, "%s %s", tc.old, tc.new) {
			continue
		}
		assertLines(t, tc.fail, f, "%s %s", tc.old, tc.new)
	}
}

// assertLines checks that each line of got starts with the line of want.
func assertLines(t *testing.T, want []string, got failure, msgAndArgs ...any) {
	t.Helper()
	if assert.Len(t, got, len(want), msgAndArgs...) {
		for i := range want {
			assert.True(t, strings.HasPrefix(got[i], want[i]), "line %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}

func TestCheckOne(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		fail []string
	}{
		{"warm-old.txt", []string{"-col", "/runtime", "--"}, nil},
		{"gotest-old.txt", []string{"-col", "/runtime", "--"}, nil},
		{baseID + ".txt", []string{"-col", "/runtime", "--"}, nil},

		// 1. no results
		{"unreachable.txt", nil, []string{"RUN (cmd/compare/testdata/unreachable.txt) has no benchmark results ("}},
		// 4. one runtime
		{"one-runtime.txt", nil, []string{"RUN (cmd/compare/testdata/one-runtime.txt) has only one runtime, sim: nothing to put side by side; compare it with another run: scripts/compare.sh OLD NEW"}},
		// 3. nothing in common
		{"split-runtimes.txt", nil, []string{
			"RUN (cmd/compare/testdata/split-runtimes.txt) has no benchmark that two of its runtimes ran: nothing to put side by side",
			"sim ran Inference/prompt=short/conc=1",
			"sim2 ran Inference/prompt=code/conc=1",
		}},
	} {
		r := read(t, "RUN", tc.name)
		args, err := checkOne(r)
		if tc.fail == nil {
			if assert.NoError(t, err, tc.name) {
				assert.Equal(t, append(tc.args, r.label), args, tc.name)
			}
			continue
		}
		var f failure
		if assert.ErrorAs(t, err, &f, tc.name) {
			assertLines(t, tc.fail, f, tc.name)
		}
	}
}

// Results of go test -bench without runtime= in their names have one
// runtime as far as -col /runtime goes: its blank value.
func TestCheckOneWithoutRuntimes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plain.txt")
	require.NoError(t, os.WriteFile(p, []byte("goos: linux\nBenchmarkEncode/format=json-2 100 1726 ns/op\nBenchmarkEncode/format=gob-2 100 3069 ns/op\n"), 0o644))
	in, err := resolve(p, "/", absRoot(t), "results", nil)
	require.NoError(t, err)
	in.role = "RUN"
	r, err := readRun(in, "")
	require.NoError(t, err)
	_, err = checkOne(r)
	assert.EqualError(t, err, "RUN ("+in.label+") has only one runtime (its benchmark names have no runtime=): nothing to put side by side")
}

// A file with both a cold and a warm part, as two runs' output pasted
// together would be, compares its warm part with a warm run. Against a file
// without a cache line it compares nothing: ignoring the key would mix its
// cold part in, and benchstat has no other way to read no line as warm.
func TestMixedCacheInOneFile(t *testing.T) {
	warm, err := os.ReadFile(filepath.Join(root, fixture("warm-old.txt")))
	require.NoError(t, err)
	cold, err := os.ReadFile(filepath.Join(root, fixture("cold.txt")))
	require.NoError(t, err)
	both := filepath.Join(t.TempDir(), "both.txt")
	require.NoError(t, os.WriteFile(both, append(cold, warm...), 0o644))

	old, new := read(t, "OLD", "warm-new.txt"), read(t, "NEW", both)
	args, err := checkPair(old, new, nil)
	require.NoError(t, err, "the warm part compares")
	assert.Equal(t, []string{"--", old.label, new.label}, args)

	old = read(t, "OLD", "nocache-old.txt")
	assert.False(t, mixedCache([]*runFile{old, new}), "cold in the mix: no -ignore cache")
	_, err = checkPair(old, new, nil)
	var f failure
	require.ErrorAs(t, err, &f)
	assertLines(t, []string{
		"OLD (cmd/compare/testdata/nocache-old.txt) and NEW (" + new.label + ") ran in different configurations",
		`cache differs: "warm" (no cache line: written before the key existed) in OLD (cmd/compare/testdata/nocache-old.txt) against "cold" and "warm" in NEW`,
		"cold and warm runs do not compare",
	}, f)
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ name, runtime, without, stripped, procs string }{
		{"Inference/runtime=sim/prompt=short/conc=1-2", "sim", "Inference/prompt=short/conc=1-2", "Inference/runtime=sim/prompt=short/conc=1", "-2"},
		{"Inference/runtime=vllm-metal/prompt=code/conc=16-12", "vllm-metal", "Inference/prompt=code/conc=16-12", "Inference/runtime=vllm-metal/prompt=code/conc=16", "-12"},
		{"Inference/runtime=sim/prompt=short/conc=1", "sim", "Inference/prompt=short/conc=1", "Inference/runtime=sim/prompt=short/conc=1", ""},
		{"Encode/format=json-48", "", "Encode/format=json-48", "Encode/format=json", "-48"},
	} {
		n := benchfmt.Name(tc.name)
		assert.Equal(t, tc.runtime, runtimeOf(n), tc.name)
		assert.Equal(t, tc.without, withoutRuntime(n), tc.name)
		assert.Equal(t, tc.stripped, stripProcs(tc.name), tc.name)
		assert.Equal(t, tc.procs, procsSuffix(tc.name), tc.name)
	}
}

func TestHelpers(t *testing.T) {
	assert.Equal(t, "", list(nil))
	assert.Equal(t, "a", list([]string{"a"}))
	assert.Equal(t, "a and b", list([]string{"a", "b"}))
	assert.Equal(t, "a, b and c", list([]string{"a", "b", "c"}))
	assert.Equal(t, "a, b, c and 2 more", list([]string{"a", "b", "c", "d", "e"}))

	assert.Equal(t, "results/x.txt", shellQuote("results/x.txt"))
	assert.Equal(t, "'/tmp/my runs/x.txt'", shellQuote("/tmp/my runs/x.txt"))
	assert.Equal(t, `'it'\''s.txt'`, shellQuote("it's.txt"))

	assert.Equal(t, "results/x.txt", fileArg("results/x.txt"))
	assert.Equal(t, "runs/runtime_sim.txt=runs/runtime=sim.txt", fileArg("runs/runtime=sim.txt"))
}
