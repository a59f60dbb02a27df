package stats

import (
	"math"
	"testing"
)

// The Wilson interval against values worked by hand from its formula
// (and R's prop.test(correct=FALSE) for 8 of 10: 0.4902, 0.9433).
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4902, 0.9433},
		{0, 50, 0, 0.0713},
		{50, 50, 0.9287, 1},
		{45, 50, 0.7864, 0.9565},
		{0, 0, 0, 1},
		{-3, 10, 0, 0.2775}, // clamped to 0 of 10
	} {
		lo, hi := Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// A wider z gives a wider interval around the same share.
func TestWilsonZWidens(t *testing.T) {
	lo95, hi95 := Wilson(90, 100)
	lo999, hi999 := WilsonZ(90, 100, 3.29)
	if !(lo999 < lo95 && hi999 > hi95) {
		t.Errorf("99.9%% [%.4f, %.4f] does not contain 95%% [%.4f, %.4f]", lo999, hi999, lo95, hi95)
	}
}
