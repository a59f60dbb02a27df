package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Anthropic's Messages API, as llama-server, vLLM and Ollama serve it:
// POST /v1/messages {"model","max_tokens","system","messages",
// "stream":true,…} with anthropic-version. The reply is SSE events,
// "event: <type>" and "data: {"type":<type>,…}": message_start (the
// message, usage.input_tokens and cache_read_input_tokens),
// content_block_start and a ping at once; a content_block_delta per
// chunk, thinking_delta in a thinking block (index 0) for reasoning, then
// text_delta in a text block; content_block_stop, message_delta
// (stop_reason "end_turn" or "max_tokens", usage.output_tokens) and
// message_stop. An error in the stream is an "error" event.

var messagesAPI = &streamAPI{read: readMessages, enc: newMessagesEncoder, fail: anthropicFail, limit: anthropicContextError}

func readMessages(body []byte) (apiRequest, error) {
	var req struct {
		Model     string          `json:"model"`
		MaxTokens *float64        `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Messages  []message       `json:"messages"`
		Stream    bool            `json:"stream"`
	}
	if err := decodeJSON(body, &req); err != nil {
		return apiRequest{}, err
	}
	if req.MaxTokens == nil {
		return apiRequest{}, fmt.Errorf("max_tokens: Field required")
	}
	msgs := []message{}
	if len(req.System) > 0 && string(req.System) != "null" {
		msgs = append(msgs, message{Role: "system", Content: req.System})
	}
	cm, err := chatMessages(append(msgs, req.Messages...))
	if err != nil {
		return apiRequest{}, err
	}
	if len(req.Messages) == 0 {
		cm = nil
	}
	return apiRequest{model: req.Model, msgs: cm, n: maxTokens(req.MaxTokens), stream: req.Stream}, nil
}

// anthropicFail is an error reply in Anthropic's shape.
func anthropicFail(w http.ResponseWriter, code int, err error) {
	typ := "invalid_request_error"
	if code == http.StatusNotFound {
		typ = "not_found_error"
	}
	writeJSON(w, code, mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": err.Error()}}))
}

func anthropicContextError(_ *Server, w http.ResponseWriter, p, n, limit int) {
	anthropicFail(w, http.StatusBadRequest, fmt.Errorf("prompt is too long: %d tokens and max_tokens %d > %d maximum", p, n, limit))
}

type messagesEncoder struct {
	rep    *reply
	id     string
	block  int  // the open content block's index
	answer bool // the open block is the text block
	q      []byte
}

func newMessagesEncoder(_ *Server, _ time.Time, rep *reply, _ *apiRequest) apiEncoder {
	return &messagesEncoder{rep: rep, id: apiID("msg_")}
}

func event(b []byte, typ, data string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

func (e *messagesEncoder) head(b []byte) []byte {
	rep := e.rep
	b = event(b, "message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%s,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`,
		e.id, mustJSON(rep.model), rep.p-rep.cached, rep.cached))
	e.answer = rep.think == 0
	b = e.blockStart(b)
	return event(b, "ping", `{"type":"ping"}`)
}

func (e *messagesEncoder) blockStart(b []byte) []byte {
	if e.answer {
		return event(b, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, e.block))
	}
	return event(b, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":""}}`, e.block))
}

func (e *messagesEncoder) blockStop(b []byte) []byte {
	return event(b, "content_block_stop", `{"type":"content_block_stop","index":`+strconv.Itoa(e.block)+`}`)
}

func (e *messagesEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	e.q = appendTokens(e.q[:0], e.rep, a, end, -1)
	return e.text(b, e.q, a < e.rep.think, now)
}

func (e *messagesEncoder) text(b []byte, quoted []byte, think bool, _ time.Time) []byte {
	if !think && !e.answer {
		// The reasoning is over: its block closes, the text's opens.
		b = e.blockStop(b)
		e.block, e.answer = e.block+1, true
		b = e.blockStart(b)
	}
	kind, field := "text_delta", "text"
	if think {
		kind, field = "thinking_delta", "thinking"
	}
	return event(b, "content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":%q,%q:%s}}`, e.block, kind, field, quoted))
}

func (e *messagesEncoder) final(b []byte, _ time.Time) []byte { return e.end(b, e.rep.reason, e.rep.m) }
func (e *messagesEncoder) empty(b []byte, _ time.Time) []byte { return e.end(b, "stop", 0) }

func (e *messagesEncoder) end(b []byte, reason string, n int) []byte {
	stop := "end_turn"
	if reason == "length" {
		stop = "max_tokens"
	}
	b = e.blockStop(b)
	b = event(b, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, n))
	return event(b, "message_stop", `{"type":"message_stop"}`)
}

func (e *messagesEncoder) broken(b []byte, _ time.Time) []byte {
	b = append(b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"...)
	b = append(b, brokenText...)
	return append(b, "\n\n"...)
}

func (e *messagesEncoder) failure(b []byte, _ Fault, msg string) []byte {
	return event(b, "error", fmt.Sprintf(`{"type":"error","error":{"type":"api_error","message":%s}}`, mustJSON(msg)))
}

func (e *messagesEncoder) keepAlive(b []byte) []byte { return event(b, "ping", `{"type":"ping"}`) }
