package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// OpenAI's Responses API, as vLLM and Ollama serve it, statelessly: POST
// /v1/responses {"model","input" (a string, or messages),
// "instructions","stream":true,"max_output_tokens",…}. The reply is SSE
// events, "event: <type>" and "data: {"type":<type>,…,
// "sequence_number":k}": response.created, response.in_progress,
// response.output_item.added and response.content_part.added at once;
// a response.reasoning_text.delta per chunk of reasoning and a
// response.output_text.delta per chunk of answer; then
// response.output_text.done, response.content_part.done,
// response.output_item.done and response.completed, or
// response.incomplete (incomplete_details.reason "max_output_tokens")
// for a reply cut at the length asked for (Ollama's: response.completed,
// incomplete_details null, responses_ollama.go), with usage {input_tokens,
// input_tokens_details.cached_tokens, output_tokens,
// output_tokens_details.reasoning_tokens, total_tokens}.

var responsesAPI = &streamAPI{read: readResponses, enc: newResponsesEncoder, fail: openaiFail, limit: openaiContextError}

func readResponses(body []byte) (apiRequest, error) {
	var req struct {
		Model           string          `json:"model"`
		Input           json.RawMessage `json:"input"`
		Instructions    string          `json:"instructions"`
		Stream          bool            `json:"stream"`
		MaxOutputTokens *float64        `json:"max_output_tokens"`
	}
	if err := decodeJSON(body, &req); err != nil {
		return apiRequest{}, err
	}
	var msgs []chatMessage
	if req.Instructions != "" {
		msgs = textMessages([]string{"system"}, []string{req.Instructions})
	}
	var text string
	if json.Unmarshal(req.Input, &text) == nil {
		msgs = append(msgs, textMessages([]string{"user"}, []string{text})...)
	} else {
		var in []message
		if err := json.Unmarshal(req.Input, &in); err != nil {
			return apiRequest{}, fmt.Errorf(`"input" must be a string or a list of messages: %w`, err)
		}
		m, err := chatMessages(in)
		if err != nil {
			return apiRequest{}, err
		}
		msgs = append(msgs, m...)
	}
	return apiRequest{model: req.Model, msgs: msgs, n: maxTokens(req.MaxOutputTokens), stream: req.Stream}, nil
}

type responsesEncoder struct {
	id, msgID string
	created   int64
	rep       *reply
	seq       int
	q         []byte
	// capCompleted: a reply cut at its length ends completed (Ollama's,
	// responses_ollama.go).
	capCompleted bool
}

func newResponsesEncoder(s *Server, arrival time.Time, rep *reply, _ *apiRequest) apiEncoder {
	return &responsesEncoder{id: apiID("resp_"), msgID: apiID("msg_"), created: arrival.Unix(), rep: rep, capCompleted: s.cfg.capSaysCompleted()}
}

// event appends one event: its type, and the data's fields after the
// type (fields, a JSON object's members without braces).
func (e *responsesEncoder) event(b []byte, typ, fields string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	b = append(b, `",`...)
	b = append(b, fields...)
	b = append(b, `,"sequence_number":`...)
	b = strconv.AppendInt(b, int64(e.seq), 10)
	e.seq++
	return append(b, "}\n\n"...)
}

// response is the response object, with status and, at the end, usage.
func (e *responsesEncoder) response(status, extra string) string {
	return fmt.Sprintf(`"response":{"id":%q,"object":"response","created_at":%d,"status":%q,"model":%s,"output":[]%s}`,
		e.id, e.created, status, mustJSON(e.rep.model), extra)
}

func (e *responsesEncoder) head(b []byte) []byte {
	b = e.event(b, "response.created", e.response("in_progress", `,"usage":null`))
	b = e.event(b, "response.in_progress", e.response("in_progress", `,"usage":null`))
	b = e.event(b, "response.output_item.added", fmt.Sprintf(`"output_index":0,"item":{"id":%q,"type":"message","status":"in_progress","role":"assistant","content":[]}`, e.msgID))
	return e.event(b, "response.content_part.added", fmt.Sprintf(`"item_id":%q,"output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}`, e.msgID))
}

func (e *responsesEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	e.q = appendTokens(e.q[:0], e.rep, a, end, -1)
	return e.text(b, e.q, a < e.rep.think, now)
}

func (e *responsesEncoder) text(b []byte, quoted []byte, think bool, _ time.Time) []byte {
	typ := "response.output_text.delta"
	if think {
		typ = "response.reasoning_text.delta"
	}
	return e.event(b, typ, fmt.Sprintf(`"item_id":%q,"output_index":0,"content_index":0,"delta":%s`, e.msgID, quoted))
}

func (e *responsesEncoder) final(b []byte, _ time.Time) []byte {
	return e.end(b, e.rep.reason, e.rep.think, e.rep.m)
}

func (e *responsesEncoder) empty(b []byte, _ time.Time) []byte { return e.end(b, "stop", 0, 0) }

// end is the closing events of a reply of n tokens, think of them
// reasoning, ended for reason.
func (e *responsesEncoder) end(b []byte, reason string, think, n int) []byte {
	text := appendTokens(nil, e.rep, think, n, -1)
	part := fmt.Sprintf(`{"type":"output_text","text":%s,"annotations":[]}`, text)
	b = e.event(b, "response.output_text.done", fmt.Sprintf(`"item_id":%q,"output_index":0,"content_index":0,"text":%s`, e.msgID, text))
	b = e.event(b, "response.content_part.done", fmt.Sprintf(`"item_id":%q,"output_index":0,"content_index":0,"part":%s`, e.msgID, part))
	b = e.event(b, "response.output_item.done", fmt.Sprintf(`"output_index":0,"item":{"id":%q,"type":"message","status":"completed","role":"assistant","content":[%s]}`, e.msgID, part))
	p, c := e.rep.p, e.rep.cached
	usage := fmt.Sprintf(`,"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":%d},"total_tokens":%d}`, p, c, n, think, p+n)
	if reason == "length" && e.capCompleted {
		return e.completedAtCap(b, usage)
	}
	if reason == "length" {
		return e.event(b, "response.incomplete", e.response("incomplete", `,"incomplete_details":{"reason":"max_output_tokens"}`+usage))
	}
	return e.event(b, "response.completed", e.response("completed", usage))
}

func (e *responsesEncoder) broken(b []byte, _ time.Time) []byte {
	b = append(b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":"...)
	b = append(b, brokenText...)
	return append(b, "\n\n"...)
}

func (e *responsesEncoder) failure(b []byte, _ Fault, msg string) []byte {
	return e.event(b, "error", fmt.Sprintf(`"code":"server_error","message":%s,"param":null`, mustJSON(msg)))
}

func (e *responsesEncoder) keepAlive(b []byte) []byte { return append(b, ": keepalive\n\n"...) }
