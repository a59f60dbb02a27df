package sim

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"time"
)

// This file holds what both protocols share: a reply's words, the encoder
// each protocol implements (ollama.go, openai.go), the loop that writes a
// stream on its schedule, and a chat request's admission, slot and end.
// fault.go changes a stream for the faults.

// vocab is the token vocabulary: every token of a reply is one of these.
var vocab = []string{
	" lorem", " ipsum", " dolor", " sit", " amet", " consectetur", " adipiscing", " elit",
	" sed", " do", " eiusmod", " tempor", " incididunt", " ut", " labore", " et",
	" dolore", " magna", " aliqua", " enim",
}

// Token is the text of token i (from 0) of every reply to a chat whose last
// message's text is last: a word of the vocabulary picked by a hash of
// last and i. The same last message gets the same reply, another one
// (almost surely) another reply.
func Token(last string, i int) string { return vocab[pick(replySeed(last), i)] }

// ReplyText is the text of tokens from..to-1 of every reply to a chat
// whose last message's text is last: Token(last, from) + … + Token(last,
// to-1).
func ReplyText(last string, from, to int) string {
	seed := replySeed(last)
	var b []byte
	for i := from; i < to; i++ {
		b = append(b, vocab[pick(seed, i)]...)
	}
	return string(b)
}

// replySeed is the seed of the reply to a chat whose last message's text
// is the concatenation of texts: their FNV-1a hash.
func replySeed(texts ...string) uint64 {
	h := uint64(14695981039346656037)
	for _, t := range texts {
		for i := 0; i < len(t); i++ {
			h ^= uint64(t[i])
			h *= 1099511628211
		}
	}
	return h
}

// lastSeed is the seed of the reply to msgs (at least one): with
// SIM_TEXT_SEED t, the seed of the last message's text XOR t·γ (γ odd,
// so any t but 0 changes it, and the words picked).
func (s *Server) lastSeed(msgs []chatMessage) uint64 {
	seed := replySeed(msgs[len(msgs)-1].texts...)
	if t := s.cfg.TextSeed; t != 0 {
		seed ^= t * 0x9e3779b97f4a7c15
	}
	return seed
}

// pick is the index in vocab of token i of the reply seeded seed.
func pick(seed uint64, i int) int { return int(mix(seed, i) % uint64(len(vocab))) }

// mix is a SplitMix64 step of seed + i·γ.
func mix(seed uint64, i int) uint64 {
	x := seed + uint64(i)*0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// maxWrite bounds what one write carries when many chunks are overdue.
const maxWrite = 32 << 10

// appendTokens appends the text of tokens a..end-1 of rep (its seed,
// perturbed at SIM_PERTURB: wordAt) as a JSON string; token big, if in
// range, is bigText instead (FaultBigLine). The vocabulary and bigText are
// plain ASCII with no quotes or backslashes, so the text needs no
// escaping.
func appendTokens(b []byte, rep *reply, a, end, big int) []byte {
	b = append(b, '"')
	for i := a; i < end; i++ {
		if i == big {
			b = append(b, bigText()...)
		} else {
			b = append(b, vocab[wordAt(rep.seed, i, rep.perturb)]...)
		}
	}
	return append(b, '"')
}

// encoder renders one protocol's chunks, appending to b.
type encoder interface {
	// chunk is the chunk carrying tokens a..end-1.
	chunk(b []byte, a, end int, now time.Time) []byte
	// final is the final chunk(s) of the reply.
	final(b []byte, now time.Time) []byte

	// For the faults:

	// text is a token chunk whose text is the JSON string quoted,
	// reasoning if think.
	text(b []byte, quoted []byte, think bool, now time.Time) []byte
	// broken is one line of broken JSON: a chunk cut in the middle.
	broken(b []byte, now time.Time) []byte
	// failure is an in-stream error saying msg, and what ends the stream
	// after it.
	failure(b []byte, f Fault, msg string) []byte
	// keepAlive is a keep-alive line.
	keepAlive(b []byte) []byte
	// empty is the final chunk(s) of a stream with no tokens.
	empty(b []byte, now time.Time) []byte
}

// stream writes the chunks of tokens 0..upTo-1 and then, if final, the
// final chunk(s), each when its last token (the end, for the final) is due,
// flushing after every write. It returns early, with an error, if ctx ends
// or a write fails.
func (s *Server) stream(ctx context.Context, w io.Writer, rc *http.ResponseController, rep *reply, upTo int, final bool, enc encoder) error {
	sl := newSleeper()
	buf := make([]byte, 0, 1024)
	a := 0 // the next token to write
	// next is the next chunk to write: its deadline, the token it ends
	// before (a for the final chunk), and false when none is left.
	next := func() (time.Time, int, bool) {
		if a < upTo {
			end := rep.chunkEnd(a, upTo)
			return rep.pace.due(end - 1), end, true
		}
		return rep.pace.due(rep.m), a, final
	}
	for {
		due, _, ok := next()
		if !ok {
			return nil
		}
		if err := s.clock.sleepUntil(ctx, sl, due); err != nil {
			return err
		}
		now := time.Now()
		buf = buf[:0]
		// Everything due by now goes in this write: each chunk is still its
		// own line, none is early, and a late stream catches up.
		last, tokens, ended := -1, 0, false
		for len(buf) < maxWrite {
			due, end, ok := next()
			if !ok || now.Before(due) {
				break
			}
			if a < upTo {
				buf = enc.chunk(buf, a, end, now)
				tokens += end - a
				a, last = end, end-1
			} else {
				buf = enc.final(buf, now)
				final, last, ended = false, rep.m, true
				rep.endDue = due
			}
		}
		if len(buf) == 0 {
			// Tokens held back (Ollama's tool-call tokens, sent when the
			// call is whole): generated now, written later.
			if tokens > 0 && rep.sent == 0 {
				rep.first = now
			}
			rep.sent += tokens
			continue
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		flushed := time.Now()
		if tokens > 0 && rep.sent == 0 {
			rep.first = flushed
		}
		rep.sent += tokens
		if ended {
			rep.ended, rep.end = true, flushed
		}
		if rep.trace != nil {
			rep.trace(rep.t0, last, now, flushed)
		}
	}
}

// admit starts the schedule of a chat request that arrived at arrival,
// unless slots do (begin), and picks its fault. An HTTP status fault is
// answered at once, in the protocol's shape (openai or Ollama's), and admit
// returns false: the request is done.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, arrival time.Time, openai bool) (Fault, bool) {
	if s.onStart != nil && s.cfg.Slots == 0 {
		s.onStart(r, arrival)
	}
	f := s.faultFor()
	if code := f.httpStatus(); code != 0 {
		httpFault(w, r, code, openai)
		return f, false
	}
	return f, true
}

// newReply is the reply to a chat request that arrived at arrival, named
// model, asked for n tokens (and, with ignoreEOS, for all of them), whose
// prompt is p tokens, cached of them from the prompt cache, and whose text
// is seeded seed (see Token). Its schedule starts at arrival until begin
// says otherwise.
func (s *Server) newReply(arrival time.Time, model string, n int, ignoreEOS bool, p, cached int, seed uint64) *reply {
	m, reason := n, "length"
	if stop := s.cfg.StopAfter; stop > 0 && stop <= n && !ignoreEOS {
		// The end of sequence falls within the length asked for.
		m, reason = stop, "stop"
	}
	rep := &reply{
		model: s.cfg.replyModel(model), n: n, m: m, reason: reason, p: p, cached: cached, seed: seed,
		think: min(s.cfg.ReasoningTokens, m),
		per:   s.cfg.perChunk(), split: -1,
		arrival: arrival, t0: arrival, perturb: s.cfg.Perturb, top: -1,
		pace:  pacer{cfg: &s.cfg, t0: arrival, ttft: s.cfg.TTFT, rate: s.cfg.TokensPerSec},
		trace: s.trace,
	}
	if r := s.cfg.PrefillTPS; r > 0 {
		// The prompt's uncached tokens at the prompt rate; Ollama's
		// prompt_eval_duration is that time, as it times only the tokens
		// it evaluated.
		prefill := time.Duration(min(math.Round(float64(p-cached)*1e9/r), float64(maxOffset)))
		rep.promptEval = prefill
		rep.pace.ttft = satAdd(s.cfg.TTFT, prefill)
	} else {
		rep.promptEval = evaluated(s.cfg.TTFT, p, cached)
	}
	if j := s.cfg.Jitter; j > 0 {
		// Config.Jitter: the reply's own spread.
		rep.pace.ttft = time.Duration(float64(rep.pace.ttft) * math.Exp(j*rand.NormFloat64()))
		rep.pace.rate *= math.Exp(j * rand.NormFloat64())
	}
	if s.cfg.BatchSlowdown > 0 {
		rep.pace.decoding = func() int { running, _ := s.slots.counts(); return running }
	}
	return rep
}

// begin waits for a slot for rep and starts its schedule (its t0): it
// waits for the model to load if it must (Config.LoadTime), and fixes its
// decode rate (Config.Degrade). It returns an error, and the reply must
// end, if the request's context ends first. Call finish when it has begun.
func (s *Server) begin(r *http.Request, rep *reply) error {
	t0, running, err := s.slots.acquire(r.Context(), rep.arrival)
	if err != nil {
		return err
	}
	rep.t0, rep.pace.t0, rep.running = t0, t0, running
	if wait := s.state.use(t0, rep.numCtx, s.cfg.numCtxDefault(), s.cfg.LoadTime); wait > 0 {
		rep.load = wait
		rep.pace.ttft = satAdd(rep.pace.ttft, wait)
	}
	if s.cfg.Degrade > 0 {
		// Read before it is set: the request whose slot made two is not
		// degraded itself, those that start after it are.
		if s.state.degraded.Load() {
			rep.pace.rate = s.cfg.TokensPerSec * s.cfg.Degrade
		}
		if running >= 2 {
			s.state.degraded.Store(true)
		}
	}
	if s.cfg.Slots > 0 && s.onStart != nil {
		s.onStart(r, t0)
	}
	return nil
}

// finish counts rep in /metrics if it is complete and frees its slot: at
// its planned end if it went there (so that lateness in writing it does
// not delay the next), else now.
func (s *Server) finish(rep *reply) {
	if rep.ended {
		s.metrics.record(rep)
	}
	at := time.Now()
	if !rep.endDue.IsZero() && rep.endDue.Before(at) {
		at = rep.endDue
	}
	s.slots.release(at)
}
