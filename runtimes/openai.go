package runtimes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAI-compatible chat completions: POST /v1/chat/completions with
// "stream":true, a server-sent-events reply of "data: {chunk}" lines ending
// with "data: [DONE]".
//
// The request body is built from go-openai's types, but the reply is read
// by our own small SSE reader, not go-openai's stream: that one cannot tell
// a stream cut before "data: [DONE]" from a complete one (both end in
// io.EOF), counts keep-alive comments towards a limit of 300 empty lines
// (mlx_lm sends one per prefill step), runs a regexp on every line, and only
// recognises errors shaped data: {"error":…}, not vLLM's
// {"object":"error",…} nor old llama.cpp's "error: {…}" lines. It also has
// no field for delta.reasoning or llama.cpp's timings.

// openAIChatRequest is go-openai's request with Temperature replaced:
// go-openai's is a float32 with omitempty, so temperature 0 would never be
// sent and the server's default (often 0.7 or 1) would apply. The shallower
// field wins in encoding/json, so ours is the one marshalled.
//
// ignore_eos is vLLM's, SGLang's and llama.cpp's extension: generate
// max_tokens tokens whatever the model would say. go-openai has no field
// for it.
//
// Messages replaces go-openai's the same way: its message type has its own
// JSON encoder, run once per message (turn 20 of a conversation took 1 ms
// and 94 allocations to encode), and it leaves out an empty content, which
// some servers refuse in an assistant message.
type openAIChatRequest struct {
	openai.ChatCompletionRequest
	Messages    []openAIMessage `json:"messages"`
	Temperature float64         `json:"temperature"`
	IgnoreEOS   bool            `json:"ignore_eos,omitempty"`
	// Tools replaces go-openai's typed list: the caller's array is sent
	// as it is, whatever keys its tools have.
	Tools json.RawMessage `json:"tools,omitempty"`
}

// openAIMessage is a chat message as sent: its content always, "" too,
// but null in an assistant message of tool calls without text, and an
// array of parts in a user message with images (openAIUserMessage); an
// assistant's tool calls, a tool message's tool_call_id.
type openAIMessage struct {
	Role       string               `json:"role"`
	Content    any                  `json:"content"` // *string, nil or []openAIPart
	ToolCalls  []openAIToolCallSent `json:"tool_calls,omitempty"`
	ToolCallID string               `json:"tool_call_id,omitempty"`
}

// openAIToolCallSent is a tool call sent back in an assistant message:
// its arguments a JSON string, as the reply streamed them.
type openAIToolCallSent struct {
	ID       string `json:"id"`
	Type     string `json:"type"` // "function"
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// newOpenAIMessage is m as sent. An assistant message of tool calls
// without text has content null, as OpenAI's API writes it: Ollama's /v1
// (0.6.5, openai.go fromChatRequest) reads a message whose content is a
// string, "" too, as text alone and drops its tool_calls without a word.
// A call's arguments that are not a JSON object go as "{}": vLLM parses
// them to render the chat template and Ollama's /v1 into a map, and each
// refuses the request otherwise (Ollama: 400 "invalid tool call
// arguments").
func newOpenAIMessage(m *Message) openAIMessage {
	om := openAIMessage{Role: m.Role, Content: &m.Content, ToolCallID: m.ToolCallID}
	if len(m.ToolCalls) > 0 {
		if m.Content == "" {
			om.Content = nil
		}
		om.ToolCalls = make([]openAIToolCallSent, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			s := &om.ToolCalls[i]
			s.ID, s.Type = c.ID, "function"
			s.Function.Name, s.Function.Arguments = c.Name, c.Arguments
			if !jsonObject([]byte(c.Arguments)) {
				s.Function.Arguments = "{}"
			}
		}
	}
	return om
}

func newOpenAIChatRequest(model string, req Request) openAIChatRequest {
	return openAIChatRequest{
		ChatCompletionRequest: openai.ChatCompletionRequest{
			Model:  model,
			Stream: true,
			// max_tokens, not max_completion_tokens: Ollama's /v1 only
			// knows the former, the others accept both.
			MaxTokens: req.MaxTokens,
			Seed:      req.Seed, // nil is left out
			// include_usage explicitly: mlx_lm crashes on stream_options
			// without it, and it is what makes servers report counts.
			StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		},
		Messages:    openAIMessages(req),
		Temperature: req.Temperature,
		IgnoreEOS:   req.IgnoreEOS,
		Tools:       req.Tools,
	}
}

// openAIMessages are req's messages: its system message, its history, its
// prompt.
func openAIMessages(req Request) []openAIMessage {
	msgs := make([]openAIMessage, 0, 2+len(req.History))
	if req.System != "" {
		msgs = append(msgs, openAIMessage{Role: openai.ChatMessageRoleSystem, Content: &req.System})
	}
	for i := range req.History {
		msgs = append(msgs, newOpenAIMessage(&req.History[i]))
	}
	return append(msgs, openAIUserMessage(&req))
}

// openAIRequest builds one streaming chat completion request to path
// (OpenAI.Chat).
func (rt *Runtime) openAIRequest(ctx context.Context, path string, req Request) (*http.Request, error) {
	if err := checkTools(req.Tools); err != nil {
		return nil, err
	}
	body, err := json.Marshal(newOpenAIChatRequest(rt.Model, req))
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	hreq, err := rt.newRequest(ctx, http.MethodPost, path, body)
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Accept", "text/event-stream")
	return hreq, nil
}

// openAIChunk holds the few fields of a chunk we use.
type openAIChunk struct {
	Model string `json:"model"`
	// SystemFingerprint: mlx_lm.server sends it in every chunk, vLLM in
	// the usage chunk, which are decoded; plain text chunks skip it.
	SystemFingerprint string         `json:"system_fingerprint"`
	Object            string         `json:"object"`
	Message           string         `json:"message"` // vLLM's {"object":"error","message":…}
	Error             apiError       `json:"error"`
	Choices           []openAIChoice `json:"choices"`
	Usage             *openAIUsage   `json:"usage"`
	Timings           *openAITimings `json:"timings"`
}

type openAIChoice struct {
	Delta struct {
		// null (llama.cpp's role chunk) leaves a string empty.
		Content string `json:"content"`
		// Reasoning text: vLLM ≤ 0.11, llama.cpp and LM Studio say
		// reasoning_content; vLLM 0.16+, Ollama /v1, mlx_lm and LM Studio
		// say reasoning; late-2025 vLLM sends both with the same text.
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        string `json:"reasoning"`
		// Tool calls, in parts (see tools.go): a part of one counts as
		// answer text, as the model has stopped reasoning.
		ToolCalls []openAIToolCall `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type openAIUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// openAITimings is llama.cpp's server-side account in its last chunk. Its
// decode time is not used: for OpenAI servers decode is measured by the
// client. predicted_n is the server's token count where usage is missing.
type openAITimings struct {
	PromptN    int     `json:"prompt_n"`
	PromptMs   float64 `json:"prompt_ms"`
	PredictedN int     `json:"predicted_n"`
	CacheN     *int    `json:"cache_n"`
}

// openAIParser turns SSE lines into a Result. It is separate from the
// reading so that it can be fed recorded lines and benchmarked per line.
type openAIParser struct {
	res   *Result
	start time.Time
	chunk openAIChunk

	usage       openAIUsage
	haveUsage   bool
	timings     openAITimings
	haveTimings bool
	tools       toolCalls
}

var (
	sseData  = []byte("data:")
	sseError = []byte("error:")
	sseDone  = []byte("[DONE]")
)

// feed handles one line that arrived at t. It reports whether the line was
// data: [DONE]. partial says the line was cut off by the end of the stream.
func (p *openAIParser) feed(line []byte, t time.Time, partial bool) (done bool, err error) {
	if len(line) == 0 || line[0] == ':' {
		// Event separator, or a comment: llama.cpp pings, mlx_lm's
		// ": keepalive N/M" during prefill.
		return false, nil
	}
	switch {
	case bytes.HasPrefix(line, sseData):
		data := bytes.TrimSpace(line[len(sseData):])
		if len(data) == 0 {
			return false, nil
		}
		if bytes.Equal(data, sseDone) {
			return true, nil
		}
		return false, p.data(data, t, partial)
	case bytes.HasPrefix(line, sseError):
		// Older llama.cpp: "error: {"code":…,"message":…,"type":…}".
		return false, fail(ClassStreamError, "error in stream: "+serverMessage(line[len(sseError):]))
	case line[0] == '{':
		// A JSON document outside SSE framing: an error sent with
		// status 200 by a proxy or a misbehaving server.
		var eb errorBody
		if json.Unmarshal(line, &eb) == nil && (eb.Error.set || eb.Object == "error") {
			return false, fail(ClassStreamError, "error in stream: "+serverMessage(line))
		}
	}
	// Other SSE fields (event:, id:, retry:) carry nothing we use.
	return false, nil
}

// openAIRule is what a plain text chunk may contain: answer text in
// content, reasoning in reasoning/reasoning_content, finish_reason, usage
// and timings null or absent, tool_calls null, [] or absent, and no error
// of either shape.
func openAIRule(key []byte) keyRule {
	switch string(key) {
	case "content":
		return answerValue
	case "reasoning", "reasoning_content":
		return reasoningValue
	case "finish_reason", "usage", "timings":
		return nullValue
	case "object":
		return notError
	case "tool_calls":
		// null (SGLang) or [] (mlx_lm) in every text chunk: no call.
		return emptyValue
	case "error":
		return noKey
	}
	return anyValue
}

// openAIPlainText reports, from the bytes alone, that a chunk is a text
// delta and carries nothing else we use, and whether its text is answer
// text. plain false means "decode it", not "no text".
func openAIPlainText(d []byte) (plain, answer bool) {
	found, ok := scanKeys(d, openAIRule)
	return ok && (found.answer || found.reasoning), found.answer
}

// data handles the JSON of one data: line.
func (p *openAIParser) data(data []byte, t time.Time, partial bool) error {
	if plain, answer := openAIPlainText(data); plain && !partial && !p.res.keep {
		textChunk(p.res, p.start, t, answer)
		return nil
	}
	return p.decode(data, t, partial)
}

// decode handles a chunk with encoding/json.
func (p *openAIParser) decode(data []byte, t time.Time, partial bool) error {
	c := &p.chunk
	// Reuse the choices' storage, zeroed: encoding/json decodes into the
	// elements already there and would merge old fields into new ones.
	ch := c.Choices[:cap(c.Choices)]
	clear(ch)
	*c = openAIChunk{Choices: ch[:0]}
	if err := json.Unmarshal(data, c); err != nil {
		if partial {
			return fail(ClassTruncated, fmt.Sprintf("stream ended before data: [DONE] (cut in the middle of a line: %s)", quote(data)))
		}
		return fail(ClassMalformed, fmt.Sprintf("bad chunk %s: %s", quote(data), jsonError(err)))
	}
	if c.Error.set {
		return fail(ClassStreamError, "error in stream: "+c.Error.msg)
	}
	if c.Object == "error" {
		msg := clip(c.Message)
		if msg == "" {
			msg = snippet(data)
		}
		return fail(ClassStreamError, "error in stream: "+msg)
	}
	text, answer, calls := false, false, false
	for i := range c.Choices {
		d := &c.Choices[i].Delta
		if len(d.ToolCalls) > 0 && p.tools.openAI(d.ToolCalls) {
			calls = true
		}
		if d.Content != "" || calls {
			text, answer = true, true
			answerText(p.res, d.Content)
		}
		if d.ReasoningContent != "" || d.Reasoning != "" {
			text = true
		}
		if fr := c.Choices[i].FinishReason; fr != "" {
			p.res.FinishReason = fr
		}
	}
	if text {
		textChunk(p.res, p.start, t, answer)
	}
	if calls {
		toolCallChunk(p.res, p.start, t)
	}
	if p.res.ServedModel == "" {
		p.res.ServedModel = c.Model
	}
	if c.SystemFingerprint != "" {
		p.res.Fingerprint = c.SystemFingerprint
	}
	if c.Usage != nil {
		p.usage, p.haveUsage = *c.Usage, true
	}
	if c.Timings != nil {
		p.timings, p.haveTimings = *c.Timings, true
	}
	return nil
}

// maxMs is the longest duration in milliseconds that a time.Duration holds
// (292 years): a larger prompt_ms is a broken figure.
const maxMs = float64(math.MaxInt64 / int64(time.Millisecond))

// finish moves the server's counts into the Result. Negative or absurd
// figures count as not reported.
func (p *openAIParser) finish() {
	r := p.res
	p.tools.finish(r)
	// A usage with no completion tokens for a reply that had text is a
	// broken count (LM Studio before 0.3.19): fall back to the next best.
	switch {
	case p.haveUsage && (p.usage.CompletionTokens > 0 || r.Chunks == 0 && p.usage.CompletionTokens == 0):
		r.OutputTokens, r.TokensApprox = p.usage.CompletionTokens, false
	case p.haveTimings && p.timings.PredictedN > 0:
		r.OutputTokens, r.TokensApprox = p.timings.PredictedN, false
	default:
		r.OutputTokens, r.TokensApprox = r.Chunks, true
	}
	// llama.cpp's prompt_ms covers only the prompt_n tokens it evaluated;
	// cache_n more came from its prompt cache. usage.prompt_tokens counts
	// cached ones too.
	tm := p.timings
	if p.haveTimings && tm.PromptMs > 0 && tm.PromptMs < maxMs && tm.PromptN > 0 {
		r.PromptEvalTokens = tm.PromptN
		r.PromptEval = time.Duration(math.Round(tm.PromptMs * float64(time.Millisecond)))
		r.PromptTokens = tm.PromptN
	}
	if p.haveTimings && tm.CacheN != nil && *tm.CacheN >= 0 {
		r.stated.state(CachedTimings, *tm.CacheN)
		r.PromptTokens += *tm.CacheN
	}
	u := p.usage
	if p.haveUsage {
		if u.PromptTokens > 0 {
			r.PromptTokens = u.PromptTokens
			// An older llama-server states its cached tokens only so:
			// every prompt token less those it evaluated.
			if r.PromptEvalTokens > 0 && u.PromptTokens >= r.PromptEvalTokens {
				r.stated.state(CachedPromptLessEvaluated, u.PromptTokens-r.PromptEvalTokens)
			}
		}
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			r.stated.state(CachedUsage, *d.CachedTokens)
		}
		if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil && *d.ReasoningTokens >= 0 {
			r.ReasoningTokens, r.ReasoningReported = *d.ReasoningTokens, true
		}
	}
	r.pickCached(DefaultCachedOrder)
}

// readOpenAI reads an SSE chat completion stream.
func readOpenAI(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	return readStream(r, start, now, res, &openAIParser{res: res, start: start})
}

func (p *openAIParser) missingEnd() string { return "before data: [DONE]" }
