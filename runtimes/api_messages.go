package runtimes

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Anthropic's Messages API (BENCH_API=messages): POST /v1/messages with
// "stream":true, "max_tokens" (required) and the system message apart
// from the messages. The reply is SSE events, an "event: <type>" line and
// a "data: {…}" line of the same "type": message_start (the message's
// model and usage.input_tokens), for each content block a
// content_block_start, content_block_delta events (delta text_delta
// {"text"}, thinking_delta {"thinking"}, input_json_delta for a tool's
// input) and content_block_stop, ping events, message_delta
// (delta.stop_reason, usage.output_tokens) and message_stop. A failure is
// an "error" event {"error":{"type","message"}}. Ollama (0.14.0 and
// later), llama-server and vLLM serve it for coding agents.

// anthropicVersion is the API version sent, the one every server that
// copies the API accepts.
const anthropicVersion = "2023-06-01"

type messagesRequest struct {
	Model       string            `json:"model"`
	MaxTokens   int               `json:"max_tokens"`
	System      string            `json:"system,omitempty"`
	Messages    []messagesMessage `json:"messages"`
	Stream      bool              `json:"stream"`
	Temperature float64           `json:"temperature"`
}

type messagesMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (rt *Runtime) messagesRequest(ctx context.Context, req Request) (*http.Request, error) {
	if len(req.Tools) > 0 {
		return nil, errNoToolsAPI(APIMessages)
	}
	msgs := make([]messagesMessage, 0, len(req.History)+1)
	for _, m := range req.History {
		msgs = append(msgs, messagesMessage{Role: m.Role, Content: m.Content})
	}
	msgs = append(msgs, messagesMessage{Role: "user", Content: req.Prompt})
	body := messagesRequest{
		Model: rt.Model, MaxTokens: req.MaxTokens, System: req.System, Messages: msgs,
		Stream: true, Temperature: req.Temperature,
	}
	hreq, err := rt.postJSON(ctx, APIMessages.Path(rt.Kind), body, "text/event-stream")
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("anthropic-version", anthropicVersion)
	if rt.apiKey != "" {
		hreq.Header.Set("x-api-key", rt.apiKey)
	}
	return hreq, nil
}

// messagesEvent is the fields of an event we use.
type messagesEvent struct {
	Type    string `json:"type"`
	Message *struct {
		Model string         `json:"model"`
		Usage *messagesUsage `json:"usage"`
	} `json:"message"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *messagesUsage `json:"usage"`
	Error apiError       `json:"error"`
}

type messagesUsage struct {
	InputTokens          *int `json:"input_tokens"`
	OutputTokens         *int `json:"output_tokens"`
	CacheReadInputTokens *int `json:"cache_read_input_tokens"`
}

type messagesParser struct {
	apiSSE
	output *int // the last output_tokens said (message_delta's is the total)
	input  int
	cached *int
}

func readMessages(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	p := &messagesParser{}
	p.apiSSE = apiSSE{res: res, start: start, data: p.event, end: "before message_stop"}
	return readStream(r, start, now, res, p)
}

// stopReasons maps Anthropic's stop reasons to the chat's finish reasons.
var stopReasons = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}

func (p *messagesParser) event(data []byte, t time.Time, partial bool) (bool, error) {
	var e messagesEvent
	if err := decodeEvent(data, &e, partial, p.end); err != nil {
		return false, err
	}
	switch e.Type {
	case "error":
		return false, fail(ClassStreamError, "error in stream: "+e.Error.msg)
	case "message_start":
		if e.Message != nil {
			p.res.ServedModel = e.Message.Model
			p.usage(e.Message.Usage)
		}
	case "content_block_delta":
		if d := e.Delta; d != nil {
			switch d.Type {
			case "text_delta":
				textEvent(p.res, p.start, t, d.Text, true)
			case "thinking_delta":
				textEvent(p.res, p.start, t, d.Thinking, false)
			case "input_json_delta":
				textEvent(p.res, p.start, t, d.PartialJSON, true)
			}
		}
	case "message_delta":
		if d := e.Delta; d != nil && d.StopReason != "" {
			p.res.FinishReason = d.StopReason
			if r, ok := stopReasons[d.StopReason]; ok {
				p.res.FinishReason = r
			}
		}
		p.usage(e.Usage)
	case "message_stop":
		return true, nil
	}
	return false, nil
}

func (p *messagesParser) usage(u *messagesUsage) {
	if u == nil {
		return
	}
	if u.OutputTokens != nil {
		p.output = u.OutputTokens
	}
	if u.InputTokens != nil && *u.InputTokens > 0 {
		p.input = *u.InputTokens
	}
	if u.CacheReadInputTokens != nil {
		p.cached = u.CacheReadInputTokens
	}
}

// finish: Anthropic's input_tokens leaves out the tokens read from the
// cache (cache_read_input_tokens): the prompt is both.
func (p *messagesParser) finish() {
	r := p.res
	if o := p.output; o != nil && (*o > 0 || r.Chunks == 0) {
		r.OutputTokens, r.TokensApprox = *o, false
	} else {
		r.OutputTokens, r.TokensApprox = r.Chunks, true
	}
	r.PromptTokens = p.input
	if c := p.cached; c != nil && *c >= 0 {
		r.stated.state(CachedReadInput, *c)
		r.pickCached(DefaultCachedOrder)
		r.PromptTokens += *c
	}
}
