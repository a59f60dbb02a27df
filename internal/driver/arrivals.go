package driver

import (
	"hash/fnv"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// arrivals are the gaps between the arrivals of an open-loop leaf: a
// renewal process of rate r whose gaps follow a gamma distribution of
// shape k and mean 1/r (k = 1: a Poisson process; k < 1 burstier, k > 1
// steadier), as vLLM's --request-rate and --burstiness.
//
// When the leaf's number of arrivals n is known (-benchtime=Nx), its n−1
// gaps are drawn at once and scaled together so that they add up to
// exactly (n−1)/r: each gap keeps its distribution's shape, but the leaf
// gets the rate asked, where 200 independent Poisson gaps stray by 7% at
// one standard deviation, so that two runs, or two runtimes, get the same
// load. Otherwise the gaps are drawn one at a time. The generator is
// seeded from the leaf's name: a run repeated sends at the same times.
type arrivals struct {
	dist  distuv.Gamma
	rng   *rand.Rand
	gaps  []float64 // drawn ahead and scaled, for a known n
	drawn int       // how many next returned
}

func newArrivals(rate, shape float64, seed string, n int) *arrivals {
	h := fnv.New64a()
	h.Write([]byte(seed))
	s := h.Sum64()
	a := &arrivals{
		dist: distuv.Gamma{Alpha: shape, Beta: shape * rate},
		rng:  rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)),
	}
	if n > 1 {
		a.gaps = make([]float64, n-1)
		sum := 0.0
		for i := range a.gaps {
			a.gaps[i] = a.draw()
			sum += a.gaps[i]
		}
		scale := float64(n-1) / rate / sum
		for i := range a.gaps {
			a.gaps[i] *= scale
		}
	}
	return a
}

func (a *arrivals) draw() float64 { return a.dist.Quantile(a.rng.Float64()) }

// next returns the gap before the next arrival.
func (a *arrivals) next() time.Duration {
	g := 0.0
	if a.drawn < len(a.gaps) {
		g = a.gaps[a.drawn]
	} else {
		g = a.draw()
	}
	a.drawn++
	return time.Duration(g * float64(time.Second))
}
