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
	assert.Len(t, better, len(figures.Reported))
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
