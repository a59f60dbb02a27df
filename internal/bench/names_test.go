package bench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// A benchmark name reads back into the key that named it, with or
// without go test's prefix and GOMAXPROCS suffix.
func TestParseName(t *testing.T) {
	for _, k := range []Key{
		{Runtime: "vllm-metal", Prompt: "short", Concurrency: 4},
		{Runtime: "ollama", Prompt: "in32768", Rate: 0.5},
		{Runtime: "a_b", Prompt: "medium-long", Rate: 12.25},
		{Runtime: "sim", Prompt: "short", Concurrency: 1, API: "messages"},
		{Runtime: "ollama@0.6.5", Prompt: "short", Concurrency: 1}, // a side PRODUCT@TAG
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
		{"Inference/runtime=sim/prompt=short/conc=1/x=1", `level 4 is "x=1", want api=…`},
	} {
		_, _, err := ParseName(bad.name)
		require.Error(t, err, bad.name)
		assert.Contains(t, err.Error(), bad.want, bad.name)
	}
}

func TestKeyName(t *testing.T) {
	tests := []struct {
		key  Key
		want string
	}{
		{Key{Runtime: "vllm-metal", Prompt: "short", Concurrency: 4}, "Inference/runtime=vllm-metal/prompt=short/conc=4"},
		{Key{Runtime: "lm studio", Prompt: "a/b", Concurrency: 1}, "Inference/runtime=lm_studio/prompt=a_b/conc=1"},
		{Key{Runtime: "x\u00a0y\tz", Prompt: "bell\a", Concurrency: 2}, `Inference/runtime=x_y_z/prompt=bell\a/conc=2`},
		// The chat's leaves keep their names; another API's name it last.
		{Key{Runtime: "sim", Prompt: "short", Concurrency: 1, API: "chat"}, "Inference/runtime=sim/prompt=short/conc=1"},
		{Key{Runtime: "sim", Prompt: "short", Rate: 2, API: "embeddings"}, "Inference/runtime=sim/prompt=short/rate=2/api=embeddings"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.key.Name())
		})
	}
	k := Key{Runtime: "a", Prompt: "b", Concurrency: 1}
	assert.Equal(t, "Inference/runtime=a/prompt=b/conc=1-8", k.nameProcs(8))
	assert.Equal(t, "Inference/runtime=a/prompt=b/conc=1", k.nameProcs(1), "go test adds no suffix for GOMAXPROCS=1")
	assert.Equal(t, "prompt=b/conc=1", k.Workload())
	assert.Equal(t, "rate=0.5", Key{Rate: 0.5, Concurrency: 3}.Load(), "a rate makes an open-loop leaf")
}

func TestFormatRate(t *testing.T) {
	assert.Equal(t, "0.5", FormatRate(0.5))
	assert.Equal(t, "12", FormatRate(12))
	assert.Equal(t, "12.25", FormatRate(12.25))
}

// A side's name, ollama@0.6.5, stays one level, and benchstat's -col
// /runtime and -ignore /rep (go test's output of BENCH_ORDER=alternate)
// read it whole: its columns are the sides.
func TestSideNamesForBenchstat(t *testing.T) {
	k := Key{Runtime: "ollama@0.6.5", Prompt: "short", Concurrency: 1}
	assert.Equal(t, "runtime=ollama@0.6.5/prompt=short/conc=1", k.Levels())
	in := "Benchmark" + k.Name() + "/rep=2-2 3 1 ns/op\n" +
		"Benchmark" + Key{Runtime: "ollama@0.17.4", Prompt: "short", Concurrency: 1}.Name() + "/rep=1-2 3 1 ns/op\n"
	var p benchproc.ProjectionParser
	col, err := p.Parse("/runtime", nil)
	require.NoError(t, err)
	row, err := p.Parse(".fullname", nil)
	require.NoError(t, err)
	_, err = p.Parse("/rep", nil) // -ignore /rep
	require.NoError(t, err)
	r := benchfmt.NewReader(strings.NewReader(in), "go-test.txt")
	var cols, rows []string
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		require.True(t, ok, "%v", r.Result())
		cols = append(cols, col.Project(res).StringValues())
		rows = append(rows, row.Project(res).String())
	}
	assert.Equal(t, []string{"ollama@0.6.5", "ollama@0.17.4"}, cols)
	assert.Equal(t, rows[0], rows[1], "with /runtime and /rep projected out, both sides' runs are one row")
}
