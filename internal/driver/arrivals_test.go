package driver

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Over 200 arrivals the realised rate is the one asked for, whatever the
// seed: for Poisson arrivals the worst of 200 leaves is within 5% (3.8%
// when this was written), where independent draws stray by 7% at one
// standard deviation; burstier arrivals stray more. The gaps keep their
// distribution: mean 1/r and a coefficient of variation of 1/√shape.
func TestArrivalsKeepTheRate(t *testing.T) {
	for _, tt := range []struct{ shape, bound float64 }{{1, 0.05}, {0.5, 0.08}, {4, 0.03}} {
		shape := tt.shape
		t.Run(fmt.Sprintf("burstiness=%v", shape), func(t *testing.T) {
			var worst float64
			var all []float64
			for seed := range 200 {
				a := newArrivals(64, shape, fmt.Sprintf("leaf %d", seed))
				var sum time.Duration
				for range 199 { // 200 arrivals, 199 gaps
					g := a.next()
					sum += g
					all = append(all, g.Seconds())
				}
				rate := 199 / sum.Seconds()
				worst = max(worst, math.Abs(rate/64-1))
			}
			assert.Less(t, worst, tt.bound, "the worst of 200 leaves' realised rates")
			mean, sd := meanSD(all)
			assert.InEpsilon(t, 1/64.0, mean, 0.01)
			// A gamma of shape k has a coefficient of variation 1/√k.
			assert.InEpsilon(t, 1/math.Sqrt(shape), sd/mean, 0.05)
		})
	}
	a, b := newArrivals(8, 1, "same leaf"), newArrivals(8, 1, "same leaf")
	for range 100 {
		assert.Equal(t, a.next(), b.next(), "a run repeated sends at the same times")
	}
	c := newArrivals(8, 1, "another leaf")
	assert.NotEqual(t, slices.Collect(take(a, 5)), slices.Collect(take(c, 5)))
}

func take(a *arrivals, n int) func(func(time.Duration) bool) {
	return func(yield func(time.Duration) bool) {
		for range n {
			if !yield(a.next()) {
				return
			}
		}
	}
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}
