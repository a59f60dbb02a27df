package summary

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// Every figure of the list reads the row's value under its key, and a
// row without the key lacks it: a figure whose key no field of the row
// has fails here, not as an empty column.
func TestRowValueReadsEveryFiguresKey(t *testing.T) {
	for _, f := range figures.All {
		if f.Key == "" || f == figures.ServerMemory {
			continue // computed from other figures, or bytes: below
		}
		var r Row
		require.NoError(t, json.Unmarshal([]byte(`{"`+f.Key+`": 0.25}`), &r), f.Key)
		got := r.Value(f)
		require.NotNil(t, got, "%s: no figure of the row has key %s", f.Name, f.Key)
		assert.Equal(t, 0.25, *got, f.Name)
		assert.Nil(t, (&Row{}).Value(f), f.Name)
	}
}

// The figures the row has no key of are computed from those it has.
func TestRowValueComputed(t *testing.T) {
	x := func(v float64) *float64 { return &v }
	r := Row{TTFTMean: x(0.2), TotalMean: x(1.2), PromptTokensMean: x(400), CachedPromptTokensMean: x(100)}
	assert.InDelta(t, 1.0, *r.Value(figures.ClientDecode), 1e-12, "total − TTFT")
	assert.InDelta(t, 0.25, *r.Value(figures.CachedShare), 1e-12, "cached over prompt tokens")
	r.PromptTokensMean = x(0)
	assert.Nil(t, r.Value(figures.CachedShare), "no prompt tokens, no share")
	r.TTFTMean = nil
	assert.Nil(t, r.Value(figures.ClientDecode))
	assert.Nil(t, r.Value(figures.ServerMemory), "no memory read")
	peak := uint64(3 << 30)
	r.ServerRSSPeakBytes = &peak
	assert.InDelta(t, float64(3<<30), *r.Value(figures.ServerMemory), 0, "the row's peak bytes")
	assert.Nil(t, r.Value(figures.Figure{Key: "no_such_key"}))
}
