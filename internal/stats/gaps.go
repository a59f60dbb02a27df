package stats

import (
	"math"
	"slices"
)

// Gaps are the gaps between the text chunks of many replies, in seconds:
// ITL's samples. A leaf run's every reply adds to one (Round.Compact), so
// that what it holds does not grow with the run: each gap as it came up to
// gapsExact of them, and past that a count per bucket of
// 1/gapsBuckets of a power of two (at most 0.2% from a gap to its
// bucket's middle): 2 KiB a power of two the gaps span, 80 KiB at most
// from a nanosecond to minutes, whatever their number. The count, the
// mean and the largest stay exact; the percentiles are exact up to
// gapsExact gaps and within 0.2% beyond. The zero value is empty.
type Gaps struct {
	exact   []float32 // every gap, until buckets are used
	buckets []uint64  // counts, of the buckets from lo on; nil until past gapsExact
	lo      int
	zeros   uint64 // the gaps under a nanosecond, with the buckets
	n       int
	sum     float64 // in float64, as the exact mean sums them
	max     float32
}

const (
	// gapsExact is how many gaps are kept as they came, 16 KiB of them.
	gapsExact = 4096
	// gapsShift drops the low bits of a gap's float32 bits to name its
	// bucket: 23 mantissa bits less 8 kept, 256 buckets a power of two.
	gapsShift   = 15
	gapsBuckets = 1 << (23 - gapsShift)
)

// Add counts xs.
func (g *Gaps) Add(xs []float32) {
	for _, x := range xs {
		g.n++
		g.sum += float64(x)
		g.max = max(g.max, x)
	}
	if g.buckets == nil && len(g.exact)+len(xs) <= gapsExact {
		g.exact = append(g.exact, xs...)
		return
	}
	g.spill()
	for _, x := range xs {
		g.count(bucketOf(x), 1)
	}
}

// Merge counts o's gaps in g.
func (g *Gaps) Merge(o *Gaps) {
	if o == nil || o.n == 0 {
		return
	}
	g.n += o.n
	g.sum += o.sum
	g.max = max(g.max, o.max)
	if g.buckets == nil && o.buckets == nil && len(g.exact)+len(o.exact) <= gapsExact {
		g.exact = append(g.exact, o.exact...)
		return
	}
	g.spill()
	for _, x := range o.exact {
		g.count(bucketOf(x), 1)
	}
	g.zeros += o.zeros
	for i, c := range o.buckets {
		if c > 0 {
			g.count(o.lo+i, c)
		}
	}
}

// spill moves the exact gaps into buckets.
func (g *Gaps) spill() {
	if g.buckets != nil {
		return
	}
	g.buckets = []uint64{}
	for _, x := range g.exact {
		g.count(bucketOf(x), 1)
	}
	g.exact = nil
}

// count adds c to bucket b, growing the buckets to reach it.
func (g *Gaps) count(b int, c uint64) {
	switch {
	case b == 0:
		g.zeros += c
		return
	case len(g.buckets) == 0:
		g.lo = b
		g.buckets = append(g.buckets, 0)
	case b < g.lo:
		g.buckets = slices.Insert(g.buckets, 0, make([]uint64, g.lo-b)...)
		g.lo = b
	case b >= g.lo+len(g.buckets):
		g.buckets = append(g.buckets, make([]uint64, b-g.lo-len(g.buckets)+1)...)
	}
	g.buckets[b-g.lo] += c
}

// bucketOf is the bucket of gap x: its float32 bits' top ones, which
// order as the gaps do; 0 for a gap under the clock's nanosecond (a gap
// is never negative; one that is counts as 0), kept apart so that the
// buckets span no more than the powers of two from 1 ns up.
func bucketOf(x float32) int {
	if !(x >= 1e-9) {
		return 0
	}
	return int(math.Float32bits(x) >> gapsShift)
}

// middle is the value in the middle of bucket b.
func middle(b int) float64 {
	if b == 0 {
		return 0
	}
	lo := float64(math.Float32frombits(uint32(b) << gapsShift))
	hi := float64(math.Float32frombits(uint32(b+1) << gapsShift))
	return (lo + hi) / 2
}

// stat summarises the gaps as stat does samples.
func (g *Gaps) stat() Stat {
	if g.buckets == nil {
		return stat(slices.Clone(g.exact))
	}
	s := Stat{N: g.n, Mean: g.sum / float64(g.n), Max: float64(g.max)}
	s.P50, s.P95, s.P99 = g.quantile(0.50), g.quantile(0.95), g.quantile(0.99)
	return s
}

// quantile is quantile's R-7 estimate with each gap taken as the middle
// of its bucket (the largest as itself).
func (g *Gaps) quantile(p float64) float64 {
	h := float64(g.n-1) * p
	lo := int(math.Floor(h))
	a := g.at(lo)
	if lo+1 >= g.n {
		return a
	}
	return a + (h-float64(lo))*(g.at(lo+1)-a)
}

// at is the gap of rank r (from 0) in order.
func (g *Gaps) at(r int) float64 {
	if r == g.n-1 {
		return float64(g.max)
	}
	seen := int(g.zeros)
	if r < seen {
		return 0
	}
	for i, c := range g.buckets {
		seen += int(c)
		if r < seen {
			return min(middle(g.lo+i), float64(g.max))
		}
	}
	return float64(g.max)
}
