package runtimes

import (
	"context"
	"io"
	"net/http"
	"time"
)

// OpenAI's text completions (BENCH_API=completions): POST /v1/completions
// with "stream":true and a prompt, not messages; the reply is SSE
// like the chat's, "data: {chunk}" lines whose choices[].text is the text,
// a usage chunk with "choices": [] when stream_options asked for it, and
// "data: [DONE]". vLLM, llama-server (with its timings), SGLang, LM Studio,
// mlx_lm.server and Ollama's /v1 serve it. No chat template is applied:
// the prompt goes to the model as written (a conversation's messages are
// joined, see flatPrompt).

type completionsRequest struct {
	Model         string  `json:"model"`
	Prompt        string  `json:"prompt"`
	Stream        bool    `json:"stream"`
	MaxTokens     int     `json:"max_tokens,omitempty"`
	Seed          *int    `json:"seed,omitempty"`
	Temperature   float64 `json:"temperature"` // sent also when 0
	IgnoreEOS     bool    `json:"ignore_eos,omitempty"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (rt *Runtime) completionsRequest(ctx context.Context, req Request) (*http.Request, error) {
	if len(req.Tools) > 0 {
		return nil, errNoToolsAPI(APICompletions)
	}
	return rt.postJSON(ctx, APICompletions.Path(rt.Kind), rt.newCompletionsBody(req), "text/event-stream")
}

// newCompletionsBody is the completions request of req.
func (rt *Runtime) newCompletionsBody(req Request) completionsRequest {
	body := completionsRequest{
		Model: rt.Model, Prompt: flatPrompt(req), Stream: true, MaxTokens: req.MaxTokens,
		Seed: req.Seed, Temperature: req.Temperature, IgnoreEOS: req.IgnoreEOS,
	}
	body.StreamOptions.IncludeUsage = true
	return body
}

// completionsChunk is the fields of a chunk we use.
type completionsChunk struct {
	Model             string   `json:"model"`
	SystemFingerprint string   `json:"system_fingerprint"`
	Object            string   `json:"object"`
	Message           string   `json:"message"`
	Error             apiError `json:"error"`
	Choices           []struct {
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *openAIUsage   `json:"usage"`
	Timings *openAITimings `json:"timings"`
}

// completionsParser reads a completions stream; the counts are the
// chat's (usage, else llama.cpp's timings, else the chunks), by its
// parser's finish.
type completionsParser struct {
	apiSSE
	o openAIParser
}

func readCompletions(r io.Reader, start time.Time, now func() time.Time, res *Result) error {
	p := &completionsParser{o: openAIParser{res: res, start: start}}
	p.apiSSE = apiSSE{res: res, start: start, data: p.event, end: "before data: [DONE]"}
	return readStream(r, start, now, res, p)
}

func (p *completionsParser) finish() { p.o.finish() }

func (p *completionsParser) event(data []byte, t time.Time, partial bool) (bool, error) {
	var c completionsChunk
	if err := decodeEvent(data, &c, partial, p.end); err != nil {
		return false, err
	}
	if c.Error.set {
		return false, fail(ClassStreamError, "error in stream: "+c.Error.msg)
	}
	if c.Object == "error" {
		return false, fail(ClassStreamError, "error in stream: "+clip(c.Message))
	}
	text := ""
	for _, ch := range c.Choices {
		text += ch.Text
		if ch.FinishReason != "" {
			p.res.FinishReason = ch.FinishReason
		}
	}
	textEvent(p.res, p.start, t, text, true)
	if p.res.ServedModel == "" {
		p.res.ServedModel = c.Model
	}
	if c.SystemFingerprint != "" {
		p.res.Fingerprint = c.SystemFingerprint
	}
	if c.Usage != nil {
		p.o.usage, p.o.haveUsage = *c.Usage, true
	}
	if c.Timings != nil {
		p.o.timings, p.o.haveTimings = *c.Timings, true
	}
	return false, nil
}
