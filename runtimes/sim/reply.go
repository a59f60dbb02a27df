package sim

import "time"

// reply is one chat reply: what it says and when each piece is due.
type reply struct {
	model  string // what its model field says
	n      int    // tokens asked for
	m      int    // tokens it has: n, or fewer when it stops early
	reason string // its finish reason: "length" (m == n) or "stop"
	think  int    // tokens 0..think-1 are reasoning, the rest answer
	per    int    // tokens per chunk
	split  int    // a fault's token, where chunking restarts; -1: none
	p      int    // prompt words (P)
	cached int    // of them, how many an earlier prompt shared (C)

	arrival time.Time // the handler started
	t0      time.Time // the schedule started
	pace    pacer

	// trace, if set, is the server's Tap.Flush.
	trace func(t0 time.Time, last int, began, flushed time.Time)
}

// chunkEnd is where the chunk that starts at token a ends (exclusive),
// when the stream stops at token limit.
// Chunks are cut every per tokens from the start of each run: the
// reasoning, the answer, and the tokens from a fault's on.
func (r *reply) chunkEnd(a, limit int) int {
	if a < r.think {
		limit = min(limit, r.think) // a chunk never mixes reasoning and answer
	}
	if a < r.split {
		limit = min(limit, r.split)
	}
	return min(a+r.per, limit)
}

// pacer gives a reply's deadlines.
type pacer struct {
	cfg *Config
	t0  time.Time
}

// decode is when token i is due after the first token (i/TokensPerSec);
// decode(n) is the end of an n-token reply.
func (p *pacer) decode(i int) time.Duration { return p.cfg.decode(i) }

// due is when token i is due: t0 + TTFT + decode(i).
func (p *pacer) due(i int) time.Time { return p.t0.Add(p.cfg.Offset(i)) }
