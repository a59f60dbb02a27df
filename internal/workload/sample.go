package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// newRNG is the sampling's generator: a PCG seeded with seed.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// reservoir keeps a uniform sample of n of the items added (every item
// when n is 0), in one pass and with only the sample in memory
// (Algorithm R: item i, from 0, replaces a kept one with probability
// n/(i+1)).
type reservoir struct {
	n     int
	rng   *rand.Rand
	seen  int
	items []Item
}

func newReservoir(opts Options) *reservoir {
	return &reservoir{n: opts.N, rng: newRNG(opts.Seed)}
}

func (r *reservoir) add(it Item) {
	defer func() { r.seen++ }()
	if r.n == 0 || r.seen < r.n {
		r.items = append(r.items, it)
		return
	}
	if j := r.rng.IntN(r.seen + 1); j < r.n {
		r.items[j] = it
	}
}

// sample is the items kept, in the file's order.
func (r *reservoir) sample() []Item {
	slices.SortFunc(r.items, func(a, b Item) int { return a.Index - b.Index })
	return r.items
}

// window is the requests of a trace's sample: n consecutive ones (all
// when n is 0 or at least len(all)), the first drawn uniformly among the
// len(all)-n+1 possible, with their arrivals counted from the window's
// first request and scaled by speed.
//
// A window keeps what makes a trace a trace: its arrivals' gaps and
// bursts exactly as recorded, and the requests that share prefixes close
// in time together. Taking every k-th request instead would thin the
// trace: a burst of k requests would become one, and the rate k times
// lower.
func (w *Workload) window(all []TraceRequest, n int, seed uint64) ([]TraceRequest, error) {
	speed := w.Speed
	reqs := all
	if n > 0 && n < len(all) {
		start := newRNG(seed).IntN(len(all) - n + 1)
		reqs = all[start : start+n]
	}
	t0 := reqs[0].Timestamp
	for i := range reqs {
		ns := (reqs[i].Timestamp - t0) * 1e6 / speed
		if ns > math.MaxInt64/2 {
			return nil, &Error{What: "workload", Path: w.Path, Line: reqs[i].Line, Item: -1,
				Msg: fmt.Sprintf("timestamp %v: %v ms after the first request's, too long to replay at speed %g", reqs[i].Timestamp, reqs[i].Timestamp-t0, speed)}
		}
		reqs[i].Arrival = time.Duration(math.Round(ns))
	}
	return reqs, nil
}
