package bench

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// The .txt reads back with benchstat's reader: every listed unit's
// direction, the configuration, and each result under its leaf's name.
func TestEncodeReadsBack(t *testing.T) {
	k := Key{Runtime: "sim", Prompt: "short", Concurrency: 4}
	config := []benchfmt.Config{{Key: "cache", Value: []byte("cold"), File: true}}
	data, err := Encode(config, []Result{{Key: k, Procs: 2, Iters: 3, Values: []benchfmt.Value{
		{Value: 1e9, Unit: "ns/op"}, {Value: 400, Unit: figures.Decode.Unit},
	}}})
	require.NoError(t, err)

	r := benchfmt.NewReader(bytes.NewReader(data), "x.txt")
	better := map[string]string{}
	var results []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.UnitMetadata:
			better[rec.OrigUnit] = rec.Value
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		}
	}
	require.NoError(t, r.Err())
	for _, f := range figures.Reported {
		_, listed := better[f.Unit]
		assert.Equal(t, !f.Tools && !f.Embeddings && !f.Quality && !f.Memory && f.Better != figures.Neither, listed,
			"%s: a Unit line for every figure but those of tool calls, of embeddings, of quality and of memory, which no result has, and the server's own decode rate, neither better nor worse", f.Unit)
	}
	assert.Len(t, better, 14)
	assert.Equal(t, "higher", better[figures.Decode.Unit])
	assert.Equal(t, "lower", better[figures.TTFTMean.Unit])
	require.Len(t, results, 1)
	assert.Equal(t, "Inference/runtime=sim/prompt=short/conc=4-2", string(results[0].Name))
	assert.Equal(t, 3, results[0].Iters)
	assert.Equal(t, "cold", results[0].GetConfig("cache"))
	v, ok := results[0].Value(figures.Decode.Unit)
	assert.True(t, ok)
	assert.Equal(t, 400.0, v)
}

// A figure of tool calls has its Unit line only in a .txt where some
// result has its unit: a run without tools writes the .txt it wrote
// before these figures existed.
func TestToolUnitsOnlyWhereReported(t *testing.T) {
	units := func(results ...Result) map[string]string {
		data, err := Encode(nil, results)
		require.NoError(t, err)
		r := benchfmt.NewReader(bytes.NewReader(data), "x.txt")
		better := map[string]string{}
		for r.Scan() {
			if md, ok := r.Result().(*benchfmt.UnitMetadata); ok {
				better[md.OrigUnit] = md.Value
			}
		}
		require.NoError(t, r.Err())
		return better
	}
	k := Key{Runtime: "sim", Prompt: "short", Concurrency: 1}
	plain := Result{Key: k, Procs: 2, Iters: 1, Values: []benchfmt.Value{{Value: 1e9, Unit: "ns/op"}}}
	tools := plain
	tools.Values = append(tools.Values, benchfmt.Value{Value: 0.5, Unit: figures.ToolArgsValid.Unit})

	without := units(plain)
	assert.NotContains(t, without, figures.ToolArgsValid.Unit)
	assert.NotContains(t, without, figures.ToolCallReplies.Unit)
	assert.NotContains(t, without, figures.TTFToolCallMean.Unit)
	assert.Contains(t, without, figures.Goodput.Unit, "the other figures' lines stay, reported or not")

	with := units(plain, tools)
	assert.Equal(t, "higher", with[figures.ToolArgsValid.Unit])
	assert.NotContains(t, with, figures.ToolCallReplies.Unit, "only the units some result has")
	assert.Len(t, with, len(without)+1)
}
