package runtimes

import (
	"context"
	"io"
	"net/http"
	"time"
)

// OpenAI's Responses API (BENCH_API=responses): POST /v1/responses with
// "stream":true. The reply is SSE events, each an "event: <type>" line and
// a "data: {…}" line whose "type" says the same: response.created,
// response.in_progress, response.output_item.added,
// response.content_part.added, then response.output_text.delta events
// ("delta": the text; reasoning models' response.reasoning_text.delta
// before them), the .done events, and last response.completed (or
// response.incomplete, for a reply cut at max_output_tokens), whose
// "response" carries "usage" {input_tokens, output_tokens,
// input_tokens_details.cached_tokens, output_tokens_details.reasoning_tokens}.
// A failure is a response.failed event or an "error" event. vLLM,
// LM Studio and Ollama (0.13.3 and later) serve it, statelessly here:
// "store": false.

type responsesRequest struct {
	Model           string             `json:"model"`
	Input           []responsesMessage `json:"input"`
	Instructions    string             `json:"instructions,omitempty"`
	Stream          bool               `json:"stream"`
	MaxOutputTokens int                `json:"max_output_tokens,omitempty"`
	Temperature     float64            `json:"temperature"`
	Store           bool               `json:"store"`
}

type responsesMessage struct {
	Type    string `json:"type"` // "message"
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (rt *Runtime) responsesRequest(ctx context.Context, req Request) (*http.Request, error) {
	if len(req.Tools) > 0 {
		return nil, errNoToolsAPI(APIResponses)
	}
	in := make([]responsesMessage, 0, len(req.History)+1)
	for _, m := range req.History {
		in = append(in, responsesMessage{Type: "message", Role: m.Role, Content: m.Content})
	}
	in = append(in, responsesMessage{Type: "message", Role: "user", Content: req.Prompt})
	body := responsesRequest{
		Model: rt.Model, Input: in, Instructions: req.System, Stream: true,
		MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature,
	}
	return rt.postJSON(ctx, APIResponses.Path(rt.Kind), body, "text/event-stream")
}

// responsesEvent is the fields of an event we use.
type responsesEvent struct {
	Type     string `json:"type"`
	Delta    string `json:"delta"`
	Message  string `json:"message"` // an "error" event's
	Response *struct {
		Model             string   `json:"model"`
		Status            string   `json:"status"`
		Error             apiError `json:"error"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			InputTokensDetails *struct {
				CachedTokens *int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokensDetails *struct {
				ReasoningTokens *int `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
}

type responsesParser struct {
	apiSSE
	ev    responsesEvent
	usage bool // the end's usage gave the output tokens
}

func readResponses(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	p := &responsesParser{}
	p.apiSSE = apiSSE{res: res, start: start, data: p.event, end: "before response.completed"}
	return readStream(r, start, now, res, p)
}

func (p *responsesParser) finish() {
	if !p.usage {
		p.res.OutputTokens, p.res.TokensApprox = p.res.Chunks, true
	}
}

func (p *responsesParser) event(data []byte, t time.Time, partial bool) (bool, error) {
	p.ev = responsesEvent{}
	e := &p.ev
	if err := decodeEvent(data, e, partial, p.end); err != nil {
		return false, err
	}
	switch e.Type {
	case "response.output_text.delta", "response.refusal.delta":
		textEvent(p.res, p.start, t, e.Delta, true)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta", "response.reasoning.delta":
		textEvent(p.res, p.start, t, e.Delta, false)
	case "error":
		return false, fail(ClassStreamError, "error in stream: "+clip(e.Message))
	case "response.failed":
		msg := "response.failed"
		if e.Response != nil && e.Response.Error.msg != "" {
			msg += ": " + e.Response.Error.msg
		}
		return false, fail(ClassStreamError, "error in stream: "+msg)
	case "response.completed", "response.incomplete":
		p.last(e)
		return true, nil
	}
	if e.Response != nil && p.res.ServedModel == "" {
		p.res.ServedModel = e.Response.Model
	}
	return false, nil
}

// last takes the counts and the reason of the last event.
func (p *responsesParser) last(e *responsesEvent) {
	r := p.res
	r.FinishReason = "stop"
	rs := e.Response
	if rs == nil {
		return
	}
	if r.ServedModel == "" {
		r.ServedModel = rs.Model
	}
	if rs.Status == "incomplete" || e.Type == "response.incomplete" {
		r.FinishReason = "incomplete"
		if d := rs.IncompleteDetails; d != nil && d.Reason == "max_output_tokens" {
			r.FinishReason = "length"
		}
	}
	u := rs.Usage
	if u == nil {
		return
	}
	if u.OutputTokens > 0 || r.Chunks == 0 {
		r.OutputTokens, r.TokensApprox, p.usage = u.OutputTokens, false, true
	}
	if u.InputTokens > 0 {
		r.PromptTokens = u.InputTokens
	}
	if d := u.InputTokensDetails; d != nil && d.CachedTokens != nil {
		r.stated.state(CachedInputDetails, *d.CachedTokens)
		r.pickCached(DefaultCachedOrder)
	}
	if d := u.OutputTokensDetails; d != nil && d.ReasoningTokens != nil && *d.ReasoningTokens >= 0 {
		r.ReasoningTokens, r.ReasoningReported = *d.ReasoningTokens, true
	}
}
