package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

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

// lastSeed is the seed of the reply to msgs (at least one).
func lastSeed(msgs []chatMessage) uint64 { return replySeed(msgs[len(msgs)-1].texts...) }

// pick is the index in vocab of token i of the reply seeded seed: a
// SplitMix64 step of seed + i·γ.
func pick(seed uint64, i int) int {
	x := seed + uint64(i)*0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return int(x % uint64(len(vocab)))
}

// maxWrite bounds what one write carries when many chunks are overdue.
const maxWrite = 32 << 10

// appendTokens appends the text of tokens a..end-1 of the reply seeded
// seed as a JSON string; token big, if in range, is bigText instead
// (FaultBigLine). The vocabulary and bigText are plain ASCII with no
// quotes or backslashes, so the text needs no escaping.
func appendTokens(b []byte, seed uint64, a, end, big int) []byte {
	b = append(b, '"')
	for i := a; i < end; i++ {
		if i == big {
			b = append(b, bigText()...)
		} else {
			b = append(b, vocab[pick(seed, i)]...)
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
		arrival: arrival, t0: arrival,
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
	rep.t0, rep.pace.t0 = t0, t0
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

// ---- Ollama ----

// ollamaChatRequest is what the simulator reads of an /api/chat body.
type ollamaChatRequest struct {
	Model     string          `json:"model"`
	Messages  []message       `json:"messages"`
	Stream    *bool           `json:"stream"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Options   struct {
		NumPredict *float64 `json:"num_predict"`
		NumCtx     *float64 `json:"num_ctx"`
	} `json:"options"`
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	body, err := readBody(w, r)
	if err != nil {
		ollamaError(w, err)
		return
	}
	if s.onBody != nil {
		s.onBody(r, body)
	}
	var req ollamaChatRequest
	perr := decodeJSON(body, &req)
	if perr == nil && len(req.Messages) == 0 {
		// Not a chat: a load or an unload (reset.go).
		s.ollamaLoad(w, r, &req)
		return
	}
	if s.onStart != nil && s.cfg.Slots == 0 {
		s.onStart(r, arrival) // t0; with slots, when it gets one (begin)
	}
	f := s.faultFor()
	if code := f.httpStatus(); code != 0 {
		httpFault(w, r, code, false)
		return
	}
	if perr != nil {
		ollamaError(w, perr)
		return
	}
	if _, _, err := keepAlive(req.KeepAlive); err != nil {
		ollamaError(w, err)
		return
	}
	msgs, err := chatMessages(req.Messages)
	if err != nil {
		ollamaError(w, err)
		return
	}
	// Ollama runs the model with num_ctx tokens of context and cuts a
	// longer prompt to fit, silently.
	nctx := numCtx(req.Options.NumCtx, s.cfg.ctxLen())
	pr := s.cache.measure(msgs)
	p, cached := cut(pr.p, pr.cached(s.cache.serve(pr)), nctx)
	// Ollama's API has no ignore_eos: its replies always stop early.
	rep := s.newReply(arrival, req.Model, maxTokens(req.Options.NumPredict), false, p, cached, lastSeed(msgs))
	rep.numCtx = nctx
	enc := &ollamaEncoder{
		head: fmt.Appendf(nil, `{"model":%s,"created_at":"`, mustJSON(rep.model)),
		rep:  rep,
	}
	if req.Stream != nil && !*req.Stream {
		if s.begin(r, rep) != nil {
			s.abort()
			return
		}
		defer s.finish(rep)
		s.ollamaWhole(w, r, rep, enc, f)
		return
	}
	// The headers go out at once (Ollama sends them with the first chunk):
	// the client parses them before the first token is due, not in the
	// same instant.
	w.Header().Set("Content-Type", "application/x-ndjson")
	s.closeAfterReply(r)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if f == FaultKeepAlive {
		if _, err := w.Write(enc.keepAlive(nil)); err != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	if s.begin(r, rep) != nil {
		s.abort()
		return
	}
	defer s.finish(rep)
	s.serve(w, r, rc, rep, enc, f)
}

type ollamaEncoder struct {
	head []byte // {"model":M,"created_at":"
	rep  *reply
	q    []byte // scratch for a chunk's text
}

func (e *ollamaEncoder) start(b []byte, now time.Time) []byte {
	b = append(b, e.head...)
	b = now.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `","message":{"role":"assistant","content":`...)
}

func (e *ollamaEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	e.q = appendTokens(e.q[:0], e.rep.seed, a, end, -1)
	return e.text(b, e.q, a < e.rep.think, now)
}

// text is a chunk with content quoted or, if think, content "" and thinking
// quoted.
func (e *ollamaEncoder) text(b []byte, quoted []byte, think bool, now time.Time) []byte {
	b = e.start(b, now)
	if think {
		b = append(b, `"","thinking":`...)
	}
	b = append(b, quoted...)
	return append(b, "},\"done\":false}\n"...)
}

func (e *ollamaEncoder) final(b []byte, now time.Time) []byte {
	return e.end(b, now, `""`, nil, e.rep.reason, e.rep.m)
}

// whole is the "stream": false response: the final line whose message
// carries all the text, the answer in content and the reasoning, if any,
// in thinking; token big (if in range) is bigText.
func (e *ollamaEncoder) whole(b []byte, now time.Time, big int) []byte {
	var thinking []byte
	if e.rep.think > 0 {
		thinking = appendTokens(nil, e.rep.seed, 0, e.rep.think, big)
	}
	content := appendTokens(nil, e.rep.seed, e.rep.think, e.rep.m, big)
	return e.end(b, now, string(content), thinking, e.rep.reason, e.rep.m)
}

func (e *ollamaEncoder) empty(b []byte, now time.Time) []byte {
	return e.end(b, now, `""`, nil, "stop", 0)
}

// end renders a final line whose message content is the JSON string
// content and thinking, if not nil, the JSON string thinking, with
// eval_count count.
func (e *ollamaEncoder) end(b []byte, now time.Time, content string, thinking []byte, reason string, count int) []byte {
	b = e.start(b, now)
	b = append(b, content...)
	if thinking != nil {
		b = append(b, `,"thinking":`...)
		b = append(b, thinking...)
	}
	b = append(b, `},"done":true,"done_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","total_duration":`...)
	b = strconv.AppendInt(b, int64(now.Sub(e.rep.arrival)), 10)
	b = append(b, `,"load_duration":`...)
	b = strconv.AppendInt(b, int64(e.rep.load), 10)
	b = append(b, `,"prompt_eval_count":`...)
	b = strconv.AppendInt(b, int64(e.rep.p), 10)
	b = append(b, `,"prompt_eval_duration":`...)
	b = strconv.AppendInt(b, int64(e.rep.promptEval), 10)
	b = append(b, `,"eval_count":`...)
	b = strconv.AppendInt(b, int64(count), 10)
	b = append(b, `,"eval_duration":`...)
	b = strconv.AppendInt(b, int64(e.rep.pace.decode(count)), 10)
	return append(b, "}\n"...)
}

func (e *ollamaEncoder) broken(b []byte, now time.Time) []byte {
	b = e.start(b, now)
	b = append(b, brokenText...)
	return append(b, '\n')
}

// failure is Ollama's in-stream error line; the response ends after it.
func (e *ollamaEncoder) failure(b []byte, _ Fault, msg string) []byte {
	b = append(b, `{"error":`...)
	b = strconv.AppendQuote(b, msg) // plain ASCII: Go and JSON quoting agree
	return append(b, "}\n"...)
}

// keepAlive is an empty line.
func (e *ollamaEncoder) keepAlive(b []byte) []byte { return append(b, '\n') }

// ---- OpenAI-compatible (vLLM) ----

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	body, err := readBody(w, r)
	if err != nil {
		openaiError(w, err)
		return
	}
	if s.onBody != nil {
		s.onBody(r, body)
	}
	if s.onStart != nil && s.cfg.Slots == 0 {
		s.onStart(r, arrival) // t0; with slots, when it gets one (begin)
	}
	f := s.faultFor()
	if code := f.httpStatus(); code != 0 {
		httpFault(w, r, code, true)
		return
	}
	var req struct {
		Model               string    `json:"model"`
		Messages            []message `json:"messages"`
		Stream              bool      `json:"stream"`
		MaxTokens           *float64  `json:"max_tokens"`
		MaxCompletionTokens *float64  `json:"max_completion_tokens"`
		IgnoreEOS           bool      `json:"ignore_eos"`
		StreamOptions       *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := decodeJSON(body, &req); err != nil {
		openaiError(w, err)
		return
	}
	if len(req.Messages) == 0 {
		openaiError(w, errNoMessages)
		return
	}
	if !req.Stream {
		openaiError(w, errors.New(`the simulator only streams: set "stream": true`))
		return
	}
	msgs, err := chatMessages(req.Messages)
	if err != nil {
		openaiError(w, err)
		return
	}
	n := maxTokens(req.MaxCompletionTokens, req.MaxTokens)
	pr := s.cache.measure(msgs)
	if limit := s.cfg.ctxLen(); pr.p+n > limit {
		s.contextError(w, pr.p, n, limit)
		return
	}
	rep := s.newReply(arrival, req.Model, n, req.IgnoreEOS, pr.p, pr.cached(s.cache.serve(pr)), lastSeed(msgs))
	enc := &openaiEncoder{
		head: fmt.Appendf(nil, `data: {"id":"chatcmpl-%016x%016x","object":"chat.completion.chunk","created":%d,"model":%s,"choices":`,
			rand.Uint64(), rand.Uint64(), arrival.Unix(), mustJSON(rep.model)),
		usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		rep:   rep,
		field: s.cfg.reasoningField(),
		// The reasoning count is reported only where there is reasoning.
		details: s.cfg.ReasoningTokens > 0,
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	s.closeAfterReply(r)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// The role-only chunk goes out at once; it is not a token.
	role := make([]byte, 0, len(enc.head)+120)
	if f == FaultKeepAlive {
		role = enc.keepAlive(role)
	}
	role = append(append(role, enc.head...),
		`[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	if _, err := w.Write(role); err != nil || rc.Flush() != nil {
		return
	}
	if s.begin(r, rep) != nil {
		s.abort()
		return
	}
	defer s.finish(rep)
	s.serve(w, r, rc, rep, enc, f)
}

type openaiEncoder struct {
	head    []byte // data: {"id":…,"object":…,"created":…,"model":M,"choices":
	usage   bool
	rep     *reply
	field   ReasoningField // the delta field of reasoning text
	details bool           // usage has completion_tokens_details
	q       []byte         // scratch for a chunk's text
}

func (e *openaiEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	e.q = appendTokens(e.q[:0], e.rep.seed, a, end, -1)
	return e.text(b, e.q, a < e.rep.think, now)
}

func (e *openaiEncoder) text(b []byte, quoted []byte, think bool, _ time.Time) []byte {
	b = append(b, e.head...)
	if think {
		b = append(b, `[{"index":0,"delta":{"`...)
		b = append(b, e.field...)
		b = append(b, `":`...)
	} else {
		b = append(b, `[{"index":0,"delta":{"content":`...)
	}
	b = append(b, quoted...)
	return append(b, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

func (e *openaiEncoder) final(b []byte, _ time.Time) []byte {
	return e.end(b, e.rep.reason, e.rep.m, e.rep.think)
}

func (e *openaiEncoder) empty(b []byte, _ time.Time) []byte { return e.end(b, "stop", 0, 0) }

// end is the finish chunk with reason, the usage chunk if asked for (with
// completion_tokens n, of them reasoning reasoning tokens) and [DONE].
func (e *openaiEncoder) end(b []byte, reason string, n, reasoning int) []byte {
	b = append(b, e.head...)
	b = append(b, `[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","stop_reason":null}]}`+"\n\n"...)
	if e.usage {
		p := e.rep.p
		b = append(b, e.head...)
		b = append(b, `[],"usage":{"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(p+n), 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(e.rep.cached), 10)
		b = append(b, '}')
		if e.details {
			b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
			b = strconv.AppendInt(b, int64(reasoning), 10)
			b = append(b, '}')
		}
		b = append(b, "}}\n\n"...)
	}
	return append(b, "data: [DONE]\n\n"...)
}

func (e *openaiEncoder) broken(b []byte, _ time.Time) []byte {
	b = append(b, e.head...)
	b = append(b, `[{"index":0,"delta":{"content":`...)
	b = append(b, brokenText...)
	return append(b, "\n\n"...)
}

// failure is an in-stream error, vLLM's newer {"error":{…}} shape or, for
// FaultObjectError, the older {"object":"error",…}, then [DONE].
func (e *openaiEncoder) failure(b []byte, f Fault, msg string) []byte {
	if f == FaultObjectError {
		b = append(b, `data: {"object":"error","message":`...)
		b = strconv.AppendQuote(b, msg) // plain ASCII: Go and JSON quoting agree
		b = append(b, `,"type":"InternalServerError","param":null,"code":500}`+"\n\n"...)
	} else {
		b = append(b, `data: {"error":{"message":`...)
		b = strconv.AppendQuote(b, msg)
		b = append(b, `,"type":"InternalServerError","code":500}}`+"\n\n"...)
	}
	return append(b, "data: [DONE]\n\n"...)
}

// keepAlive is an SSE comment.
func (e *openaiEncoder) keepAlive(b []byte) []byte { return append(b, ": keepalive\n\n"...) }
