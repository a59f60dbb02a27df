package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Ollama's native chat API: POST /api/chat, one JSON object per line
// (NDJSON). Text chunks carry message.content or message.thinking; the last
// line has "done":true and the server's counts and durations (omitempty:
// a missing figure is 0).

type ollamaChatRequest struct {
	Model     string          `json:"model"`
	Messages  []ollamaMessage `json:"messages"`
	Stream    bool            `json:"stream"`
	Options   ollamaOptions   `json:"options"`
	KeepAlive string          `json:"keep_alive,omitempty"`
	Tools     json.RawMessage `json:"tools,omitempty"`
}

// ollamaMessage is a chat message as sent: an assistant's tool calls
// too. Ollama 0.6.5's api.Message has no tool_call_id nor tool_name (later
// ones have both): a tool message is its role and content, the results
// following the calls in order.
type ollamaMessage struct {
	Role      string               `json:"role"`
	Content   string               `json:"content"`
	ToolCalls []ollamaToolCallSent `json:"tool_calls,omitempty"`
	Images    []string             `json:"images,omitempty"` // base64, the user's last message
}

// ollamaToolCallSent is a tool call sent back in an assistant message:
// its arguments a JSON object, as Ollama's api.ToolCallFunctionArguments
// (a map) takes them.
type ollamaToolCallSent struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// emptyArgs are the arguments sent back for a call whose streamed ones
// are no JSON object (cut, broken, or another value): Ollama would refuse
// the whole request over them, as it decodes arguments into a map.
var emptyArgs = json.RawMessage(`{}`)

// newOllamaMessage is m as sent.
func newOllamaMessage(m *Message) ollamaMessage {
	om := ollamaMessage{Role: m.Role, Content: m.Content}
	if len(m.ToolCalls) > 0 {
		om.ToolCalls = make([]ollamaToolCallSent, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			f := &om.ToolCalls[i].Function
			f.Name, f.Arguments = c.Name, emptyArgs
			if args := []byte(c.Arguments); jsonObject(args) {
				f.Arguments = args
			}
		}
	}
	return om
}

type ollamaOptions struct {
	// NumPredict is left out when MaxTokens is not set, so the server's
	// default applies (0 is not "no limit" for Ollama).
	NumPredict int  `json:"num_predict,omitempty"`
	Seed       *int `json:"seed,omitempty"`
	// Temperature is sent also when 0 (greedy), never left to the
	// model's default.
	Temperature float64 `json:"temperature"`
	// NumCtx is left out when not set: the model's loaded context stays.
	NumCtx int `json:"num_ctx,omitempty"`
}

func newOllamaChatRequest(model string, req Request) ollamaChatRequest {
	return ollamaChatRequest{
		Model:    model,
		Messages: ollamaMessages(req),
		Stream:   true,
		Options: ollamaOptions{
			NumPredict:  req.MaxTokens,
			Seed:        req.Seed,
			Temperature: req.Temperature,
			NumCtx:      req.NumCtx,
		},
		KeepAlive: req.KeepAlive,
		Tools:     req.Tools,
	}
}

// ollamaMessages are req's messages: its system message, its history, its
// prompt.
func ollamaMessages(req Request) []ollamaMessage {
	msgs := make([]ollamaMessage, 0, 2+len(req.History))
	if req.System != "" {
		msgs = append(msgs, ollamaMessage{Role: "system", Content: req.System})
	}
	for i := range req.History {
		msgs = append(msgs, newOllamaMessage(&req.History[i]))
	}
	return append(msgs, ollamaUserMessage(&req))
}

// ollamaRequest builds one streaming chat request to path (Ollama.Chat).
func (rt *Runtime) ollamaRequest(ctx context.Context, path string, req Request) (*http.Request, error) {
	if err := checkTools(req.Tools); err != nil {
		return nil, err
	}
	body, err := json.Marshal(newOllamaChatRequest(rt.Model, req))
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	hreq, err := rt.newRequest(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "application/x-ndjson")
	return hreq, nil
}

// ollamaLine holds the few fields of a reply line we use. /api/generate's
// top-level response/thinking are read too, so the parser serves both
// endpoints.
type ollamaLine struct {
	Model   string `json:"model"`
	Message struct {
		Content   string           `json:"content"`
		Thinking  string           `json:"thinking"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Response string `json:"response"`
	Thinking string `json:"thinking"`

	Done               bool   `json:"done"`
	DoneReason         string `json:"done_reason"`
	LoadDuration       int64  `json:"load_duration"`
	PromptEvalCount    int    `json:"prompt_eval_count"`
	PromptEvalDuration int64  `json:"prompt_eval_duration"`
	EvalCount          int    `json:"eval_count"`
	EvalDuration       int64  `json:"eval_duration"`

	Error apiError `json:"error"`
}

// ollamaRule is what a plain text line may contain: answer text in content
// or response, reasoning in thinking, "done" false, no tool call, no error.
func ollamaRule(key []byte) keyRule {
	switch string(key) {
	case "content", "response":
		return answerValue
	case "thinking":
		return reasoningValue
	case "done":
		return falseValue
	case "tool_calls":
		return emptyValue
	case "error":
		return noKey
	}
	return anyValue
}

// ollamaPlainText reports, from the bytes alone, that a line is a text
// chunk and not the final one, and whether it carries answer text. False
// means "decode it".
func ollamaPlainText(b []byte) (plain, answer bool) {
	found, ok := scanKeys(b, ollamaRule)
	return ok && (found.answer || found.reasoning) && found.sawFalse, found.answer
}

// ollamaParser turns lines into a Result. It is separate from the reading
// so that it can be fed recorded lines and benchmarked per line.
type ollamaParser struct {
	res   *Result
	start time.Time
	line  ollamaLine
	tools toolCalls
}

// feed handles one line that arrived at t. It reports whether the line was
// the final (done) one. partial says the line was cut off by the end of the
// stream.
func (p *ollamaParser) feed(b []byte, t time.Time, partial bool) (done bool, err error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return false, nil
	}
	if plain, answer := ollamaPlainText(b); plain && !p.res.keep {
		textChunk(p.res, p.start, t, answer)
		return false, nil
	}
	l := &p.line
	*l = ollamaLine{}
	if err := json.Unmarshal(b, l); err != nil {
		if partial {
			return false, fail(ClassTruncated, fmt.Sprintf("stream ended without final done line (cut in the middle of a line: %s)", quote(b)))
		}
		return false, fail(ClassMalformed, fmt.Sprintf("bad line %s: %s", quote(b), jsonError(err)))
	}
	if l.Error.set {
		return false, fail(ClassStreamError, "error in stream: "+l.Error.msg)
	}
	calls := p.tools.ollama(l.Message.ToolCalls)
	answer := l.Message.Content != "" || l.Response != "" || calls
	answerText(p.res, l.Message.Content)
	answerText(p.res, l.Response)
	if answer || l.Message.Thinking != "" || l.Thinking != "" {
		textChunk(p.res, p.start, t, answer)
	}
	if calls {
		toolCallChunk(p.res, p.start, t)
	}
	r := p.res
	if r.ServedModel == "" {
		r.ServedModel = l.Model
	}
	if !l.Done {
		return false, nil
	}
	r.FinishReason = l.DoneReason
	// A negative figure is a broken one: taken as not reported.
	// prompt_eval_count counts cached tokens too, prompt_eval_duration
	// only the evaluated ones: PromptEvalTokens stays unknown.
	r.PromptTokens = max(l.PromptEvalCount, 0)
	r.PromptEval = time.Duration(max(l.PromptEvalDuration, 0))
	r.Eval = time.Duration(max(l.EvalDuration, 0))
	r.LoadDuration = time.Duration(max(l.LoadDuration, 0))
	if l.EvalCount > 0 {
		r.OutputTokens = l.EvalCount
		r.TokensApprox = false
	}
	return true, nil
}

// readOllama reads an /api/chat (or /api/generate) NDJSON reply.
func readOllama(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	return readStream(r, start, now, res, &ollamaParser{res: res, start: start})
}

func (p *ollamaParser) missingEnd() string { return "without final done line" }

// finish moves the tool calls into the Result and falls back to the chunk
// count where the server gave no token count.
func (p *ollamaParser) finish() {
	p.tools.finish(p.res)
	approxTokens(p.res)
}

// approxTokens falls back to the chunk count where the server gave no
// token count.
func approxTokens(res *Result) {
	if res.OutputTokens == 0 {
		res.OutputTokens = res.Chunks
		res.TokensApprox = true
	}
}
