package sim

import (
	"math"
	"time"
)

// reply is one chat reply: what it says and when each piece is due.
type reply struct {
	model  string // what its model field says
	n      int    // tokens asked for
	m      int    // tokens it has: n, or fewer when it stops early
	reason string // its finish reason: "length" (m == n) or "stop"
	think  int    // tokens 0..think-1 are reasoning, the rest answer
	per    int    // tokens per chunk
	split  int    // a fault's token, where chunking restarts; -1: none
	p      int    // prompt tokens (P), after any cut to num_ctx
	cached int    // of them, how many an earlier prompt shared (C)
	seed   uint64 // its text's (see Token)
	// perturb is SIM_PERTURB: its words are wordAt(seed, i, perturb).
	perturb float64
	// top is the alternatives each token's log-probabilities carry, -1
	// for no log-probabilities (not asked, or SIM_LOGPROBS=off).
	top int
	// pieces: the log-probabilities' token texts are the tokenizer's
	// pieces (mlx_lm.server's), a space written "▁".
	pieces bool
	numCtx int // Ollama's num_ctx, 0 for OpenAI requests
	// tools, if set, makes the reply tool calls: tokens think..m-1 are
	// the calls' (see toolReply).
	tools *toolReply

	// What the server says it spent (Ollama's final line): on the prompt
	// (prompt_eval_duration) and waiting for the model to load
	// (load_duration).
	promptEval, load time.Duration

	arrival time.Time // the handler started
	t0      time.Time // the schedule started: it got a slot
	running int       // the requests holding a slot then, itself included
	pace    pacer
	// endDue is the deadline of the last thing the reply did when it went
	// to its planned end (the final chunk, a fault); zero otherwise.
	endDue time.Time

	// What was written, for /metrics.
	sent  int       // tokens
	first time.Time // when the chunk with token 0 had been flushed
	ended bool      // the final chunk(s) went out: the reply is complete
	end   time.Time // when they had been flushed

	// trace, if set, is the server's Tap.Flush.
	trace func(t0 time.Time, last int, began, flushed time.Time)
}

// withTools makes rep a reply of tool calls tr after its reasoning: m is
// the reasoning and the calls' tokens, finish reason "tool_calls"; or n,
// and "length", when they do not fit. A model that calls tools ends when
// its calls do: SIM_STOP_AFTER and ignore_eos do not apply.
func (rep *reply) withTools(tr *toolReply, reasoning int) {
	rep.tools = tr
	rep.think = min(reasoning, rep.n)
	if want := rep.think + tr.total; want <= rep.n {
		rep.m, rep.reason = want, "tool_calls"
	} else {
		rep.m, rep.reason = rep.n, "length"
	}
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

// pacer gives a reply's deadlines: token i at t0 + ttft + i/rate. Without
// a batch slowdown, a load, a prefill rate or degradation they are
// Config.Offset's. With a slowdown, token i+1 is due step_m after token i,
// step_m being (1 + BatchSlowdown·(m−1))/rate for the m streams decoding
// when its deadline is fixed; deadlines are fixed, in order, as the stream
// asks for them (see due), and never change after.
type pacer struct {
	cfg  *Config
	t0   time.Time
	ttft time.Duration // to the first token: TTFT, plus prefill and load
	rate float64       // decode rate: TokensPerSec, × Degrade if degraded
	// decoding is the number of streams holding a slot; nil without a
	// slowdown.
	decoding func() int

	known int       // deadlines are fixed up to token known
	segs  []segment // the runs of tokens at one step, in order
}

// segment: token i >= from of it is due base + (i-from)·step ns after the
// first token.
type segment struct {
	from       int
	base, step float64
}

// decode is when token i is due after the first token: i/rate without a
// slowdown; decode(m) is the end of an m-token reply.
func (p *pacer) decode(i int) time.Duration {
	if p.decoding == nil {
		return decodeAt(i, p.rate)
	}
	if i <= 0 {
		return 0
	}
	if i > p.known {
		// Fix the deadlines up to token i at the step in force now.
		m := max(p.decoding(), 1)
		step := 1e9 * (1 + p.cfg.BatchSlowdown*float64(m-1)) / p.rate
		if n := len(p.segs); n == 0 || p.segs[n-1].step != step {
			var base float64
			if n > 0 {
				last := p.segs[n-1]
				base = last.base + float64(p.known-last.from)*last.step
			}
			p.segs = append(p.segs, segment{from: p.known, base: base, step: step})
		}
		p.known = i
	}
	j := len(p.segs) - 1
	for p.segs[j].from > i {
		j--
	}
	sg := p.segs[j]
	d := sg.base + float64(i-sg.from)*sg.step
	if !(d < float64(maxOffset)) {
		return maxOffset
	}
	return time.Duration(math.Round(d))
}

// due is when token i is due: t0 + ttft + decode(i). Asking for a token
// past those fixed fixes the deadlines up to it.
func (p *pacer) due(i int) time.Time {
	d := p.ttft + p.decode(i)
	if d < p.ttft { // overflow
		d = math.MaxInt64
	}
	return p.t0.Add(d)
}
