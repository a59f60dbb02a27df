package driver

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A leaf of n arrivals gets exactly the rate asked, whatever the seed, and
// its gaps keep their distribution: mean 1/r and a coefficient of
// variation of 1/√shape (1 for Poisson arrivals).
func TestArrivalsKeepTheRate(t *testing.T) {
	t.Parallel()
	for _, shape := range []float64{1, 0.5, 4} {
		t.Run(fmt.Sprintf("burstiness=%v", shape), func(t *testing.T) {
			t.Parallel()
			var all []float64
			for seed := range 200 {
				a := newArrivals(64, shape, fmt.Sprintf("leaf %d", seed), 200)
				var sum time.Duration
				for range 199 { // 200 arrivals, 199 gaps
					g := a.next()
					sum += g
					all = append(all, g.Seconds())
				}
				assert.InEpsilon(t, 64, 199/sum.Seconds(), 1e-6, "seed %d", seed)
			}
			mean, sd := meanSD(all)
			assert.InEpsilon(t, 1/64.0, mean, 1e-6)
			assert.InEpsilon(t, 1/math.Sqrt(shape), sd/mean, 0.05)
		})
	}
	// Where the number of arrivals is not known, the gaps are drawn one at
	// a time: independent, their mean 1/r in the long run.
	a := newArrivals(10, 1, "open-ended", 0)
	var gaps []float64
	for range 20000 {
		gaps = append(gaps, a.next().Seconds())
	}
	mean, sd := meanSD(gaps)
	assert.InEpsilon(t, 0.1, mean, 0.03)
	assert.InEpsilon(t, 1.0, sd/mean, 0.05)

	x, y := newArrivals(8, 1, "same leaf", 50), newArrivals(8, 1, "same leaf", 50)
	for range 60 {
		assert.Equal(t, x.next(), y.next(), "a run repeated sends at the same times")
	}
	assert.NotEqual(t, newArrivals(8, 1, "a leaf", 50).next(), newArrivals(8, 1, "another leaf", 50).next())
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
