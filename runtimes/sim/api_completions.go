package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// OpenAI's text completions, as vLLM serves them: POST /v1/completions
// {"model","prompt","stream":true,"max_tokens",…}; the reply is SSE
// "data: {…"object":"text_completion"…,"choices":[{"index":0,"text":…,
// "finish_reason":null}]}" chunks, no role chunk, a last chunk with the
// finish reason, the usage chunk ("choices": []) when
// stream_options.include_usage asks for it, and "data: [DONE]". The
// prompt is counted as one user message's (the simulator has one
// tokenizer); reasoning tokens, which a completion does not tell apart,
// come as text.

var completionsAPI = &streamAPI{read: readCompletions, enc: newCompletionsEncoder, fail: openaiFail, limit: openaiContextError}

func readCompletions(body []byte) (apiRequest, error) {
	var req struct {
		Model         string          `json:"model"`
		Prompt        json.RawMessage `json:"prompt"`
		Stream        bool            `json:"stream"`
		MaxTokens     *float64        `json:"max_tokens"`
		IgnoreEOS     bool            `json:"ignore_eos"`
		Logprobs      *int            `json:"logprobs"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := decodeJSON(body, &req); err != nil {
		return apiRequest{}, err
	}
	var prompt string
	if err := json.Unmarshal(req.Prompt, &prompt); err != nil {
		return apiRequest{}, fmt.Errorf(`"prompt" must be a string (the simulator takes no lists of prompts or tokens)`)
	}
	return apiRequest{
		model: req.Model, msgs: textMessages([]string{"user"}, []string{prompt}), n: maxTokens(req.MaxTokens),
		ignoreEOS: req.IgnoreEOS, stream: req.Stream, usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
		logprobs: req.Logprobs,
	}, nil
}

type completionsEncoder struct {
	prefix []byte // data: {"id":…,"model":M,"choices":[{"index":0,"text":
	rep    *reply
	usage  bool
	q      []byte
	offset int // the text's length so far, for the legacy text_offset
}

// newCompletionsEncoder is a completions reply's encoder. A request's
// "logprobs": k asks for k alternatives, in vLLM's legacy shape; the
// ollama flavor ignores it, as Ollama 0.17.4's /v1/completions does
// (openai.ToCompleteChunk drops the log-probabilities its generate
// request asked for: seen on the real server).
func newCompletionsEncoder(s *Server, arrival time.Time, rep *reply, req *apiRequest) apiEncoder {
	head := fmt.Sprintf(`data: {"id":%q,"object":"text_completion","created":%d,"model":%s,"choices":`, apiID("cmpl-"), arrival.Unix(), mustJSON(rep.model))
	if k := req.logprobs; k != nil && s.cfg.flavor() != FlavorOllama {
		rep.top, _ = s.cfg.askLogprobs(true, *k) // checked by apiStream
	}
	return &completionsEncoder{prefix: []byte(head), rep: rep, usage: req.usage}
}

func (e *completionsEncoder) head(b []byte) []byte { return b }

func (e *completionsEncoder) chunk(b []byte, a, end int, now time.Time) []byte {
	e.q = appendTokens(e.q[:0], e.rep, a, end, -1)
	if e.rep.top < 0 {
		return e.text(b, e.q, false, now)
	}
	b = append(b, e.prefix...)
	b = append(b, `[{"index":0,"text":`...)
	b = append(b, e.q...)
	b = append(b, `,"logprobs":`...)
	b = e.rep.appendLegacyLogprobs(b, a, end, e.rep.top, e.offset)
	e.offset += len(e.q) - 2 // the quotes
	return append(b, `,"finish_reason":null,"stop_reason":null}],"usage":null}`+"\n\n"...)
}

func (e *completionsEncoder) text(b []byte, quoted []byte, _ bool, _ time.Time) []byte {
	b = append(b, e.prefix...)
	b = append(b, `[{"index":0,"text":`...)
	b = append(b, quoted...)
	return append(b, `,"logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`+"\n\n"...)
}

func (e *completionsEncoder) final(b []byte, _ time.Time) []byte {
	return e.end(b, e.rep.reason, e.rep.m)
}
func (e *completionsEncoder) empty(b []byte, _ time.Time) []byte { return e.end(b, "stop", 0) }

func (e *completionsEncoder) end(b []byte, reason string, n int) []byte {
	b = append(b, e.prefix...)
	b = append(b, `[{"index":0,"text":"","logprobs":null,"finish_reason":"`...)
	b = append(b, reason...)
	b = append(b, `","stop_reason":null}],"usage":null}`+"\n\n"...)
	if e.usage {
		p := e.rep.p
		b = append(b, e.prefix...)
		b = append(b, `[],"usage":{"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, `,"total_tokens":`...)
		b = strconv.AppendInt(b, int64(p+n), 10)
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(e.rep.cached), 10)
		b = append(b, "}}}\n\n"...)
	}
	return append(b, "data: [DONE]\n\n"...)
}

func (e *completionsEncoder) broken(b []byte, _ time.Time) []byte {
	b = append(b, e.prefix...)
	b = append(b, `[{"index":0,"text":`...)
	b = append(b, brokenText...)
	return append(b, "\n\n"...)
}

func (e *completionsEncoder) failure(b []byte, _ Fault, msg string) []byte {
	b = append(b, `data: {"error":{"message":`...)
	b = strconv.AppendQuote(b, msg)
	b = append(b, `,"type":"InternalServerError","code":500}}`+"\n\n"...)
	return append(b, "data: [DONE]\n\n"...)
}

func (e *completionsEncoder) keepAlive(b []byte) []byte { return append(b, ": keepalive\n\n"...) }
