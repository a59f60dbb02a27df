package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Ollama's native chat API: POST /api/chat. A streamed reply is one JSON
// object per line (NDJSON): token chunks carry message.content or
// message.thinking, and the last line has "done":true with the counts and
// durations. "stream": false gets that last line alone, carrying the whole
// text. A request without messages is a load or an unload (reset.go).

// ollamaChatRequest is what the simulator reads of an /api/chat body.
type ollamaChatRequest struct {
	Model     string          `json:"model"`
	Messages  []message       `json:"messages"`
	Stream    *bool           `json:"stream"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Tools     json.RawMessage `json:"tools"`
	// Logprobs and TopLogprobs ask for each token's log-probability and
	// its top alternatives (Ollama 0.12.11 on): a top-level "logprobs"
	// array in each line.
	Logprobs    bool `json:"logprobs"`
	TopLogprobs int  `json:"top_logprobs"`
	Options     struct {
		NumPredict *float64 `json:"num_predict"`
		NumCtx     *float64 `json:"num_ctx"`
	} `json:"options"`
}

func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	body, err := s.chatBody(w, r)
	if err != nil {
		ollamaError(w, err)
		return
	}
	var req ollamaChatRequest
	perr := decodeJSON(body, &req)
	if perr == nil && len(req.Messages) == 0 {
		// Not a chat: a load or an unload (reset.go).
		s.ollamaLoad(w, r, &req)
		return
	}
	if perr == nil && s.cfg.unserved(req.Model) {
		writeJSON(w, http.StatusNotFound, mustJSON(map[string]string{"error": ollamaNotFound(req.Model)}))
		return
	}
	if perr == nil && s.refusesTools(req.Tools) {
		// Ollama checks the model's capabilities before it schedules.
		ollamaError(w, noTools(req.Model))
		return
	}
	if perr == nil && s.refusesImages(req.Messages) {
		ollamaError(w, s.noVision(req.Model))
		return
	}
	f, ok := s.admit(w, r, arrival, false)
	if !ok {
		return
	}
	if perr != nil {
		ollamaError(w, perr)
		return
	}
	msgs, tools, ok := readOllamaChat(w, &req)
	if !ok {
		return
	}
	rep := s.ollamaReply(arrival, &req, msgs, tools)
	enc := &ollamaEncoder{
		head: fmt.Appendf(nil, `{"model":%s,"created_at":"`, mustJSON(rep.model)),
		rep:  rep,
	}
	var out encoder = enc
	if s.cfg.ToolsHeld && hasTools(req.Tools) {
		out = heldOllama{enc}
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
	s.ollamaStream(w, r, rep, enc, out, f)
}

// ollamaStream streams a reply as NDJSON lines, out writing them (enc,
// or its held form), with fault f. The headers go out at once (Ollama
// sends them with the first chunk): the client parses them before the
// first token is due, not in the same instant.
func (s *Server) ollamaStream(w http.ResponseWriter, r *http.Request, rep *reply, enc *ollamaEncoder, out encoder, f Fault) {
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
	s.serve(w, r, rc, rep, out, f)
}

// readOllamaChat checks an admitted chat request's keep_alive, and reads
// its messages and tools; on a request it refuses it writes the error
// reply and returns false.
func readOllamaChat(w http.ResponseWriter, req *ollamaChatRequest) (msgs []chatMessage, tools []tool, ok bool) {
	if _, _, err := keepAlive(req.KeepAlive); err != nil {
		ollamaError(w, err)
		return nil, nil, false
	}
	if req.TopLogprobs < 0 || req.TopLogprobs > MaxTopLogprobs {
		// Ollama's words (server/routes.go, 0.17.4).
		ollamaError(w, fmt.Errorf("top_logprobs must be between 0 and %d", MaxTopLogprobs))
		return nil, nil, false
	}
	msgs, err := chatMessages(req.Messages)
	if err != nil {
		ollamaError(w, err)
		return nil, nil, false
	}
	if tools, err = readTools(req.Tools, nil); err != nil {
		ollamaError(w, err)
		return nil, nil, false
	}
	return msgs, tools, true
}

// ollamaReply is the reply to a chat request. Ollama runs the model with
// num_ctx tokens of context and cuts a longer prompt to fit, silently.
func (s *Server) ollamaReply(arrival time.Time, req *ollamaChatRequest, msgs []chatMessage, tools []tool) *reply {
	nctx := numCtx(req.Options.NumCtx, s.cfg.ctxLen())
	pr := s.cache.measure(withTools(msgs, req.Tools))
	p, cached := cut(pr.p, pr.cached(s.cache.serve(pr)), nctx)
	// Ollama's API has no ignore_eos: its replies always stop early.
	rep := s.newReply(arrival, req.Model, maxTokens(req.Options.NumPredict), false, p, cached, s.lastSeed(msgs))
	rep.numCtx = nctx
	rep.top, _ = s.cfg.askLogprobs(req.Logprobs, req.TopLogprobs) // checked by readOllamaChat
	if len(tools) > 0 && s.cfg.toolCalls() > 0 {
		rep.withTools(s.planTools(tools, rep.seed), s.cfg.ReasoningTokens)
	}
	return rep
}

// heldOllama streams a reply held back whole until its end, as Ollama
// before 0.8 streams a reply to a request with tools (ChatHandler gathers
// the text until it parses a tool call or the reply ends): no line until
// the end, then the done line carrying all of it, as "stream": false.
type heldOllama struct{ *ollamaEncoder }

func (h heldOllama) chunk(b []byte, _, _ int, _ time.Time) []byte { return b }
func (h heldOllama) final(b []byte, now time.Time) []byte         { return h.whole(b, now, -1) }

// ollamaWhole answers an Ollama "stream": false request, with fault f.
func (s *Server) ollamaWhole(w http.ResponseWriter, r *http.Request, rep *reply, enc *ollamaEncoder, f Fault) {
	ctx := r.Context()
	n := rep.m
	switch f {
	case FaultReset, FaultStall, FaultError, FaultObjectError:
		k := half(n)
		due := rep.pace.due(k)
		if err := s.clock.sleepUntil(ctx, newSleeper(), due); err != nil {
			s.abort()
			return
		}
		if f != FaultStall {
			rep.endDue = due
		}
		switch f {
		case FaultReset:
			resetConn(w)
		case FaultStall:
			stall(ctx)
			s.abort()
		default:
			writeJSON(w, http.StatusInternalServerError, mustJSON(map[string]string{"error": faultMessage(f, k, n)}))
		}
		return
	}
	due := rep.pace.due(n)
	if err := s.clock.sleepUntil(ctx, newSleeper(), due); err != nil {
		s.abort()
		return
	}
	rep.endDue = due
	var b []byte
	switch now := time.Now(); f {
	case FaultEmpty:
		b = enc.empty(nil, now)
	case FaultBigLine:
		b = enc.whole(nil, now, min(half(n), n-1))
	default:
		b = enc.whole(nil, now, -1)
	}
	b = b[:len(b)-1] // without the newline
	if f == FaultTruncate || f == FaultMalformed {
		b = b[:len(b)/2] // cut in the middle, but the body ends cleanly
	}
	writeJSON(w, http.StatusOK, b)
	if f != FaultTruncate && f != FaultMalformed && http.NewResponseController(w).Flush() == nil {
		// Complete. Its tokens were not sent one by one: the first
		// counts as produced when it was due.
		rep.ended, rep.end = true, time.Now()
		if f != FaultEmpty && n > 0 {
			rep.sent, rep.first = n, rep.pace.due(0)
		}
	}
}

type ollamaEncoder struct {
	head []byte // {"model":M,"created_at":"
	rep  *reply
	q    []byte // scratch for a chunk's text
	// lpAll: the final line carries every token's log-probabilities (a
	// reply in one line, whole).
	lpAll bool
}

func (e *ollamaEncoder) start(b []byte, now time.Time) []byte {
	b = append(b, e.head...)
	b = now.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `","message":{"role":"assistant","content":`...)
}

func (e *ollamaEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	if e.rep.tools != nil && a >= e.rep.think {
		return e.toolChunk(b, a-e.rep.think, end-e.rep.think, now)
	}
	e.q = appendTokens(e.q[:0], e.rep, a, end, -1)
	if e.rep.top >= 0 {
		b = e.message(b, e.q, a < e.rep.think, now)
		b = append(b, `},"logprobs":`...)
		b = e.rep.appendLogprobs(b, a, end, e.rep.top)
		return append(b, ",\"done\":false}\n"...)
	}
	return e.text(b, e.q, a < e.rep.think, now)
}

// text is a chunk with content quoted or, if think, content "" and thinking
// quoted.
func (e *ollamaEncoder) text(b []byte, quoted []byte, think bool, now time.Time) []byte {
	b = e.message(b, quoted, think, now)
	return append(b, "},\"done\":false}\n"...)
}

// message is a text line up to its message's end: content quoted or, if
// think, content "" and thinking quoted.
func (e *ollamaEncoder) message(b []byte, quoted []byte, think bool, now time.Time) []byte {
	b = e.start(b, now)
	if think {
		b = append(b, `"","thinking":`...)
	}
	return append(b, quoted...)
}

// toolChunk is the line of the calls that their tokens a..end-1 (from
// the first call's) complete, as Ollama sends a call when it has parsed
// it whole: those calls in message.tool_calls, arguments an object, and
// the text of any it could not parse (bad arguments) in content. Nothing
// when the tokens complete no call: Ollama holds them back.
func (e *ollamaEncoder) toolChunk(b []byte, a, end int, now time.Time) []byte {
	tr := e.rep.tools
	from, _ := tr.at(a)
	to, _ := tr.at(end - 1)
	var text string
	var whole []int
	for i := from; i <= to; i++ {
		if !tr.done(i, end) {
			continue
		}
		if c := &tr.calls[i]; c.bad {
			text += c.callText(c.tokens())
		} else {
			whole = append(whole, i)
		}
	}
	if text == "" && len(whole) == 0 {
		return b
	}
	b = e.start(b, now)
	b = appendJSONString(b, text)
	b = e.toolCalls(b, whole)
	return append(b, "},\"done\":false}\n"...)
}

// toolCalls appends message.tool_calls with the calls whole, if any.
func (e *ollamaEncoder) toolCalls(b []byte, whole []int) []byte {
	if len(whole) == 0 {
		return b
	}
	b = append(b, `,"tool_calls":[`...)
	for k, i := range whole {
		c := &e.rep.tools.calls[i]
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":"call_`...)
		b = append(b, c.id[:8]...)
		b = append(b, `","function":{"index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, c.name)
		b = append(b, `,"arguments":`...)
		b = append(b, c.args...)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// reason is the final line's done_reason: Ollama says "stop" after tool
// calls.
func (e *ollamaEncoder) reason() string {
	if e.rep.reason == "tool_calls" {
		return "stop"
	}
	return e.rep.reason
}

// cutText is the text of the call the reply's length cut, which Ollama
// sends as content in its final line; "" if none was cut.
func (e *ollamaEncoder) cutText() string {
	tr := e.rep.tools
	k := e.rep.m - e.rep.think // the calls' tokens sent
	if tr == nil || k <= 0 || k >= tr.total {
		return ""
	}
	i, j := tr.at(k)
	if j == 0 {
		return "" // cut between calls
	}
	return tr.calls[i].callText(j)
}

func (e *ollamaEncoder) final(b []byte, now time.Time) []byte {
	content := `""`
	if cut := e.cutText(); cut != "" {
		content = string(appendJSONString(nil, cut))
	}
	return e.end(b, now, content, nil, e.reason(), e.rep.m, nil)
}

// whole is the "stream": false response: the final line whose message
// carries all the text, the answer in content and the reasoning, if any,
// in thinking; token big (if in range) is bigText.
func (e *ollamaEncoder) whole(b []byte, now time.Time, big int) []byte {
	e.lpAll = true
	var thinking []byte
	if e.rep.think > 0 {
		thinking = appendTokens(nil, e.rep, 0, e.rep.think, big)
	}
	if tr := e.rep.tools; tr != nil {
		// The calls whole, the text of those Ollama could not parse.
		var text string
		var whole []int
		for i := range tr.calls {
			switch c := &tr.calls[i]; {
			case !tr.done(i, e.rep.m-e.rep.think):
			case c.bad:
				text += c.callText(c.tokens())
			default:
				whole = append(whole, i)
			}
		}
		text += e.cutText()
		return e.end(b, now, string(appendJSONString(nil, text)), thinking, e.reason(), e.rep.m, whole)
	}
	content := appendTokens(nil, e.rep, e.rep.think, e.rep.m, big)
	return e.end(b, now, string(content), thinking, e.rep.reason, e.rep.m, nil)
}

func (e *ollamaEncoder) empty(b []byte, now time.Time) []byte {
	return e.end(b, now, `""`, nil, "stop", 0, nil)
}

// end renders a final line whose message content is the JSON string
// content, thinking, if not nil, the JSON string thinking, and tool_calls
// the calls whole, if any, with eval_count count.
func (e *ollamaEncoder) end(b []byte, now time.Time, content string, thinking []byte, reason string, count int, whole []int) []byte {
	b = e.start(b, now)
	b = append(b, content...)
	if thinking != nil {
		b = append(b, `,"thinking":`...)
		b = append(b, thinking...)
	}
	b = e.toolCalls(b, whole)
	b = append(b, '}')
	if e.rep.top >= 0 && e.lpAll && e.rep.tools == nil {
		// "stream": false: every token's, as Ollama gathers them.
		b = append(b, `,"logprobs":`...)
		b = e.rep.appendLogprobs(b, 0, count, e.rep.top)
	}
	b = append(b, `,"done":true,"done_reason":"`...)
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

func (e *ollamaEncoder) keepAlive(b []byte) []byte { return append(b, '\n') }

// ollamaNotFound is Ollama's message for a model it does not have.
func ollamaNotFound(model string) string {
	return fmt.Sprintf("model %q not found, try pulling it first", model)
}

func ollamaError(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, mustJSON(map[string]string{"error": err.Error()}))
}
