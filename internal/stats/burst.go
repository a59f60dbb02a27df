package stats

import "github.com/inferencebench/inferencebench/runtimes"

// A burst reply is one whose tokens reached the client all at once, or
// nearly, after a first token that came late: a server that held the
// stream back (a stall, a buffer in between) and then sent what it had
// decoded meanwhile. Its span from the first token to the end, total −
// TTFT, is then the time the tokens took to arrive, not to be decoded,
// and its "decode rate" reads any multiple of the leaf's: one such reply
// of 128 tokens in a leaf that decodes at 400 tok/s put its mean at 1657.
//
// The stream tells it: its decode time per token, (total − TTFT) /
// (tokens − 1), the reply's TPOT, is far below that of the leaf's other
// replies. A successful reply of at least BurstMinTokens tokens whose
// TPOT is below the median TPOT of its leaf's replies divided by
// BurstFactor is a burst (IsBurst): it is counted (Metrics.Bursts, a
// row's burst_replies) and left out of the decode rate and TPOT. The
// median is over the replies that have a TPOT (two tokens or more, not
// come whole), the burst ones included, so that one burst cannot move it.
//
// The threshold: a reply decodes faster than its leaf's median when it
// shares the server with fewer others for part of its life (a batch
// emptying at the end of a round) or, on a real server, by the n/(n−1)
// of its last interval; TestBurstThresholdOnData shows the spread of
// real schedules (the simulator's batch slowdown at its steepest, 8
// requests of a round ending one after the other) stays under 2.5× and
// that the reply, at 13×, is far above 4×. Fewer than
// BurstMinTokens tokens say too little: a reply of 2 or 3 tokens may
// have them in one network read on any server.
const (
	BurstMinTokens = 8
	BurstFactor    = 4.0
)

// IsBurst reports whether res, a successful reply, came in a burst in a
// leaf whose burst bound is below (Metrics.BurstBelow; 0: none is).
func IsBurst(res runtimes.Result, below float64) bool { return isBurst(ReplyOf(res), below) }

func isBurst(res Reply, below float64) bool {
	if below <= 0 || res.OutputTokens < BurstMinTokens {
		return false
	}
	tpot, ok := tpotOf(res)
	return ok && tpot < below
}

// burstBelow is the decode time per token below which a reply of rounds
// was a burst: the median TPOT of their successful replies over
// BurstFactor; 0 without two replies that have one.
func burstBelow(rounds []Round) float64 {
	var tpots []float64
	for _, rd := range rounds {
		for _, res := range rd.replies() {
			if !res.OK() {
				continue
			}
			if tpot, ok := tpotOf(res); ok {
				tpots = append(tpots, tpot)
			}
		}
	}
	if len(tpots) < 2 {
		return 0
	}
	return Median(tpots) / BurstFactor
}
