package stats

import "math"

// z95 is the standard normal quantile of 0.975: a two-sided 95% interval.
const z95 = 1.959963984540054

// Wilson is the Wilson score interval of a proportion: successes out of
// n trials, at 95% (z = 1.96). Unlike the normal approximation it stays
// inside [0, 1] and is not empty at 0 or n successes (0 of 50 gives
// [0, 0.071]). n = 0 gives [0, 1]: nothing was learnt. A count outside
// 0..n is clamped into it.
func Wilson(successes, n int) (lo, hi float64) { return WilsonZ(successes, n, z95) }

// WilsonZ is Wilson at the normal quantile z (1.96 for 95%, 3.29 for
// 99.9%).
func WilsonZ(successes, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	k := min(max(successes, 0), n)
	nf, p := float64(n), float64(k)/float64(n)
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = max(centre-half, 0), min(centre+half, 1)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}
