package e2e

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}, {[]float64{5, 5, 1, 9}, 5}} {
		assert.Equal(t, tc.want, median(tc.xs), "%v", tc.xs)
	}
	assert.True(t, math.IsNaN(median(nil)))
	xs := []float64{3, 1, 2}
	median(xs)
	assert.Equal(t, []float64{3, 1, 2}, xs, "the input is not sorted in place")
}

func TestWithin(t *testing.T) {
	assert.True(t, within(1, 0))
	assert.True(t, within(0.86, 0.15))
	assert.True(t, within(1.19, 0.20))
	assert.False(t, within(0.84, 0.15))
	assert.False(t, within(1.21, 0.20))
	assert.False(t, within(math.NaN(), 0.20), "a missing figure fails")
	assert.False(t, within(math.Inf(1), 0.20))
}
