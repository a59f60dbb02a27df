package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// The OpenAI-compatible chat API, as vLLM serves it: POST
// /v1/chat/completions with "stream": true (the simulator only streams). The
// reply is server-sent events: a role-only chunk, "data: {chunk}" lines of
// delta.content (or the reasoning field), a chunk with the finish reason,
// the usage chunk if stream_options.include_usage asked for it, and
// "data: [DONE]".

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now()
	body, err := s.chatBody(w, r)
	if err != nil {
		openaiError(w, err)
		return
	}
	f, ok := s.admit(w, r, arrival, true)
	if !ok {
		return
	}
	req, msgs, tools, ok := s.readOpenAIChat(w, body)
	if !ok {
		return
	}
	n := maxTokens(req.MaxCompletionTokens, req.MaxTokens)
	pr := s.cache.measure(withTools(msgs, req.Tools))
	if limit := s.cfg.ctxLen(); pr.p+n > limit {
		s.contextError(w, pr.p, n, limit)
		return
	}
	rep := s.newReply(arrival, req.Model, n, req.IgnoreEOS, pr.p, pr.cached(s.cache.serve(pr)), s.lastSeed(msgs))
	rep.top, _ = s.cfg.askLogprobs(req.Logprobs, req.TopLogprobs) // checked by readOpenAIChat
	if s.cfg.flavor() == FlavorMLX {
		// mlx_lm.server 0.32 (server.py): pieces, and none in a stream.
		rep.pieces = true
		if req.Stream {
			rep.top = -1
		}
	}
	if !req.Stream {
		s.openaiWhole(w, r, rep)
		return
	}
	if len(tools) > 0 && s.cfg.toolCalls() > 0 {
		rep.withTools(s.planTools(tools, rep.seed), s.cfg.ReasoningTokens)
	}
	enc, roleTail := s.newOpenAIEncoder(arrival, rep, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	s.closeAfterReply(r)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	held := s.cfg.ToolsHeld && hasTools(req.Tools)
	// The role-only chunk goes out at once; it is not a token. Ollama,
	// whose habit held plays, sends none.
	role := make([]byte, 0, len(": keepalive\n\n")+len(enc.head)+len(roleTail))
	if f == FaultKeepAlive {
		role = enc.keepAlive(role)
	}
	if !held {
		role = append(append(role, enc.head...), roleTail...)
	}
	if _, err := w.Write(role); err != nil || rc.Flush() != nil {
		return
	}
	if s.begin(r, rep) != nil {
		s.abort()
		return
	}
	defer s.finish(rep)
	var out encoder = enc
	if held {
		out = heldOpenAI{enc}
	}
	s.serve(w, r, rc, rep, out, f)
}

// openaiRequest is the body of a chat request to the OpenAI-compatible
// API, the fields the simulator reads.
type openaiRequest struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	Stream              bool            `json:"stream"`
	MaxTokens           *float64        `json:"max_tokens"`
	MaxCompletionTokens *float64        `json:"max_completion_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Logprobs            bool            `json:"logprobs"`
	TopLogprobs         int             `json:"top_logprobs"`
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// readOpenAIChat decodes and checks a chat request's body, with its
// messages and tools; on a request it refuses it writes the error reply
// and returns false.
func (s *Server) readOpenAIChat(w http.ResponseWriter, body []byte) (req openaiRequest, msgs []chatMessage, tools []tool, ok bool) {
	if err := decodeJSON(body, &req); err != nil {
		openaiError(w, err)
		return req, nil, nil, false
	}
	if len(req.Messages) == 0 {
		openaiError(w, errNoMessages)
		return req, nil, nil, false
	}
	if s.cfg.unserved(req.Model) {
		s.openaiNotFound(w, req.Model)
		return req, nil, nil, false
	}
	if s.refusesTools(req.Tools) {
		// Ollama's /v1 passes its /api/chat error on, in OpenAI's shape.
		ollamaOpenAIError(w, noTools(req.Model))
		return req, nil, nil, false
	}
	if s.refusesImages(req.Messages) {
		s.visionError(w, req.Model)
		return req, nil, nil, false
	}
	if !req.Stream && hasTools(req.Tools) {
		openaiError(w, errWholeTools)
		return req, nil, nil, false
	}
	if _, err := s.cfg.askLogprobs(req.Logprobs, req.TopLogprobs); err != nil {
		openaiError(w, err)
		return req, nil, nil, false
	}
	if err := checkToolMessages(req.Messages); err != nil {
		openaiError(w, err)
		return req, nil, nil, false
	}
	msgs, err := chatMessages(req.Messages)
	if err != nil {
		openaiError(w, err)
		return req, nil, nil, false
	}
	if tools, err = readTools(req.Tools, req.ToolChoice); err != nil {
		openaiError(w, err)
		return req, nil, nil, false
	}
	return req, msgs, tools, true
}

// newOpenAIEncoder is the encoder of a reply's chunks, with what closes
// its role-only chunk. What the flavor adds to vLLM's chunks is fixed
// here so that writing a chunk costs nothing more: mlx_lm.server's
// fingerprint in every chunk's head, vLLM's in its usage chunk and its
// null prompt fields in its first chunk.
func (s *Server) newOpenAIEncoder(arrival time.Time, rep *reply, usage bool) (enc *openaiEncoder, roleTail string) {
	fingerprint, roleTail, usageTail := "", roleEnd, usageEnd
	switch s.cfg.flavor() {
	case FlavorMLX:
		fingerprint = `"system_fingerprint":"` + s.cfg.mlxFingerprint() + `",`
	case FlavorOllama:
		fingerprint = `"system_fingerprint":"` + OllamaFingerprint + `",`
	case FlavorVLLM:
		roleTail, usageTail = vllmRoleEnd, s.vllmUsageEnd
	}
	return &openaiEncoder{
		head: fmt.Appendf(nil, `data: {"id":"chatcmpl-%016x%016x",%s"object":"chat.completion.chunk","created":%d,"model":%s,"choices":`,
			rand.Uint64(), rand.Uint64(), fingerprint, arrival.Unix(), mustJSON(rep.model)),
		usage:     usage,
		usageTail: usageTail,
		rep:       rep,
		field:     s.cfg.reasoningField(),
		// The reasoning count is reported only where there is reasoning.
		details: s.cfg.ReasoningTokens > 0,
		// vLLM without --enable-prompt-tokens-details: no cached count.
		noPromptDetails: s.cfg.NoPromptTokensDetails,
		llamaOld:        s.cfg.llamaCachedByPromptN(),
	}, roleTail
}

// The role-only chunk's and the usage chunk's ends after the head: vLLM
// 0.32's (the vllm flavor; its usage chunk's, vllmUsageEnd, is
// Server.vllmUsageEnd, with the version it states) and the others'.
const (
	roleEnd     = `[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	vllmRoleEnd = `[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"prompt_token_ids":null,"prompt_text":null}` + "\n\n"
	usageEnd    = "}}\n\n"
)

type openaiEncoder struct {
	head      []byte // data: {"id":…,["system_fingerprint":…,]"object":…,"created":…,"model":M,"choices":
	usage     bool
	usageTail string // what closes the usage chunk: usageEnd or Server.vllmUsageEnd
	rep       *reply
	field     ReasoningField // the delta field of reasoning text
	details   bool           // usage has completion_tokens_details
	q         []byte         // scratch for a chunk's text

	// noPromptDetails: usage has "prompt_tokens_details":null.
	noPromptDetails bool
	// llamaOld: llama-server b1-4227c9b, whose usage has no
	// prompt_tokens_details and whose usage chunk carries timings
	// without cache_n (llamacpp_old.go).
	llamaOld bool
}

func (e *openaiEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	if e.rep.tools != nil && a >= e.rep.think {
		return e.toolChunk(b, a-e.rep.think, end-e.rep.think)
	}
	e.q = appendTokens(e.q[:0], e.rep, a, end, -1)
	if e.rep.top >= 0 {
		b = e.delta(b, e.q, a < e.rep.think)
		b = append(b, `},"logprobs":{"content":`...)
		b = e.rep.appendLogprobs(b, a, end, e.rep.top)
		return append(b, "},\"finish_reason\":null}]}\n\n"...)
	}
	return e.text(b, e.q, a < e.rep.think, now)
}

func (e *openaiEncoder) text(b []byte, quoted []byte, think bool, _ time.Time) []byte {
	b = e.delta(b, quoted, think)
	return append(b, "},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
}

// delta is a text chunk up to its delta's end: its head and the delta
// whose content (or reasoning field, if think) is quoted.
func (e *openaiEncoder) delta(b []byte, quoted []byte, think bool) []byte {
	b = append(b, e.head...)
	if think {
		b = append(b, `[{"index":0,"delta":{"`...)
		b = append(b, e.field...)
		b = append(b, `":`...)
	} else {
		b = append(b, `[{"index":0,"delta":{"content":`...)
	}
	return append(b, quoted...)
}

// toolChunk is the chunk of the calls' tokens a..end-1 (from the first
// call's), in vLLM's shape: for each call they touch, one entry; a call's
// first token is its id, type and name, the others arguments fragments.
func (e *openaiEncoder) toolChunk(b []byte, a, end int) []byte {
	tr := e.rep.tools
	b = append(b, e.head...)
	b = append(b, `[{"index":0,"delta":{"tool_calls":[`...)
	for k := a; k < end; {
		i, j := tr.at(k)
		c := &tr.calls[i]
		stop := min(end, tr.first[i]+c.tokens())
		if k > a {
			b = append(b, ',')
		}
		if j == 0 {
			b = append(b, `{"id":"chatcmpl-tool-`...)
			b = append(b, c.id...)
			b = append(b, `","type":"function","index":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"function":{"name":`...)
			b = appendJSONString(b, c.name)
		} else {
			b = append(b, `{"index":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"function":{`...)
		}
		if args := c.text(j, stop-tr.first[i]); args != "" {
			if j == 0 {
				b = append(b, ',')
			}
			b = append(b, `"arguments":`...)
			b = appendJSONString(b, args)
		}
		b = append(b, "}}"...)
		k = stop
	}
	return append(b, "]},\"logprobs\":null,\"finish_reason\":null}]}\n\n"...)
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
		switch {
		case e.llamaOld:
		case e.noPromptDetails:
			b = append(b, `,"prompt_tokens_details":null`...)
		default:
			b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
			b = strconv.AppendInt(b, int64(e.rep.cached), 10)
			b = append(b, '}')
		}
		if e.details {
			b = append(b, `,"completion_tokens_details":{"reasoning_tokens":`...)
			b = strconv.AppendInt(b, int64(reasoning), 10)
			b = append(b, '}')
		}
		if e.llamaOld {
			b = append(b, '}')
			b = appendLlamaTimings(b, e.rep, n)
			b = append(b, "}\n\n"...)
		} else {
			b = append(b, e.usageTail...)
		}
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

func (e *openaiEncoder) keepAlive(b []byte) []byte { return append(b, ": keepalive\n\n"...) }

// heldOpenAI streams a reply held back whole until its end, as Ollama's
// /v1 before 0.8 streams a reply to a request with tools: no chunk until
// the end, then one with all of it (its reasoning, if any, in one before
// it), then the end.
type heldOpenAI struct{ *openaiEncoder }

func (h heldOpenAI) chunk(b []byte, _, _ int, _ time.Time) []byte { return b }
func (h heldOpenAI) final(b []byte, now time.Time) []byte {
	rep := h.rep
	if rep.think > 0 {
		b = h.openaiEncoder.chunk(b, 0, rep.think, now)
	}
	if rep.m > rep.think {
		b = h.openaiEncoder.chunk(b, rep.think, rep.m, now)
	}
	return h.openaiEncoder.final(b, now)
}

// ollamaOpenAIError is Ollama's /v1 error: its /api/chat error in
// OpenAI's shape.
func ollamaOpenAIError(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, mustJSON(map[string]any{"error": map[string]any{
		"message": err.Error(), "type": "invalid_request_error", "param": nil, "code": nil,
	}}))
}

// openaiNotFound answers a chat request for a model the server does not
// serve: 404 with vLLM's body, or Ollama's /v1 one.
func (s *Server) openaiNotFound(w http.ResponseWriter, model string) {
	if s.cfg.flavor() == FlavorOllama {
		writeJSON(w, http.StatusNotFound, mustJSON(map[string]any{"error": map[string]any{
			"message": ollamaNotFound(model), "type": "api_error", "param": nil, "code": nil,
		}}))
		return
	}
	writeJSON(w, http.StatusNotFound, mustJSON(map[string]any{
		"object": "error", "message": "The model `" + model + "` does not exist.", "type": "NotFoundError", "param": nil, "code": http.StatusNotFound,
	}))
}

func openaiError(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusBadRequest, mustJSON(map[string]any{
		"object": "error", "message": err.Error(), "type": "BadRequestError", "param": nil, "code": http.StatusBadRequest,
	}))
}
