package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareRuns(t *testing.T) {
	// Six leaf runs a side, all apart: the smallest two-sided p of the
	// rank test, 2 / C(12, 6) = 2/924.
	apart, ok := CompareRuns([]float64{400, 401, 399, 400.5, 399.5, 400.2}, []float64{480, 481, 479, 480.5, 479.5, 480.2})
	require.True(t, ok)
	assert.InDelta(t, 2.0/924, apart.P, 1e-9)
	assert.True(t, apart.Beyond())
	assert.True(t, apart.CanJudge())
	assert.Equal(t, "p=0.002 n=6", apart.String())

	// Interleaved: no change beyond noise.
	mixed, ok := CompareRuns([]float64{1, 3, 5, 7, 9, 11}, []float64{2, 4, 6, 8, 10, 12})
	require.True(t, ok)
	assert.Greater(t, mixed.P, 0.5)
	assert.False(t, mixed.Beyond())

	// Three a side cannot reach 0.05 even all apart; 4 can.
	few, ok := CompareRuns([]float64{1, 2, 3}, []float64{10, 11, 12})
	require.True(t, ok)
	assert.InDelta(t, 0.1, few.P, 1e-9)
	assert.False(t, few.CanJudge())
	assert.False(t, few.Beyond())
	assert.True(t, RunChange{N1: 4, N2: 4}.CanJudge())
	assert.Equal(t, "p=0.100 n=3", few.String())

	// Unequal sides, and values that are no number left out.
	uneven, ok := CompareRuns([]float64{1, 2, math.NaN()}, []float64{10, 11, 12, math.Inf(1)})
	require.True(t, ok)
	assert.Equal(t, 2, uneven.N1)
	assert.Equal(t, 3, uneven.N2)
	assert.Equal(t, "p=0.200 n=2+3", uneven.String())

	// Nothing on a side: no test.
	_, ok = CompareRuns(nil, []float64{1})
	assert.False(t, ok)
	_, ok = CompareRuns([]float64{math.NaN()}, []float64{1})
	assert.False(t, ok)
}
